-- memcore schema 6 for SQLite and D1: a per-user revision of what search reads, so a store can
-- keep an in-process search mirror of a user's entries and vectors and know with one read whether
-- it is current (docs/storage.md, "Search mirror"). Triggers give a user a new revision on every
-- insert, delete and update of one of its entries except of the access count (recall's
-- increments change no ranking): the next value of one database-wide counter, so a revision is
-- never reused, even after the user's row is deleted. A user without entries has no row (an
-- erased user leaves no trace here); reading no row means revision 0. Each trigger is one line
-- (D1's statement split).
CREATE TABLE IF NOT EXISTS memcore_user_revisions (
  user_id TEXT PRIMARY KEY NOT NULL,
  revision INTEGER NOT NULL
);
INSERT OR IGNORE INTO memcore_counters (name, value) VALUES ('user_revision', 1);
INSERT OR IGNORE INTO memcore_user_revisions (user_id, revision) SELECT DISTINCT user_id, 1 FROM memcore_entries;
CREATE TRIGGER IF NOT EXISTS memcore_entries_revision_insert AFTER INSERT ON memcore_entries BEGIN UPDATE memcore_counters SET value = value + 1 WHERE name = 'user_revision'; INSERT INTO memcore_user_revisions (user_id, revision) SELECT NEW.user_id, value FROM memcore_counters WHERE name = 'user_revision' ON CONFLICT (user_id) DO UPDATE SET revision = excluded.revision; END;
CREATE TRIGGER IF NOT EXISTS memcore_entries_revision_delete AFTER DELETE ON memcore_entries BEGIN UPDATE memcore_counters SET value = value + 1 WHERE name = 'user_revision'; INSERT INTO memcore_user_revisions (user_id, revision) SELECT OLD.user_id, value FROM memcore_counters WHERE name = 'user_revision' ON CONFLICT (user_id) DO UPDATE SET revision = excluded.revision; DELETE FROM memcore_user_revisions WHERE user_id = OLD.user_id AND NOT EXISTS (SELECT 1 FROM memcore_entries WHERE user_id = OLD.user_id); END;
CREATE TRIGGER IF NOT EXISTS memcore_entries_revision_update AFTER UPDATE OF id, user_id, key, value, category, visibility, source_agent_id, group_ids, source_conversation_id, conflicted, created_at, updated_at, updated_sort, reserved, search_text, embedding, embedding_model ON memcore_entries BEGIN UPDATE memcore_counters SET value = value + 1 WHERE name = 'user_revision'; INSERT INTO memcore_user_revisions (user_id, revision) SELECT NEW.user_id, value FROM memcore_counters WHERE name = 'user_revision' ON CONFLICT (user_id) DO UPDATE SET revision = excluded.revision; INSERT INTO memcore_user_revisions (user_id, revision) SELECT OLD.user_id, value FROM memcore_counters WHERE name = 'user_revision' AND OLD.user_id IS NOT NEW.user_id ON CONFLICT (user_id) DO UPDATE SET revision = excluded.revision; DELETE FROM memcore_user_revisions WHERE user_id = OLD.user_id AND OLD.user_id IS NOT NEW.user_id AND NOT EXISTS (SELECT 1 FROM memcore_entries WHERE user_id = OLD.user_id); END;

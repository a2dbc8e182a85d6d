-- memcore schema 6 for PostgreSQL: a per-user revision of what search reads, so a store can keep
-- an in-process search mirror of a user's entries and vectors and know with one read whether it
-- is current (docs/storage.md, "Search mirror"). A trigger gives a user a new revision in the
-- writing transaction on every insert, delete and update of one of its entries except of the
-- access count (recall's increments change no ranking): a value of one sequence, so a revision
-- is never reused (not even after the user's row is deleted) and writers of different users
-- share no row. A reader that sees the same revision before and after reading the rows read one
-- state. A user without entries has no row (an erased user leaves no trace here); reading no row
-- means revision 0. TRUNCATE (no row triggers) removes every row.
CREATE TABLE IF NOT EXISTS memcore_user_revisions (
  user_id text COLLATE "C" PRIMARY KEY,
  revision bigint NOT NULL
);
CREATE SEQUENCE IF NOT EXISTS memcore_user_revision_seq;
INSERT INTO memcore_user_revisions (user_id, revision)
  SELECT user_id, nextval('memcore_user_revision_seq') FROM (SELECT DISTINCT user_id FROM memcore_entries) AS users
  ON CONFLICT (user_id) DO NOTHING;
CREATE OR REPLACE FUNCTION memcore_bump_user_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.user_id IS DISTINCT FROM OLD.user_id) THEN
    INSERT INTO memcore_user_revisions (user_id, revision) VALUES (NEW.user_id, nextval('memcore_user_revision_seq'))
      ON CONFLICT (user_id) DO UPDATE SET revision = excluded.revision;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    IF EXISTS (SELECT 1 FROM memcore_entries WHERE user_id = OLD.user_id) THEN
      INSERT INTO memcore_user_revisions (user_id, revision) VALUES (OLD.user_id, nextval('memcore_user_revision_seq'))
        ON CONFLICT (user_id) DO UPDATE SET revision = excluded.revision;
    ELSE
      DELETE FROM memcore_user_revisions WHERE user_id = OLD.user_id;
    END IF;
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION memcore_forget_user_revisions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM memcore_user_revisions;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS memcore_entries_revision_insert_delete ON memcore_entries;
CREATE TRIGGER memcore_entries_revision_insert_delete AFTER INSERT OR DELETE ON memcore_entries
  FOR EACH ROW EXECUTE FUNCTION memcore_bump_user_revision();
DROP TRIGGER IF EXISTS memcore_entries_revision_update ON memcore_entries;
CREATE TRIGGER memcore_entries_revision_update AFTER UPDATE OF id, user_id, key, value, category,
  visibility, source_agent_id, group_ids, source_conversation_id, conflicted, created_at,
  updated_at, updated_sort, reserved, search_text, embedding, embedding_model ON memcore_entries
  FOR EACH ROW EXECUTE FUNCTION memcore_bump_user_revision();
DROP TRIGGER IF EXISTS memcore_entries_revision_truncate ON memcore_entries;
CREATE TRIGGER memcore_entries_revision_truncate AFTER TRUNCATE ON memcore_entries
  FOR EACH STATEMENT EXECUTE FUNCTION memcore_forget_user_revisions();

-- memcore schema 2 for SQLite and D1: a per-user count of non-reserved entries, kept by triggers,
-- so countUser and the cap check of insertWithinCap read one row instead of counting the user's
-- entries. Backfilled from the existing rows. Each trigger is one line: inner semicolons are not
-- at a line end, so D1's statement split keeps the trigger whole.
CREATE TABLE IF NOT EXISTS memcore_user_counts (
  user_id TEXT PRIMARY KEY NOT NULL,
  entries INTEGER NOT NULL
);
INSERT OR REPLACE INTO memcore_user_counts (user_id, entries) SELECT user_id, count(*) FROM memcore_entries WHERE reserved = 0 GROUP BY user_id;
CREATE TRIGGER IF NOT EXISTS memcore_entries_count_insert AFTER INSERT ON memcore_entries WHEN NEW.reserved = 0 BEGIN INSERT INTO memcore_user_counts (user_id, entries) VALUES (NEW.user_id, 1) ON CONFLICT (user_id) DO UPDATE SET entries = entries + 1; END;
CREATE TRIGGER IF NOT EXISTS memcore_entries_count_delete AFTER DELETE ON memcore_entries WHEN OLD.reserved = 0 BEGIN UPDATE memcore_user_counts SET entries = entries - 1 WHERE user_id = OLD.user_id; END;
CREATE TRIGGER IF NOT EXISTS memcore_entries_count_update AFTER UPDATE OF user_id, reserved ON memcore_entries WHEN OLD.user_id IS NOT NEW.user_id OR OLD.reserved IS NOT NEW.reserved BEGIN UPDATE memcore_user_counts SET entries = entries - 1 WHERE user_id = OLD.user_id AND OLD.reserved = 0; INSERT INTO memcore_user_counts (user_id, entries) SELECT NEW.user_id, 1 WHERE NEW.reserved = 0 ON CONFLICT (user_id) DO UPDATE SET entries = entries + 1; END;

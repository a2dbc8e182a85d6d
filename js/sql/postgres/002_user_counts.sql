-- memcore schema 2 for PostgreSQL: a per-user count of non-reserved entries, kept by a trigger, so
-- countUser and the cap check of insertWithinCap read one row instead of counting the user's
-- entries. Backfilled from the existing rows (the migration runs under the schema lock).
CREATE TABLE IF NOT EXISTS memcore_user_counts (
  user_id text COLLATE "C" PRIMARY KEY,
  entries bigint NOT NULL
);
INSERT INTO memcore_user_counts (user_id, entries)
  SELECT user_id, count(*) FROM memcore_entries WHERE NOT reserved GROUP BY user_id
  ON CONFLICT (user_id) DO UPDATE SET entries = excluded.entries;
CREATE OR REPLACE FUNCTION memcore_count_entries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') AND NOT OLD.reserved THEN
    UPDATE memcore_user_counts SET entries = entries - 1 WHERE user_id = OLD.user_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NOT NEW.reserved THEN
    INSERT INTO memcore_user_counts (user_id, entries) VALUES (NEW.user_id, 1)
      ON CONFLICT (user_id) DO UPDATE SET entries = memcore_user_counts.entries + 1;
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS memcore_entries_count_insert_delete ON memcore_entries;
CREATE TRIGGER memcore_entries_count_insert_delete AFTER INSERT OR DELETE ON memcore_entries
  FOR EACH ROW EXECUTE FUNCTION memcore_count_entries();
DROP TRIGGER IF EXISTS memcore_entries_count_update ON memcore_entries;
CREATE TRIGGER memcore_entries_count_update AFTER UPDATE OF user_id, reserved ON memcore_entries
  FOR EACH ROW WHEN (OLD.user_id IS DISTINCT FROM NEW.user_id OR OLD.reserved IS DISTINCT FROM NEW.reserved)
  EXECUTE FUNCTION memcore_count_entries();

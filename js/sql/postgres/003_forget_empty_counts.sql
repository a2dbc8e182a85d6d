-- memcore schema 3 for PostgreSQL: a user's count row goes when the user's last counted entry
-- goes, so an erased user leaves no row behind (GDPR Art. 17: the user id is personal data too).
-- A missing row counts as 0 (the statements read it with coalesce).
DELETE FROM memcore_user_counts WHERE entries <= 0;
CREATE OR REPLACE FUNCTION memcore_count_entries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') AND NOT OLD.reserved THEN
    UPDATE memcore_user_counts SET entries = entries - 1 WHERE user_id = OLD.user_id;
    DELETE FROM memcore_user_counts WHERE user_id = OLD.user_id AND entries <= 0;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NOT NEW.reserved THEN
    INSERT INTO memcore_user_counts (user_id, entries) VALUES (NEW.user_id, 1)
      ON CONFLICT (user_id) DO UPDATE SET entries = memcore_user_counts.entries + 1;
  END IF;
  RETURN NULL;
END $$;

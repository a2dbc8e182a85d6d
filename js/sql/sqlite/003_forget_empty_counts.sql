-- memcore schema 3 for SQLite and D1: a user's count row goes when the user's last counted entry
-- goes, so an erased user leaves no row behind (GDPR Art. 17: the user id is personal data too).
-- A missing row counts as 0 (the statements read it with coalesce). Each trigger is one line.
DELETE FROM memcore_user_counts WHERE entries <= 0;
DROP TRIGGER IF EXISTS memcore_entries_count_delete;
CREATE TRIGGER memcore_entries_count_delete AFTER DELETE ON memcore_entries WHEN OLD.reserved = 0 BEGIN UPDATE memcore_user_counts SET entries = entries - 1 WHERE user_id = OLD.user_id; DELETE FROM memcore_user_counts WHERE user_id = OLD.user_id AND entries <= 0; END;
DROP TRIGGER IF EXISTS memcore_entries_count_update;
CREATE TRIGGER memcore_entries_count_update AFTER UPDATE OF user_id, reserved ON memcore_entries WHEN OLD.user_id IS NOT NEW.user_id OR OLD.reserved IS NOT NEW.reserved BEGIN UPDATE memcore_user_counts SET entries = entries - 1 WHERE user_id = OLD.user_id AND OLD.reserved = 0; DELETE FROM memcore_user_counts WHERE user_id = OLD.user_id AND entries <= 0; INSERT INTO memcore_user_counts (user_id, entries) SELECT NEW.user_id, 1 WHERE NEW.reserved = 0 ON CONFLICT (user_id) DO UPDATE SET entries = entries + 1; END;

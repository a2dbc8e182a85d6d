-- memcore schema 9 for PostgreSQL: an erasure renames the erased user's id where it says who
-- acted in the rest of the history (docs/storage.md, "History"; behaviour §8.3): other users'
-- audit records (`actor.id`) and versions (`author.id`). These expression indexes find them
-- without reading every row of the two tables.
CREATE INDEX IF NOT EXISTS memcore_audit_actor ON memcore_audit (((body::jsonb) #>> '{actor,id}'));
CREATE INDEX IF NOT EXISTS memcore_entry_versions_author ON memcore_entry_versions (((body::jsonb) #>> '{author,id}'));

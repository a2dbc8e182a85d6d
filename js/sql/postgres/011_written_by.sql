-- memcore schema 11 for PostgreSQL: the kind of writer of each entry's current state
-- (`writtenBy`: learned, agent, rest, mcp, dream, migration; docs/storage.md "Entries"), so an
-- operator can tell learned facts from written ones without reading the audit log. Entries
-- written before this schema get the kind of their newest write or restore in the audit log;
-- one the log no longer names (retention, history off) stays NULL.
ALTER TABLE memcore_entries ADD COLUMN IF NOT EXISTS written_by text COLLATE "C";
UPDATE memcore_entries AS e SET written_by = newest.kind
FROM (
  SELECT DISTINCT ON (user_id, (body::jsonb ->> 'entryId') COLLATE "C")
    user_id, (body::jsonb ->> 'entryId') COLLATE "C" AS entry_id, body::jsonb #>> '{actor,kind}' AS kind
  FROM memcore_audit WHERE operation IN ('write', 'restore')
  ORDER BY user_id, (body::jsonb ->> 'entryId') COLLATE "C", seq DESC
) AS newest
WHERE newest.entry_id = e.id AND newest.user_id = e.user_id;

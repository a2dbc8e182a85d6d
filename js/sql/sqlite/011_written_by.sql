-- memcore schema 11 for SQLite and D1: the kind of writer of each entry's current state
-- (`writtenBy`: learned, agent, rest, mcp, dream, migration; docs/storage.md "Entries"), so an
-- operator can tell learned facts from written ones without reading the audit log. Entries
-- written before this schema get the kind of their newest write or restore in the audit log;
-- one the log no longer names (retention, history off) stays NULL.
ALTER TABLE memcore_entries ADD COLUMN written_by TEXT;
UPDATE memcore_entries SET written_by = newest.kind
FROM (
  SELECT user_id, json_extract(body, '$.entryId') AS entry_id, json_extract(body, '$.actor.kind') AS kind, MAX(seq) AS seq
  FROM memcore_audit WHERE operation IN ('write', 'restore')
  GROUP BY user_id, json_extract(body, '$.entryId')
) AS newest
WHERE newest.entry_id = memcore_entries.id AND newest.user_id = memcore_entries.user_id;

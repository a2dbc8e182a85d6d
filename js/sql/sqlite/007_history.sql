-- memcore schema 7 for SQLite and D1: entry history (docs/storage.md, "History"). Each row is one
-- past state of an entry, as the core wrote it (`body`: the version's JSON text, kept byte for
-- byte); the other columns are what the adapter filters and prunes by. `valid_until` is always
-- the core's millisecond UTC text (YYYY-MM-DDTHH:MM:SS.sssZ), so text order is time order.
-- A version's id is derived from its content: appending the same version twice keeps one row.
CREATE TABLE IF NOT EXISTS memcore_entry_versions (
  id TEXT PRIMARY KEY NOT NULL,
  user_id TEXT NOT NULL,
  entry_id TEXT NOT NULL,
  key TEXT NOT NULL,
  valid_until TEXT NOT NULL,
  body TEXT NOT NULL CHECK (json_valid(body))
);
CREATE INDEX IF NOT EXISTS memcore_entry_versions_entry ON memcore_entry_versions (entry_id, valid_until DESC, id DESC);
CREATE INDEX IF NOT EXISTS memcore_entry_versions_user_until ON memcore_entry_versions (user_id, valid_until);
CREATE INDEX IF NOT EXISTS memcore_entry_versions_user_key ON memcore_entry_versions (user_id, key);
-- The audit log: one row per operation (write, delete, restore, erase, restrict, unrestrict,
-- import, export), never a value. `seq` numbers the rows in append order; `body` is the record as
-- the core wrote it. Rows are only appended and, by the retention or an erasure, deleted.
CREATE TABLE IF NOT EXISTS memcore_audit (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  at TEXT NOT NULL,
  user_id TEXT NOT NULL,
  operation TEXT NOT NULL,
  body TEXT NOT NULL CHECK (json_valid(body))
);
CREATE INDEX IF NOT EXISTS memcore_audit_user ON memcore_audit (user_id, seq);
CREATE INDEX IF NOT EXISTS memcore_audit_user_at ON memcore_audit (user_id, at);
CREATE INDEX IF NOT EXISTS memcore_audit_at ON memcore_audit (at, seq);

-- memcore schema 7 for PostgreSQL: entry history (docs/storage.md, "History"). Each row is one
-- past state of an entry, as the core wrote it (`body`: the version's JSON text, kept byte for
-- byte — text, not jsonb, which would reorder keys); the other columns are what the adapter
-- filters and prunes by. `valid_until` is always the core's millisecond UTC text
-- (YYYY-MM-DDTHH:MM:SS.sssZ), so byte order is time order. A version's id is derived from its
-- content: appending the same version twice keeps one row.
CREATE TABLE IF NOT EXISTS memcore_entry_versions (
  id text COLLATE "C" PRIMARY KEY,
  user_id text COLLATE "C" NOT NULL,
  entry_id text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  valid_until text COLLATE "C" NOT NULL,
  body text NOT NULL
);
CREATE INDEX IF NOT EXISTS memcore_entry_versions_entry ON memcore_entry_versions (entry_id, valid_until DESC, id DESC);
CREATE INDEX IF NOT EXISTS memcore_entry_versions_user_until ON memcore_entry_versions (user_id, valid_until);
CREATE INDEX IF NOT EXISTS memcore_entry_versions_user_key ON memcore_entry_versions (user_id, key);
-- The audit log: one row per operation (write, delete, restore, erase, restrict, unrestrict,
-- import, export), never a value. `seq` numbers the rows in append order; `body` is the record as
-- the core wrote it. Rows are only appended and, by the retention or an erasure, deleted.
CREATE TABLE IF NOT EXISTS memcore_audit (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at text COLLATE "C" NOT NULL,
  user_id text COLLATE "C" NOT NULL,
  operation text COLLATE "C" NOT NULL,
  body text NOT NULL
);
CREATE INDEX IF NOT EXISTS memcore_audit_user ON memcore_audit (user_id, seq);
CREATE INDEX IF NOT EXISTS memcore_audit_user_at ON memcore_audit (user_id, at);
CREATE INDEX IF NOT EXISTS memcore_audit_at ON memcore_audit (at, seq);

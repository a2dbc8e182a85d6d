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

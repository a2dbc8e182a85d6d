-- memcore schema 5 for PostgreSQL: an entry's vector from the host's embedder (docs/storage.md,
-- "Vectors"). `embedding` holds the vector bytes (one i8 a dimension, two's complement; the core
-- quantizes and scores them), `embedding_model` the model id that made them; both NULL until the
-- entry is embedded, and both cleared by every write that changes the entry's key or value.
-- bytea, not pgvector's `vector`: the same portable column as SQLite's BLOB, on any PostgreSQL.
-- A pgvector pushdown needs no change here: an expression index over a cast of these bytes, per
-- model (docs/storage.md, "Vectors").
ALTER TABLE memcore_entries ADD COLUMN IF NOT EXISTS embedding bytea;
ALTER TABLE memcore_entries ADD COLUMN IF NOT EXISTS embedding_model text COLLATE "C";

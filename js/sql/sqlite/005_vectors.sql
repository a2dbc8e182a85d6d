-- memcore schema 5 for SQLite and D1: an entry's vector from the host's embedder (docs/storage.md,
-- "Vectors"). `embedding` holds the vector bytes (one i8 a dimension, two's complement; the core
-- quantizes and scores them), `embedding_model` the model id that made them; both NULL until the
-- entry is embedded, and both cleared by every write that changes the entry's key or value. No
-- index: `vectors` reads one user's rows through an index on user_id, like `list`.
ALTER TABLE memcore_entries ADD COLUMN embedding BLOB;
ALTER TABLE memcore_entries ADD COLUMN embedding_model TEXT;

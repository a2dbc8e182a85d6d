-- memcore schema 13 for SQLite and D1: the history journal (docs/reference/storage.md, "History").
-- A write with history on a read-write SQLite file journals its append — one row, the append as
-- the core made it (`append`: JSON text), in the write's own transaction — instead of inserting
-- into the two history tables and their nine indexes. Every 64th journaled append, and before
-- any read of history, the journal is folded: each append applied in order (the same statements
-- as an append made directly, so the same versions and records are kept) and the journal
-- emptied, in one transaction. `n` numbers the appends in order; no index beside it. D1 appends
-- directly (its table stays empty).
CREATE TABLE IF NOT EXISTS memcore_history_journal (
  n INTEGER PRIMARY KEY,
  user_id TEXT NOT NULL,
  append TEXT NOT NULL CHECK (json_valid(append))
);

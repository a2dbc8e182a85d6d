-- memcore schema 13 for SQLite and D1: the history journal (docs/reference/storage.md, "History").
-- A write with history on a read-write SQLite file journals its append — one row, in the write's
-- own transaction — instead of inserting into the two history tables and their nine indexes.
-- Every 64th journaled append, and before any read of history, the journal is folded into those
-- tables (the same versions and records kept as by appends made directly) and emptied, in one
-- transaction. `n` numbers the appends in order; no index beside it. A row holds the append as
-- the store checked it: its user (with the tenant's prefix), the prefix of its ids (`scope`, ''
-- for the default tenant), its retention, and its versions and audit records as JSON arrays of
-- the objects the core made (each one's columns are read from it). D1 appends directly (its
-- table stays empty).
CREATE TABLE IF NOT EXISTS memcore_history_journal (
  n INTEGER PRIMARY KEY,
  user_id TEXT NOT NULL,
  scope TEXT NOT NULL,
  max_versions INTEGER NOT NULL,
  not_before TEXT NOT NULL,
  versions TEXT NOT NULL,
  audit TEXT NOT NULL
);

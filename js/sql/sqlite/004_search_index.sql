-- memcore schema 4 for SQLite and D1: the search prefilter goes through an FTS5 trigram index
-- instead of testing every row of the user (docs/storage.md, "Search"). FTS5 with the trigram
-- tokenizer (SQLite 3.34+) is in better-sqlite3@12's SQLite and in workerd's D1, which share this
-- file. Each trigger is one line, so D1's statement split keeps it whole.
--
-- memcore_search_rows gives every row that has a search_text a stable integer key. The FTS table
-- is keyed by it, not by memcore_entries' implicit rowid: that table has a TEXT primary key, and
-- SQLite documents that VACUUM may renumber such rowids, and sqlite3's .dump does not keep them
-- by default. An INTEGER PRIMARY KEY survives both.
CREATE TABLE IF NOT EXISTS memcore_search_rows (
  doc INTEGER PRIMARY KEY,
  entry_id TEXT NOT NULL UNIQUE
);
-- Contentless (content=''): the text already lives in memcore_entries.search_text, so the index
-- keeps no second copy. Rows leave it through the 'delete' command with the old text, which the
-- triggers have (OLD.search_text); that command exists in every FTS5 version, unlike
-- contentless_delete (3.43+). case_sensitive 1: search_text and the terms are already folded,
-- so the index compares bytes and folds nothing of its own.
CREATE VIRTUAL TABLE IF NOT EXISTS memcore_search USING fts5(search_text, content='', tokenize='trigram case_sensitive 1');
-- The rows without search_text are candidates of every search: this partial index reads exactly
-- those of one user.
CREATE INDEX IF NOT EXISTS memcore_entries_search_null ON memcore_entries (user_id) WHERE search_text IS NULL;
INSERT INTO memcore_search_rows (entry_id) SELECT id FROM memcore_entries WHERE search_text IS NOT NULL ORDER BY id;
INSERT INTO memcore_search (rowid, search_text) SELECT r.doc, e.search_text FROM memcore_search_rows r JOIN memcore_entries e ON e.id = r.entry_id;
CREATE TRIGGER IF NOT EXISTS memcore_entries_search_insert AFTER INSERT ON memcore_entries WHEN NEW.search_text IS NOT NULL BEGIN INSERT INTO memcore_search_rows (entry_id) VALUES (NEW.id); INSERT INTO memcore_search (rowid, search_text) SELECT doc, NEW.search_text FROM memcore_search_rows WHERE entry_id = NEW.id; END;
CREATE TRIGGER IF NOT EXISTS memcore_entries_search_delete AFTER DELETE ON memcore_entries WHEN OLD.search_text IS NOT NULL BEGIN INSERT INTO memcore_search (memcore_search, rowid, search_text) SELECT 'delete', doc, OLD.search_text FROM memcore_search_rows WHERE entry_id = OLD.id; DELETE FROM memcore_search_rows WHERE entry_id = OLD.id; END;
CREATE TRIGGER IF NOT EXISTS memcore_entries_search_update AFTER UPDATE OF id, search_text ON memcore_entries WHEN OLD.id IS NOT NEW.id OR OLD.search_text IS NOT NEW.search_text BEGIN INSERT INTO memcore_search (memcore_search, rowid, search_text) SELECT 'delete', doc, OLD.search_text FROM memcore_search_rows WHERE entry_id = OLD.id AND OLD.search_text IS NOT NULL; DELETE FROM memcore_search_rows WHERE entry_id = OLD.id; INSERT INTO memcore_search_rows (entry_id) SELECT NEW.id WHERE NEW.search_text IS NOT NULL; INSERT INTO memcore_search (rowid, search_text) SELECT doc, NEW.search_text FROM memcore_search_rows WHERE entry_id = NEW.id AND NEW.search_text IS NOT NULL; END;

-- memcore schema 4 for PostgreSQL: the search prefilter goes through a pg_trgm GIN index instead
-- of testing every row of the user (docs/storage.md, "Search").
--
-- The indexed text lives in a table of its own, memcore_search, kept by triggers: an update of
-- memcore_entries that changes an indexed column is never HOT, and access_count is indexed, so
-- a GIN index on memcore_entries itself would take every trigram of the row again on each access
-- increment (measured: recall through the tools 2 → 6 ms). memcore_search changes only with the
-- text.
CREATE INDEX IF NOT EXISTS memcore_entries_search_null ON memcore_entries (user_id) WHERE search_text IS NULL;
CREATE TABLE IF NOT EXISTS memcore_search (
  entry_id text COLLATE "C" PRIMARY KEY,
  user_id text COLLATE "C" NOT NULL,
  search_text text COLLATE "C" NOT NULL
);
CREATE INDEX IF NOT EXISTS memcore_search_user ON memcore_search (user_id);
INSERT INTO memcore_search (entry_id, user_id, search_text)
  SELECT id, user_id, search_text FROM memcore_entries WHERE search_text IS NOT NULL
  ON CONFLICT (entry_id) DO UPDATE SET user_id = excluded.user_id, search_text = excluded.search_text;
CREATE OR REPLACE FUNCTION memcore_index_search_text() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    DELETE FROM memcore_search WHERE entry_id = OLD.id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.search_text IS NOT NULL THEN
    INSERT INTO memcore_search (entry_id, user_id, search_text) VALUES (NEW.id, NEW.user_id, NEW.search_text);
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS memcore_entries_search_insert_delete ON memcore_entries;
CREATE TRIGGER memcore_entries_search_insert_delete AFTER INSERT OR DELETE ON memcore_entries
  FOR EACH ROW EXECUTE FUNCTION memcore_index_search_text();
DROP TRIGGER IF EXISTS memcore_entries_search_update ON memcore_entries;
CREATE TRIGGER memcore_entries_search_update AFTER UPDATE OF id, user_id, search_text ON memcore_entries
  FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id OR OLD.user_id IS DISTINCT FROM NEW.user_id OR OLD.search_text IS DISTINCT FROM NEW.search_text)
  EXECUTE FUNCTION memcore_index_search_text();
--
-- CREATE EXTENSION needs the CREATE privilege on the database (pg_trgm is a trusted extension
-- since PostgreSQL 13; before that, superuser), which an application role often lacks. So the
-- trigram index is made by memcore_create_search_index(): it tries to create the extension, and
-- creates the index only if pg_trgm's operator class exists (in whatever schema it was installed)
-- and this role may use that schema. When it cannot, the migration still succeeds and search
-- reads the user's rows of memcore_search and tests each; the statements are the same either way.
-- After an administrator runs `CREATE EXTENSION pg_trgm` (and grants USAGE on its schema),
-- `SELECT memcore_create_search_index()` adds the index (true = it exists now).
CREATE OR REPLACE FUNCTION memcore_create_search_index() RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  trgm_schema name;
BEGIN
  BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
  EXCEPTION WHEN OTHERS THEN
    -- Only this statement is undone (a subtransaction); the caller's transaction goes on.
    RAISE NOTICE 'memcore: pg_trgm could not be created (%); search tests each row of the user', SQLERRM;
  END;
  SELECT n.nspname INTO trgm_schema FROM pg_opclass c
    JOIN pg_am a ON a.oid = c.opcmethod JOIN pg_namespace n ON n.oid = c.opcnamespace
    WHERE c.opcname = 'gin_trgm_ops' AND a.amname = 'gin' LIMIT 1;
  IF trgm_schema IS NULL THEN
    RETURN false;
  END IF;
  -- Naming the operator class needs USAGE on its schema (an administrator may have installed
  -- pg_trgm into a schema this role cannot use).
  IF NOT has_schema_privilege(trgm_schema, 'USAGE') THEN
    RAISE NOTICE 'memcore: no USAGE on schema % (pg_trgm); search tests each row of the user', trgm_schema;
    RETURN false;
  END IF;
  -- fastupdate off: with GIN's pending list every search also scans the entries not yet merged
  -- (up to gin_pending_list_limit, 4 MB) until a VACUUM merges them, and the planner rightly
  -- prices that; memcore_search is written only when a text changes, so each write merges its
  -- own trigrams instead.
  EXECUTE format('CREATE INDEX IF NOT EXISTS memcore_search_trgm ON memcore_search USING gin (search_text %I.gin_trgm_ops) WITH (fastupdate = off)', trgm_schema);
  RETURN true;
END $$;
SELECT memcore_create_search_index();

-- memcore schema 4 for PostgreSQL: the search prefilter goes through a pg_trgm GIN index instead
-- of testing every row of the user (docs/storage.md, "Search").
--
-- CREATE EXTENSION needs the CREATE privilege on the database (pg_trgm is a trusted extension
-- since PostgreSQL 13; before that, superuser), which an application role often lacks. So the
-- index is made by memcore_create_search_index(): it tries to create the extension, and creates
-- the index only if pg_trgm's operator class exists (in whatever schema it was installed) and
-- this role may use that schema. When it cannot, the migration still succeeds and search reads
-- the user's index range and tests each row, as schema 3 did; the statements are the same either
-- way. After an administrator runs `CREATE EXTENSION pg_trgm` (and grants USAGE on its schema),
-- `SELECT memcore_create_search_index()` adds the index (true = it exists now).
CREATE INDEX IF NOT EXISTS memcore_entries_search_null ON memcore_entries (user_id) WHERE search_text IS NULL;
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
  -- fastupdate off: with GIN's pending list, every search also scans the entries not yet merged
  -- (up to gin_pending_list_limit, 4 MB) until a VACUUM merges them, and the planner rightly
  -- prices that; each write merges its own few trigrams instead.
  EXECUTE format('CREATE INDEX IF NOT EXISTS memcore_entries_search_trgm ON memcore_entries USING gin (search_text %I.gin_trgm_ops) WITH (fastupdate = off)', trgm_schema);
  RETURN true;
END $$;
SELECT memcore_create_search_index();

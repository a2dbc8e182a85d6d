-- memcore schema 12 for PostgreSQL: a history append as one function (docs/reference/storage.md,
-- "History"). A write with history calls it inside the write's own statement (one round trip):
-- `WITH h AS (INSERT INTO memcore_audit … SELECT * FROM memcore_append_history(…)) <the write>`.
-- The function inserts the versions (an id already stored is skipped), keeps each versioned
-- entry's newest `max_versions` (counted after the insert, as SQLite does), drops the owner's
-- versions and audit records from before `not_before` (an erasure's record stays), and answers
-- the audit records for the calling statement to insert, in order. Its statements' plans are
-- kept by the session (PL/pgSQL) where they do not depend on the values given: a write (one
-- version, one record) plans none of its statements again, unless something has expired; and the
-- newest versions are found from the entries just versioned, not from all of the owner's
-- versions (the schema 7 statement could be planned through every version of the user).
CREATE OR REPLACE FUNCTION memcore_append_history(versions jsonb, audit jsonb, owner text, max_versions bigint, not_before text)
RETURNS TABLE (record_at text, record_user_id text, record_operation text, record_body text)
LANGUAGE plpgsql AS $$
DECLARE
  versioned text[];
  past text[];
BEGIN
  IF jsonb_array_length(versions) = 1 THEN
    -- One version (every update and deletion; several come only from an import or a restore):
    -- statements with nothing to plan from the argument's length, so the session plans them
    -- once. The list's form below is planned again at every call (~0.15 ms a write).
    INSERT INTO memcore_entry_versions (id, user_id, entry_id, key, valid_until, body)
    VALUES (versions->0->>'id', versions->0->>'userId', versions->0->>'entryId', versions->0->>'key', versions->0->>'validUntil', versions->0->>'body')
    ON CONFLICT (id) DO NOTHING RETURNING ARRAY[entry_id] INTO versioned;
    IF versioned IS NOT NULL THEN
      DELETE FROM memcore_entry_versions d WHERE d.id = ANY (ARRAY(SELECT o.id FROM (
        SELECT n.id, n.user_id FROM memcore_entry_versions n WHERE n.entry_id = versioned[1]
        ORDER BY n.valid_until DESC, n.id DESC OFFSET max_versions) AS o WHERE o.user_id = owner));
    END IF;
  ELSE
    WITH added AS (
      INSERT INTO memcore_entry_versions (id, user_id, entry_id, key, valid_until, body)
      SELECT r->>'id', r->>'userId', r->>'entryId', r->>'key', r->>'validUntil', r->>'body'
      FROM jsonb_array_elements(versions) WITH ORDINALITY AS x(r, i) ORDER BY i
      ON CONFLICT (id) DO NOTHING RETURNING entry_id)
    SELECT array_agg(DISTINCT added.entry_id) INTO versioned FROM added;
    IF versioned IS NOT NULL THEN
      -- The owner's versions past the newest `max_versions` of each entry just versioned, found
      -- through memcore_entry_versions_entry, then deleted by their ids (the primary key): never
      -- through the owner's other versions.
      past := ARRAY(SELECT o.id FROM unnest(versioned) AS e(entry_id) CROSS JOIN LATERAL (
        SELECT n.id, n.user_id FROM memcore_entry_versions n WHERE n.entry_id = e.entry_id
        ORDER BY n.valid_until DESC, n.id DESC OFFSET max_versions) AS o WHERE o.user_id = owner);
      IF cardinality(past) > 0 THEN
        DELETE FROM memcore_entry_versions d WHERE d.id = ANY (past);
      END IF;
    END IF;
  END IF;
  -- The owner's expired versions and audit records, if the oldest of each is: a look at the
  -- first row of the owner in memcore_entry_versions_user_until and memcore_audit_user_at (a
  -- statement the session plans once), and a delete planned from the time given only when there
  -- is something to delete (the delete's plan depends on the time, so it is planned at each run).
  IF (SELECT min(d.valid_until) FROM memcore_entry_versions d WHERE d.user_id = owner) < not_before THEN
    DELETE FROM memcore_entry_versions d WHERE d.user_id = owner AND d.valid_until < not_before;
  END IF;
  IF (SELECT min(d.at) FROM memcore_audit d WHERE d.user_id = owner AND d.operation <> 'erase') < not_before THEN
    DELETE FROM memcore_audit d WHERE d.user_id = owner AND d.at < not_before AND d.operation <> 'erase';
  END IF;
  IF jsonb_array_length(audit) = 1 THEN
    RETURN QUERY SELECT audit->0->>'at', audit->0->>'userId', audit->0->>'operation', audit->0->>'body';
  ELSE
    RETURN QUERY SELECT r->>'at', r->>'userId', r->>'operation', r->>'body'
      FROM jsonb_array_elements(audit) WITH ORDINALITY AS x(r, i) ORDER BY i;
  END IF;
END $$;

// The SQL of the PostgreSQL adapter (and its dialect object of SqlStorage, `POSTGRES`): every
// value is a bound parameter ($1, $2, …), never text. Kept apart from the adapter so the tests can
// EXPLAIN exactly these statements.
import { ENTRY_COLUMNS, scopeEnd } from './entry-rows.js';
import { checkProfilePath } from './schema.js';

const COLUMNS = ENTRY_COLUMNS.join(', ');
const SELECT = `SELECT ${COLUMNS} FROM memcore_entries`;
const PARAMS = ENTRY_COLUMNS.map((c, i) => `$${i + 1}${c === 'value' || c === 'group_ids' ? '::jsonb' : ''}`).join(', ');
const VISIBLE = `(visibility = 'global'
  OR (visibility = 'self' AND source_agent_id = $2)
  OR (visibility = 'group' AND $3::text <> '' AND group_ids @> jsonb_build_array($3::text)))`;
// The SET items of a write that keeps the entry's vector only when its key and value stay
// (`key`, `value`: the new ones; `table`: the stored row).
const KEEP_VECTOR = (table, key, value) => `embedding = CASE WHEN ${table}.key = ${key} AND ${table}.value = ${value} THEN ${table}.embedding END,
    embedding_model = CASE WHEN ${table}.key = ${key} AND ${table}.value = ${value} THEN ${table}.embedding_model END`;
const RECENT = 'updated_sort DESC, id';
const ACCESSED = 'access_count DESC, updated_sort DESC, id';
const IDENTITY = `user_id = $1 AND key = $2 AND CASE WHEN $3::text = 'global' THEN visibility = 'global'
  ELSE visibility IN ('self', 'group') AND source_agent_id IS NOT DISTINCT FROM $4::text END`;

export const SQL = {
  schemaTable: 'CREATE TABLE IF NOT EXISTS memcore_schema (version integer PRIMARY KEY, applied_at text NOT NULL)',
  schemaVersion: 'SELECT coalesce(max(version), 0) AS version FROM memcore_schema',
  recordVersion: 'INSERT INTO memcore_schema (version, applied_at) VALUES ($1, $2)',
  // The search-text back-fill of schema 4 (schema.js `searchTextUpdates`), a page at a time.
  untextedPage: 'SELECT id, key, value FROM memcore_entries WHERE search_text IS NULL AND id > $1 ORDER BY id LIMIT 500',
  setSearchText: 'UPDATE memcore_entries SET search_text = $1 WHERE id = $2 AND search_text IS NULL',
  lock: 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))',
  list: `${SELECT} WHERE user_id = $1 ORDER BY id`,
  get: `${SELECT} WHERE id = $1`,
  // The `get`s of one tick in one read (storage.js): params: the ids.
  getEach: `${SELECT} WHERE id = ANY($1::text[])`,
  // The vector stays only when key and value do (every SET expression reads the row before it).
  upsert: `INSERT INTO memcore_entries (${COLUMNS}) VALUES (${PARAMS})
    ON CONFLICT (id) DO UPDATE SET ${ENTRY_COLUMNS.filter((c) => c !== 'id').map((c) => `${c} = excluded.${c}`).join(', ')},
    ${KEEP_VECTOR('memcore_entries', 'excluded.key', 'excluded.value')}`,
  insert: `INSERT INTO memcore_entries (${COLUMNS}) VALUES (${PARAMS})`,
  delete: 'DELETE FROM memcore_entries WHERE id = $1',
  deleteOwned: 'DELETE FROM memcore_entries WHERE user_id = $1 AND id = ANY($2::text[])',
  incrementAccess: 'UPDATE memcore_entries SET access_count = access_count + 1 WHERE id = ANY($1::text[])',
  // The per-user count the trigger of migration 2 keeps: one row, however many entries.
  countUser: 'SELECT coalesce((SELECT entries FROM memcore_user_counts WHERE user_id = $1), 0) AS n',
  findByKey: `${SELECT} WHERE user_id = $1 AND key = $2 ORDER BY id`,
  recallRecent: `${SELECT} WHERE user_id = $1 AND NOT reserved AND ${VISIBLE} ORDER BY ${RECENT} LIMIT $4`,
  // `= ANY (ARRAY(…))`, not `IN (…)`: the at most 2 × limit ids are then fetched by primary key
  // (an IN subquery was planned as a hash join over a sequential scan of the table).
  recallAccessed: `${SELECT} WHERE id = ANY (ARRAY(
    SELECT id FROM (SELECT id FROM memcore_entries WHERE user_id = $1 AND NOT reserved AND ${VISIBLE} ORDER BY ${ACCESSED} LIMIT $4) AS by_access
    UNION
    SELECT id FROM (SELECT id FROM memcore_entries WHERE user_id = $1 AND NOT reserved AND ${VISIBLE} ORDER BY ${RECENT} LIMIT $4) AS by_recency))
    ORDER BY ${ACCESSED}`,
  oldestOwn: `${SELECT} WHERE user_id = $1 AND source_agent_id = $2 AND NOT reserved ORDER BY updated_sort, id LIMIT $3`,
  identity: `SELECT id FROM memcore_entries WHERE ${IDENTITY} LIMIT 1`,
  updateInPlace: `UPDATE memcore_entries SET key = $2, value = $3::jsonb, category = $4, visibility = $5, source_agent_id = $6,
    group_ids = $7::jsonb, source_conversation_id = $8, conflicted = $9, updated_at = $10, updated_sort = $11, reserved = $12,
    search_text = $13, written_by = $14, ${KEEP_VECTOR('memcore_entries', '$2', '$3::jsonb')} WHERE id = $1`,
  // History (schema 7, docs/reference/storage.md "History"): an append skips an id already stored; an
  // entry keeps its newest versions (params: entryId, userId, entryId, max: the ones past the newest
  // `max`, found by walking the entry's index from its newest, as on SQLite); a user's expired
  // versions and audit records go (params: userId, notBefore; an erasure's record stays).
  appendVersion: 'INSERT INTO memcore_entry_versions (id, user_id, entry_id, key, valid_until, body) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING',
  keepNewestVersions: `DELETE FROM memcore_entry_versions WHERE entry_id = $1 AND user_id = $2 AND id IN
    (SELECT id FROM memcore_entry_versions WHERE entry_id = $3 ORDER BY valid_until DESC, id DESC OFFSET $4)`,
  dropExpiredVersions: 'DELETE FROM memcore_entry_versions WHERE user_id = $1 AND valid_until < $2',
  dropExpiredAudit: "DELETE FROM memcore_audit WHERE user_id = $1 AND at < $2 AND operation <> 'erase'",
  versionsOfUser: 'SELECT body FROM memcore_entry_versions WHERE user_id = $1',
  versionsOfEntry: 'SELECT body FROM memcore_entry_versions WHERE user_id = $1 AND entry_id = $2',
  versionsOfKey: 'SELECT body FROM memcore_entry_versions WHERE user_id = $1 AND key = $2',
  // Params: at, userId, operation, body.
  // API keys (schema 8): every tenant's in one table, '' the default tenant.
  putApiKey: 'INSERT INTO memcore_api_keys (id, hash, tenant_id, user_id, body) VALUES ($1, $2, $3, $4, $5)',
  getApiKey: 'SELECT id, hash, tenant_id, user_id, body, revoked_at FROM memcore_api_keys WHERE id = $1',
  listApiKeys: 'SELECT id, hash, tenant_id, user_id, body, revoked_at FROM memcore_api_keys WHERE tenant_id = $1 ORDER BY id',
  listApiKeysOfUser: 'SELECT id, hash, tenant_id, user_id, body, revoked_at FROM memcore_api_keys WHERE tenant_id = $1 AND user_id = $2 ORDER BY id',
  revokeApiKey: 'UPDATE memcore_api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL',
  appendAudit: 'INSERT INTO memcore_audit (at, user_id, operation, body) VALUES ($1, $2, $3, $4)',
  // Params: (userId, ) since, afterSeq, limit.
  auditOfUser: 'SELECT seq, body FROM memcore_audit WHERE user_id = $1 AND at >= $2 AND seq > $3 ORDER BY seq LIMIT $4',
  auditOfAll: 'SELECT seq, body FROM memcore_audit WHERE at >= $1 AND seq > $2 AND strpos(user_id, chr(31)) = 0 ORDER BY seq LIMIT $3',
  auditOfTenant: 'SELECT seq, body FROM memcore_audit WHERE user_id > $1 AND user_id < $2 AND at >= $3 AND seq > $4 ORDER BY seq LIMIT $5',
  // Entry ids (behaviour §8.3, "Entry ids"): who holds each id — its current entry's user, and the
  // users whose kept versions carry it.
  // One round trip.
  idHolders: `SELECT id, user_id, 1 AS current FROM memcore_entries WHERE id = ANY($1::text[])
    UNION SELECT entry_id, user_id, 0 FROM memcore_entry_versions WHERE entry_id = ANY($1::text[])`,
  // An erasure's renames (schema 9's expression indexes): versions ended by the erased user, and
  // audit records naming the erased user as actor, renamed to the pseudonym (the body is text:
  // jsonb_set's answer is stored as its text form).
  versionsByAuthor: "SELECT body FROM memcore_entry_versions WHERE (body::jsonb #>> '{author,id}') = $1 AND strpos(user_id, chr(31)) = 0",
  versionsByAuthorTenant: "SELECT body FROM memcore_entry_versions WHERE (body::jsonb #>> '{author,id}') = $1 AND user_id > $2 AND user_id < $3",
  renameActor: "UPDATE memcore_audit SET body = jsonb_set(body::jsonb, '{actor,id}', to_jsonb($1::text))::text WHERE (body::jsonb #>> '{actor,id}') = $2 AND strpos(user_id, chr(31)) = 0",
  renameActorTenant: "UPDATE memcore_audit SET body = jsonb_set(body::jsonb, '{actor,id}', to_jsonb($1::text))::text WHERE (body::jsonb #>> '{actor,id}') = $2 AND user_id > $3 AND user_id < $4",
  deleteVersion: 'DELETE FROM memcore_entry_versions WHERE id = $1',
  deleteApiKeysOfUser: 'DELETE FROM memcore_api_keys WHERE tenant_id = $1 AND user_id = $2',
  // Every stored user id of every tenant (`memcore doctor`): tenant rows keep their prefix.
  // The operators' list of users (sqlite-statements.js says how). Params: after, prefix,
  // defaultTenant (boolean), limit.
  userPage: `SELECT user_id FROM (
      SELECT user_id FROM memcore_user_counts WHERE entries > 0 AND user_id > $1 AND left(user_id, length($2)) = $2 AND (NOT $3 OR strpos(user_id, chr(31)) = 0)
      UNION
      SELECT DISTINCT user_id FROM memcore_episodes WHERE user_id > $1 AND left(user_id, length($2)) = $2 AND (NOT $3 OR strpos(user_id, chr(31)) = 0)) AS users
    ORDER BY user_id LIMIT $4`,
  // One user's counts, last activity and restriction flag. Params: the user id.
  userSummary: `SELECT coalesce((SELECT entries FROM memcore_user_counts WHERE user_id = $1), 0) AS entries,
      (SELECT count(*) FROM memcore_episodes WHERE user_id = $1) AS episodes,
      (SELECT updated_at FROM memcore_entries WHERE user_id = $1 ORDER BY updated_sort DESC LIMIT 1) AS last_entry,
      (SELECT max(at) FROM memcore_episodes WHERE user_id = $1) AS last_episode,
      (SELECT count(*) FROM memcore_entries WHERE user_id = $1 AND key = '_gdpr_processing_restricted' AND visibility = 'global') AS restricted`,
  storedUserIds: `SELECT user_id FROM memcore_entries UNION SELECT user_id FROM memcore_entry_versions
    UNION SELECT user_id FROM memcore_audit WHERE operation <> 'erase'
    UNION SELECT CASE WHEN tenant_id = '' THEN user_id ELSE tenant_id || chr(31) || user_id END FROM memcore_api_keys`,
  eraseVersions: 'DELETE FROM memcore_entry_versions WHERE user_id = $1',
  eraseAudit: 'DELETE FROM memcore_audit WHERE user_id = $1',
  historySize: 'SELECT (SELECT count(*) FROM memcore_entry_versions WHERE user_id = $1) AS versions, (SELECT count(*) FROM memcore_audit WHERE user_id = $2) AS audit',
  putEpisode: 'INSERT INTO memcore_episodes (id, user_id, conversation_id, at, body) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING',
  // Every episode of one `putEpisodes` in one statement (one round trip, not a transaction of
  // one round trip each): a JSON array inserted in order; the ids it answers are the new ones.
  putEpisodes: `INSERT INTO memcore_episodes (id, user_id, conversation_id, at, body)
    SELECT r->>'id', r->>'userId', r->>'conversationId', r->>'at', r->>'body'
    FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS x(r, i) ORDER BY i
    ON CONFLICT (id) DO NOTHING RETURNING id`,
  episodesOfUser: 'SELECT body FROM memcore_episodes WHERE user_id = $1 AND at >= $2 ORDER BY at, id',
  episodesOfConversation: 'SELECT body FROM memcore_episodes WHERE user_id = $1 AND conversation_id = $2 AND at >= $3 ORDER BY at, id',
  deleteEpisodesBefore: 'DELETE FROM memcore_episodes WHERE user_id = $1 AND at < $2',
  deleteEpisodesOfUser: 'DELETE FROM memcore_episodes WHERE user_id = $1',
  // Vectors (docs/reference/storage.md, "Vectors"): the user's vectors of one model (read through
  // an index on user_id, like `list`); a vector written only while the entry still has the
  // key and value (jsonb equality) it was embedded from; the entries still to embed.
  vectors: 'SELECT id, embedding FROM memcore_entries WHERE user_id = $1 AND embedding_model = $2 AND embedding IS NOT NULL',
  // The user's search revision (schema 6, docs/reference/storage.md "Search mirror"); no row: 0.
  searchRevision: 'SELECT revision FROM memcore_user_revisions WHERE user_id = $1',
  putVector: 'UPDATE memcore_entries SET embedding = $1, embedding_model = $2 WHERE id = $3 AND key = $4 AND value = $5::jsonb',
  unembeddedUser: `${SELECT} WHERE user_id = $1 AND id > $2 AND (embedding IS NULL OR embedding_model IS DISTINCT FROM $3) ORDER BY id LIMIT $4`,
  unembeddedAll: `${SELECT} WHERE id > $1 AND strpos(id, chr(31)) = 0 AND (embedding IS NULL OR embedding_model IS DISTINCT FROM $2) ORDER BY id LIMIT $3`,
  unembeddedTenant: `${SELECT} WHERE id > $1 AND id < $2 AND (embedding IS NULL OR embedding_model IS DISTINCT FROM $3) ORDER BY id LIMIT $4`,
  profileRead: 'SELECT text, version FROM memcore_profiles WHERE path = $1',
  profileVersion: 'SELECT version FROM memcore_profiles WHERE path = $1',
  // Versions come from one sequence, so a path deleted and created again never reuses a version a
  // writer may still hold. Each conditional write is one statement: a turn's read + write is 2
  // round trips; only a conflict costs a third (to report `actual`).
  profileCas: `UPDATE memcore_profiles SET text = $1, updated_at = $2, version = nextval('memcore_profile_version')
    WHERE path = $3 AND version = $4 RETURNING version`,
  profileCreate: `INSERT INTO memcore_profiles (path, text, version, updated_at) VALUES ($1, $2, nextval('memcore_profile_version'), $3)
    ON CONFLICT (path) DO NOTHING RETURNING version`,
  profilePut: `INSERT INTO memcore_profiles (path, text, version, updated_at) VALUES ($1, $2, nextval('memcore_profile_version'), $3)
    ON CONFLICT (path) DO UPDATE SET text = excluded.text, version = excluded.version, updated_at = excluded.updated_at RETURNING version`,
  profileRemove: 'DELETE FROM memcore_profiles WHERE path = $1',
};

// The search prefilter (docs/reference/storage.md, "Search"). Every statement also returns the user's rows
// whose search_text is NULL (the partial index memcore_entries_search_null), because any query may
// match them; the core re-applies its own matching to all that comes back.
const SEARCH_NULL = `${SELECT} WHERE user_id = $1 AND search_text IS NULL`;

/** Rows per statement of `insertAll` (16 parameters a row; PostgreSQL allows 65,535). */
export const INSERT_ROWS = 500;

/** `INSERT INTO memcore_entries … VALUES (…), (…)` for `rows` rows, parameters numbered in `ENTRY_COLUMNS` order. */
export function insertRowsStatement(rows) {
  const row = (r) => `(${ENTRY_COLUMNS.map((c, i) => `$${r * ENTRY_COLUMNS.length + i + 1}${c === 'value' || c === 'group_ids' ? '::jsonb' : ''}`).join(', ')})`;
  return `INSERT INTO memcore_entries (${COLUMNS}) VALUES ${Array.from({ length: rows }, (_, r) => row(r)).join(', ')}`;
}

/**
 * A `LIKE` pattern that matches `text` as a substring, literally: `\` (LIKE's default escape),
 * `%` and `_` are escaped. Bound as a parameter.
 */
export function containsPattern(text) {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The search prefilter of the core's `plan` (`searchPrefilter(query)`, with at least one test)
 * as `[sql, params]`: a superset of the user's entries the core matches, never another user's
 * rows. With a long test the user's rows of memcore_search are tested — long tests as `LIKE`
 * patterns, which the pg_trgm GIN index memcore_search_trgm answers where migration 4 could
 * create it (otherwise the user's rows of memcore_search are read and each tested), short tests
 * with `strpos` — and the entries fetched by primary key. A test's patterns are or'ed. With no
 * long test each of the user's entries is tested.
 */
export function searchStatement(userId, plan) {
  const { long, short } = plan;
  const params = [userId];
  const bind = (value) => `$${params.push(value)}`;
  const either = (t, test) => (t.anyOf.length > 1 ? `(${t.anyOf.map(test).join(' OR ')})` : test(t.anyOf[0]));
  const like = (column) => (text) => `${column} LIKE ${bind(containsPattern(text))}`;
  const strpos = (column) => (text) => `strpos(${column}, ${bind(text)}) > 0`;
  if (long.length === 0) {
    return [`${SELECT} WHERE user_id = $1 AND (search_text IS NULL OR (${short.map((t) => either(t, strpos('search_text'))).join(' AND ')})) ORDER BY id`, params];
  }
  const tests = [...long.map((t) => either(t, like('s.search_text'))), ...short.map((t) => either(t, strpos('s.search_text')))];
  // `(e.user_id = $1) IS TRUE` re-checks the entry's own user as a filter, not an index condition:
  // as one, the planner may read the user's whole index range of memcore_entries to hash-join it.
  return [`SELECT ${ENTRY_COLUMNS.map((c) => `e.${c}`).join(', ')} FROM memcore_search s JOIN memcore_entries e ON e.id = s.entry_id
    WHERE s.user_id = $1 AND ${tests.join(' AND ')} AND (e.user_id = $1) IS TRUE
    UNION ALL ${SEARCH_NULL} ORDER BY id`, params];
}

/**
 * An append to a user's history as one statement (one round trip): `memcore_append_history`
 * (schema 12) inserts the versions (a JSON array, in order), keeps each versioned entry's newest
 * `max` and drops the user's expired versions and audit records, then answers the audit records
 * (a JSON array) for this statement to insert in order — then `tail`, the statement's main part,
 * with `params` as its first parameters (`$1`…): the entry's upsert for `writeWithHistory`,
 * nothing for `appendHistory`. A data-modifying `WITH` always runs, whatever `tail` does; atomic
 * as any statement.
 */
export function historyStatement({ versions, audit, userId, max, notBefore }, tail = 'SELECT 1', params = []) {
  const n = params.length;
  const [v, a, u, m, nb] = [n + 1, n + 2, n + 3, n + 4, n + 5].map((i) => `$${i}`);
  const sql = `WITH h AS (INSERT INTO memcore_audit (at, user_id, operation, body)
    SELECT * FROM memcore_append_history(${v}::jsonb, ${a}::jsonb, ${u}, ${m}::bigint, ${nb}))
  ${tail}`;
  const rows = (list, keys) => JSON.stringify(list.map((r) => Object.fromEntries(keys.map((k) => [k, r[k]]))));
  return [sql, [...params, rows(versions, ['id', 'userId', 'entryId', 'key', 'validUntil', 'body']), rows(audit, ['at', 'userId', 'operation', 'body']), userId, max, notBefore]];
}

/** `?` placeholders as `$1`, `$2`, … (the statements built here hold no other `?`). */
function numbered(sql) {
  let n = 0;
  return sql.replace(/\?/g, () => `$${(n += 1)}`);
}

/**
 * The PostgreSQL dialect of SqlStorage (storage.js): text and jsonb cannot hold U+0000, and jsonb
 * rejects lone surrogates: refused.
 */
export const POSTGRES = {
  SQL,
  // entryPage as SQLite's, placeholders numbered.
  entryPage: (where) => [
    numbered(`${SELECT} WHERE user_id = ? AND NOT reserved${where} ORDER BY ${RECENT} LIMIT ? OFFSET ?`),
    numbered(`SELECT count(*) AS n FROM memcore_entries WHERE user_id = ? AND NOT reserved${where}`),
  ],
  userPageParams: (after, prefix, plain, limit) => [after, prefix, plain, limit],
  userSummaryParams: (userId) => [userId],
  limits: { nul: false, valueSurrogates: false },
  bool: (b) => b,
  jsonParsed: true,
  idList: (ids) => ids,
  idHoldersParams: (list) => [list],
  searchStatement,
  recallParams: (order, userId, agentId, groupId, limit) => [userId, agentId, groupId, limit],
  // A path with a lone surrogate is E_ARGUMENT here (SQLite answers nothing).
  checkPath: (path, fn) => checkProfilePath(path, fn, { nul: true }),
  rowsPerInsert: INSERT_ROWS,
  insertRows: insertRowsStatement,
  // History in one statement each (one round trip instead of a transaction of five or more).
  appendHistoryStatement: (scoped) => historyStatement(scoped),
  writeWithHistoryStatement: (params, scoped) => historyStatement(scoped, SQL.upsert, params),
  deleteWithHistoryStatement: (params, scoped) => historyStatement(scoped, SQL.delete, params),
  // jsonb compares values as JSON (object key order does not matter).
  jsonEquality: 'json',
  /**
   * The statement of `vectors`: every vector of the user and model, scored by the core. The slot
   * a pgvector dialect would fill with a nearest-first query instead (docs/reference/storage.md, "Vectors").
   */
  vectorsStatement: (userId, model) => [SQL.vectors, [userId, model]],
  putVectorStatement: (id, key, json, model, vector) => [SQL.putVector, [vector, model, id, key, json]],
  /** `putEpisodes` as one statement: `rows`, each `putEpisode`'s parameters, as one JSON array. */
  putEpisodesStatement: (rows) => [SQL.putEpisodes, [JSON.stringify(rows.map(([id, userId, conversationId, at, body]) => ({ id, userId, conversationId, at, body })))]],
  unembeddedStatement: ({ model, userId, after, limit, scope }) => {
    if (userId !== null) return [SQL.unembeddedUser, [userId, after ?? scope ?? '', model, limit]];
    if (scope === null) return [SQL.unembeddedAll, [after ?? '', model, limit]];
    return [SQL.unembeddedTenant, [after ?? scope, scopeEnd(scope), model, limit]];
  },
  /**
   * One transaction under `pg_advisory_xact_lock` on the user: two agents writing at the cap at
   * once serialise here, so the count never exceeds `maxEntries`.
   */
  // `history` (the checked append of `insertWithHistory`, or absent): carried by the write
  // statement itself (`historyStatement`), run only once the write is decided — no round trip of
  // its own (`appends`).
  capInsert: (entry, maxEntries, evict, row, history = null) => ({
    *body(q) {
      const write = (sql, params) => (history === null ? [sql, params] : historyStatement(history, sql, params));
      yield q.first(SQL.lock, [`memcore:user:${entry.userId}`]);
      if (evict.length > 0) yield q.run(SQL.deleteOwned, [entry.userId, evict]);
      const existing = yield q.first(SQL.identity, [entry.userId, entry.key, entry.visibility, entry.sourceAgentId ?? null]);
      const count = Number((yield q.first(SQL.countUser, [entry.userId])).n);
      if (existing) {
        yield q.run(...write(SQL.updateInPlace, [existing.id, row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9], row[12], row[13], row[14], row[15], row[16]]));
        return { written: true, count };
      }
      if (count >= maxEntries) return { rollback: true, result: { written: false, count } };
      yield q.run(...write(SQL.insert, row));
      return { written: true, count: count + 1 };
    },
    appends: history !== null,
  }),
};

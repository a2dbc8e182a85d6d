// The SQL of the SQLite dialect (and its dialect object of SqlStorage, `SQLITE`), shared by the
// better-sqlite3 adapter and the D1 adapter (D1 is SQLite): every statement binds its values as `?` parameters, never as text. Id lists travel as
// one JSON array parameter (`json_each(?)`), so each operation stays one statement.
import { checkStoragePath } from '../storage-arguments.js';
import { ENTRY_COLUMNS, scopeEnd } from './entry-rows.js';
import { hexBytes, vectorBytes } from './vector-rows.js';

const COLUMNS = ENTRY_COLUMNS.join(', ');
// The user's non-reserved entries (params: userId), and that minus the user's non-reserved rows
// among the evict ids (params: userId, evict JSON, userId): primary-key lookups only.
const COUNT = 'coalesce((SELECT entries FROM memcore_user_counts WHERE user_id = ?), 0)';
// `+user_id`, `+reserved`: no index on those terms, so the primary key over the few evict ids
// drives the lookup (the planner otherwise scanned the user's index range with a bloom filter).
const COUNT_WITHOUT_EVICTED = `(${COUNT} - (SELECT count(*) FROM memcore_entries WHERE id IN (SELECT value FROM json_each(?)) AND +user_id = ? AND +reserved = 0))`;
const SELECT = `SELECT ${COLUMNS} FROM memcore_entries`;
// The SET items of a write that keeps the entry's vector only when its key and value stay
// (`key`, `value`: the new ones); params of `?` placeholders: key, value, key, value.
const KEEP_VECTOR = (key, value) => `embedding = CASE WHEN key = ${key} AND value = ${value} THEN embedding END,
    embedding_model = CASE WHEN key = ${key} AND value = ${value} THEN embedding_model END`;

// The visibility predicate of behaviour §2.4 (the core re-applies it): params agentId, groupId, groupId.
const VISIBLE = `(visibility = 'global'
  OR (visibility = 'self' AND source_agent_id = ?)
  OR (visibility = 'group' AND ? <> '' AND EXISTS (SELECT 1 FROM json_each(group_ids) WHERE json_each.value = ?)))`;

const RECENT = 'updated_sort DESC, id';
const ACCESSED = 'access_count DESC, updated_sort DESC, id';

export const SQL = {
  schemaTable: 'CREATE TABLE IF NOT EXISTS memcore_schema (version INTEGER PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL)',
  schemaVersion: 'SELECT coalesce(max(version), 0) AS version FROM memcore_schema',
  recordVersion: 'INSERT INTO memcore_schema (version, applied_at) VALUES (?, ?)',
  // The search-text back-fill of schema 4 (schema.js `searchTextUpdates`), a page at a time.
  untextedPage: 'SELECT id, key, value FROM memcore_entries WHERE search_text IS NULL AND id > ? ORDER BY id LIMIT 500',
  setSearchText: 'UPDATE memcore_entries SET search_text = ? WHERE id = ? AND search_text IS NULL',

  list: `${SELECT} WHERE user_id = ? ORDER BY id`,
  get: `${SELECT} WHERE id = ?`,
  // The `get`s of one tick in one read (storage.js, D1): params: the ids as one JSON array.
  getEach: `${SELECT} WHERE id IN (SELECT value FROM json_each(?))`,
  // One statement; an identity collision with another id fails on a partial unique index.
  // The vector stays only when key and value do (every SET expression reads the row before it).
  upsert: `INSERT INTO memcore_entries (${COLUMNS}) VALUES (${ENTRY_COLUMNS.map(() => '?').join(', ')})
    ON CONFLICT (id) DO UPDATE SET ${ENTRY_COLUMNS.filter((c) => c !== 'id').map((c) => `${c} = excluded.${c}`).join(', ')},
    ${KEEP_VECTOR('excluded.key', 'excluded.value')}`,
  // insertAll: a plain insert, so an id already stored fails the whole transaction.
  insert: `INSERT INTO memcore_entries (${COLUMNS}) VALUES (${ENTRY_COLUMNS.map(() => '?').join(', ')})`,
  delete: 'DELETE FROM memcore_entries WHERE id = ?',
  incrementAccess: 'UPDATE memcore_entries SET access_count = access_count + 1 WHERE id IN (SELECT value FROM json_each(?))',
  // The per-user count the triggers of migration 2 keep: one row, however many entries.
  countUser: `SELECT ${COUNT} AS n`,
  findByKey: `${SELECT} WHERE user_id = ? AND key = ? ORDER BY id`,
  // Params: userId, agentId, groupId, groupId, limit.
  recallRecent: `${SELECT} WHERE user_id = ? AND reserved = 0 AND ${VISIBLE} ORDER BY ${RECENT} LIMIT ?`,
  // Params: (userId, agentId, groupId, groupId, limit) twice: the union of the top `limit` by
  // access count and the top `limit` by recency.
  recallAccessed: `${SELECT} WHERE id IN (
    SELECT id FROM (SELECT id FROM memcore_entries WHERE user_id = ? AND reserved = 0 AND ${VISIBLE} ORDER BY ${ACCESSED} LIMIT ?)
    UNION
    SELECT id FROM (SELECT id FROM memcore_entries WHERE user_id = ? AND reserved = 0 AND ${VISIBLE} ORDER BY ${RECENT} LIMIT ?))
    ORDER BY ${ACCESSED}`,
  // Params: userId, agentId, limit.
  oldestOwn: `${SELECT} WHERE user_id = ? AND source_agent_id = ? AND reserved = 0 ORDER BY updated_sort, id LIMIT ?`,

  // insertWithinCap as four statements in one transaction (D1: one batch), each re-deciding from
  // the table so no value has to travel between them. `IDENTITY` params: userId, key, visibility,
  // sourceAgentId — the row the new entry's identity names (behaviour §2.4).
  capUpdate: `UPDATE memcore_entries SET key = ?, value = ?, category = ?, visibility = ?, source_agent_id = ?, group_ids = ?,
      source_conversation_id = ?, conflicted = ?, updated_at = ?, updated_sort = ?, reserved = ?, search_text = ?, written_by = ?,
      ${KEEP_VECTOR('?', '?')}
    WHERE id = (SELECT id FROM memcore_entries WHERE IDENTITY AND id NOT IN (SELECT value FROM json_each(?)))`,
  // Params: userId, evict JSON; then the write condition (identity params, evict JSON, userId, evict JSON, maxEntries).
  capEvict: `DELETE FROM memcore_entries WHERE +user_id = ? AND id IN (SELECT value FROM json_each(?)) AND WRITE_CONDITION`,
  // Params: the new row, then identity params, userId, maxEntries.
  capInsert: `INSERT INTO memcore_entries (${COLUMNS}) SELECT ${ENTRY_COLUMNS.map(() => '?').join(', ')}
    WHERE NOT EXISTS (SELECT 1 FROM memcore_entries WHERE IDENTITY)
      AND ${COUNT} < ?`,
  // Params: userId, evict JSON, userId: the count without the evicted rows (exact whether or not
  // the batch deleted them).
  capCount: `SELECT ${COUNT_WITHOUT_EVICTED} AS n`,

  // Vectors (docs/reference/storage.md, "Vectors"): the user's vectors of one model (read through
  // an index on user_id, like `list`); a vector written only while the entry still has the
  // key and value (its stored JSON text) it was embedded from; the entries still to embed.
  // (`typeof(embedding) = 'blob'`: SQLite would also hold text written there by hand.)
  vectors: `SELECT id, embedding FROM memcore_entries WHERE user_id = ? AND embedding_model = ? AND typeof(embedding) = 'blob'`,
  // The user's search revision (schema 6, docs/reference/storage.md "Search mirror"); no row: 0.
  searchRevision: 'SELECT revision FROM memcore_user_revisions WHERE user_id = ?',
  // better-sqlite3 on a UTF-8 database: the same rows as one row (ids and lengths as JSON, the
  // bytes concatenated: group_concat copies a BLOB's bytes as they are in a UTF-8 database), so
  // no JS object or Buffer is made per vector.
  vectorsPacked: `SELECT json_group_array(id) AS ids, json_group_array(length(embedding)) AS lengths, CAST(group_concat(embedding, '') AS BLOB) AS bytes
    FROM memcore_entries WHERE user_id = ? AND embedding_model = ? AND typeof(embedding) = 'blob'`,
  // D1 answers a BLOB as an array of numbers: its hex text is read six times faster.
  vectorsHex: `SELECT id, hex(embedding) AS embedding_hex FROM memcore_entries WHERE user_id = ? AND embedding_model = ? AND typeof(embedding) = 'blob'`,
  putVector: 'UPDATE memcore_entries SET embedding = ?, embedding_model = ? WHERE id = ? AND key = ? AND value = ?',
  storedValues: 'SELECT id, key, value FROM memcore_entries WHERE id IN (SELECT value FROM json_each(?))',
  unembeddedUser: `${SELECT} WHERE user_id = ? AND id > ? AND (embedding IS NULL OR embedding_model IS NOT ?) ORDER BY id LIMIT ?`,
  // Every user's, in the default tenant: no id with the tenant separator (U+001F, storage.js).
  unembeddedAll: `${SELECT} WHERE id > ? AND instr(id, char(31)) = 0 AND (embedding IS NULL OR embedding_model IS NOT ?) ORDER BY id LIMIT ?`,
  // Every user's in one tenant: the ids between its prefix and the prefix's upper bound.
  unembeddedTenant: `${SELECT} WHERE id > ? AND id < ? AND (embedding IS NULL OR embedding_model IS NOT ?) ORDER BY id LIMIT ?`,

  // History (schema 7, docs/reference/storage.md "History"): an append skips an id already stored; an
  // entry keeps its newest versions (params: entryId, userId, entryId, max: the ones past the newest
  // `max`, found by walking the entry's index from its newest — 27 µs where `NOT IN` the newest
  // took 80, measured at the cap of 10 — and deleted by primary key: the unary `+` keeps SQLite's
  // planner off the user's index, through which it read every version of the user, 674 µs a trim
  // for a user with 30,000 versions; tests/js/history-writes.test.mjs checks the plan); a user's expired
  // versions and audit records go (params: userId, notBefore; an erasure's record stays).
  appendVersion: 'INSERT INTO memcore_entry_versions (id, user_id, entry_id, key, valid_until, body) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
  keepNewestVersions: `DELETE FROM memcore_entry_versions WHERE +entry_id = ? AND +user_id = ? AND id IN
    (SELECT id FROM memcore_entry_versions WHERE entry_id = ? ORDER BY valid_until DESC, id DESC LIMIT -1 OFFSET ?)`,
  dropExpiredVersions: 'DELETE FROM memcore_entry_versions WHERE user_id = ? AND valid_until < ?',
  dropExpiredAudit: "DELETE FROM memcore_audit WHERE user_id = ? AND at < ? AND operation <> 'erase'",
  // The history journal (schema 13, SQLite files only: history-store.js): an append journaled
  // (answers its `n`, the count of appends not yet folded — the journal is emptied by each fold,
  // so numbering restarts), the journal read in order, and emptied up to the last folded.
  journalAppend: 'INSERT INTO memcore_history_journal (user_id, scope, max_versions, not_before, versions, audit) VALUES (?, ?, ?, ?, ?, ?) RETURNING n',
  journalPending: 'SELECT EXISTS (SELECT 1 FROM memcore_history_journal) AS pending',
  journalRows: 'SELECT n, user_id, scope, max_versions, not_before, versions, audit FROM memcore_history_journal ORDER BY n',
  journalClear: 'DELETE FROM memcore_history_journal WHERE n <= ?',
  versionsOfUser: 'SELECT body FROM memcore_entry_versions WHERE user_id = ?',
  versionsOfEntry: 'SELECT body FROM memcore_entry_versions WHERE user_id = ? AND entry_id = ?',
  versionsOfKey: 'SELECT body FROM memcore_entry_versions WHERE user_id = ? AND key = ?',
  // Params: at, userId, operation, body.
  // API keys (schema 8): every tenant's in one table, '' the default tenant.
  putApiKey: 'INSERT INTO memcore_api_keys (id, hash, tenant_id, user_id, body) VALUES (?, ?, ?, ?, ?)',
  getApiKey: 'SELECT id, hash, tenant_id, user_id, body, revoked_at FROM memcore_api_keys WHERE id = ?',
  listApiKeys: 'SELECT id, hash, tenant_id, user_id, body, revoked_at FROM memcore_api_keys WHERE tenant_id = ? ORDER BY id',
  listApiKeysOfUser: 'SELECT id, hash, tenant_id, user_id, body, revoked_at FROM memcore_api_keys WHERE tenant_id = ? AND user_id = ? ORDER BY id',
  revokeApiKey: 'UPDATE memcore_api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
  appendAudit: 'INSERT INTO memcore_audit (at, user_id, operation, body) VALUES (?, ?, ?, ?)',
  // Params: (userId, ) since, afterSeq, limit.
  auditOfUser: 'SELECT seq, body FROM memcore_audit WHERE user_id = ? AND at >= ? AND seq > ? ORDER BY seq LIMIT ?',
  auditOfAll: 'SELECT seq, body FROM memcore_audit WHERE at >= ? AND seq > ? AND instr(user_id, char(31)) = 0 ORDER BY seq LIMIT ?',
  // Params: the tenant's prefix and its upper bound, since, afterSeq, limit.
  auditOfTenant: 'SELECT seq, body FROM memcore_audit WHERE user_id > ? AND user_id < ? AND at >= ? AND seq > ? ORDER BY seq LIMIT ?',
  // Entry ids (behaviour §8.3, "Entry ids"): who holds each id — its current entry's user, and the
  // users whose kept versions carry it (the primary key and memcore_entry_versions_entry).
  // One round trip; params: the id list twice.
  idHolders: `SELECT id, user_id, 1 AS current FROM memcore_entries WHERE id IN (SELECT value FROM json_each(?))
    UNION SELECT entry_id, user_id, 0 FROM memcore_entry_versions WHERE entry_id IN (SELECT value FROM json_each(?))`,
  // The same, and the versions still in the history journal (schema 13; at most 64 appends, read
  // whole): a write's check of its new id reads it instead of folding. Params: the id list thrice.
  idHoldersJournal: `SELECT id, user_id, 1 AS current FROM memcore_entries WHERE id IN (SELECT value FROM json_each(?))
    UNION SELECT entry_id, user_id, 0 FROM memcore_entry_versions WHERE entry_id IN (SELECT value FROM json_each(?))
    UNION SELECT j.scope || (v.value ->> '$.entryId'), j.user_id, 0 FROM memcore_history_journal AS j, json_each(j.versions) AS v
      WHERE j.scope || (v.value ->> '$.entryId') IN (SELECT value FROM json_each(?))`,
  // An erasure's renames (schema 9's expression indexes): the versions any user of the default
  // tenant / of one tenant (its prefix and upper bound) had ended by the erased user, and the audit
  // records naming the erased user as actor, renamed to the pseudonym in place (json_set keeps
  // the rest of the text as it was).
  versionsByAuthor: "SELECT body FROM memcore_entry_versions WHERE json_extract(body, '$.author.id') = ? AND instr(user_id, char(31)) = 0",
  versionsByAuthorTenant: "SELECT body FROM memcore_entry_versions WHERE json_extract(body, '$.author.id') = ? AND user_id > ? AND user_id < ?",
  renameActor: "UPDATE memcore_audit SET body = json_set(body, '$.actor.id', ?) WHERE json_extract(body, '$.actor.id') = ? AND instr(user_id, char(31)) = 0",
  renameActorTenant: "UPDATE memcore_audit SET body = json_set(body, '$.actor.id', ?) WHERE json_extract(body, '$.actor.id') = ? AND user_id > ? AND user_id < ?",
  deleteVersion: 'DELETE FROM memcore_entry_versions WHERE id = ?',
  deleteApiKeysOfUser: 'DELETE FROM memcore_api_keys WHERE tenant_id = ? AND user_id = ?',
  // Every stored user id of every tenant (`memcore doctor`): tenant rows keep their prefix.
  // The operators' list of users (userPage): ids with entries (the per-user counts) or episodes,
  // from after `after`, starting with the prefix (the tenant's scope and the searched prefix), the
  // default tenant's without a separator. Params: after, prefix, prefix, defaultTenant (0/1),
  // after, prefix, prefix, defaultTenant, limit.
  userPage: `SELECT user_id FROM (
      SELECT user_id FROM memcore_user_counts WHERE entries > 0 AND user_id > ? AND substr(user_id, 1, length(?)) = ? AND (? = 0 OR instr(user_id, char(31)) = 0)
      UNION
      SELECT DISTINCT user_id FROM memcore_episodes WHERE user_id > ? AND substr(user_id, 1, length(?)) = ? AND (? = 0 OR instr(user_id, char(31)) = 0))
    ORDER BY user_id LIMIT ?`,
  // One user's counts, last activity and restriction flag. Params: the user id five times.
  userSummary: `SELECT coalesce((SELECT entries FROM memcore_user_counts WHERE user_id = ?), 0) AS entries,
      (SELECT count(*) FROM memcore_episodes WHERE user_id = ?) AS episodes,
      (SELECT updated_at FROM memcore_entries WHERE user_id = ? ORDER BY updated_sort DESC LIMIT 1) AS last_entry,
      (SELECT max(at) FROM memcore_episodes WHERE user_id = ?) AS last_episode,
      (SELECT count(*) FROM memcore_entries WHERE user_id = ? AND key = '_gdpr_processing_restricted' AND visibility = 'global') AS restricted`,
  storedUserIds: `SELECT user_id FROM memcore_entries UNION SELECT user_id FROM memcore_entry_versions
    UNION SELECT user_id FROM memcore_audit WHERE operation <> 'erase'
    UNION SELECT CASE WHEN tenant_id = '' THEN user_id ELSE tenant_id || char(31) || user_id END FROM memcore_api_keys`,
  // The same with the users of the history journal (a file at schema 13, opened read-only: it
  // cannot fold the journal first).
  journalUserIds: 'SELECT user_id FROM memcore_history_journal',
  eraseVersions: 'DELETE FROM memcore_entry_versions WHERE user_id = ?',
  eraseAudit: 'DELETE FROM memcore_audit WHERE user_id = ?',
  historySize: 'SELECT (SELECT count(*) FROM memcore_entry_versions WHERE user_id = ?) AS versions, (SELECT count(*) FROM memcore_audit WHERE user_id = ?) AS audit',
  putEpisode: 'INSERT OR IGNORE INTO memcore_episodes (id, user_id, conversation_id, at, body) VALUES (?, ?, ?, ?, ?)',
  episodesOfUser: 'SELECT body FROM memcore_episodes WHERE user_id = ? AND at >= ? ORDER BY at, id',
  episodesOfConversation: 'SELECT body FROM memcore_episodes WHERE user_id = ? AND conversation_id = ? AND at >= ? ORDER BY at, id',
  deleteEpisodesBefore: 'DELETE FROM memcore_episodes WHERE user_id = ? AND at < ?',
  deleteEpisodesOfUser: 'DELETE FROM memcore_episodes WHERE user_id = ?',

  profileRead: 'SELECT text, version FROM memcore_profiles WHERE path = ?',
  profileVersion: 'SELECT version FROM memcore_profiles WHERE path = ?',
  bumpVersion: "UPDATE memcore_counters SET value = value + 1 WHERE name = 'profile_version'",
  // Versions come from one counter for the whole table, so a path deleted and created again never
  // reuses a version a writer may still hold (the ABA a per-path counter would allow).
  profileCas: `UPDATE memcore_profiles SET text = ?, updated_at = ?, version = (SELECT value FROM memcore_counters WHERE name = 'profile_version')
    WHERE path = ? AND version = ? RETURNING version`,
  profileCreate: `INSERT INTO memcore_profiles (path, text, version, updated_at)
    VALUES (?, ?, (SELECT value FROM memcore_counters WHERE name = 'profile_version'), ?) ON CONFLICT (path) DO NOTHING RETURNING version`,
  profilePut: `INSERT INTO memcore_profiles (path, text, version, updated_at)
    VALUES (?, ?, (SELECT value FROM memcore_counters WHERE name = 'profile_version'), ?)
    ON CONFLICT (path) DO UPDATE SET text = excluded.text, version = excluded.version, updated_at = excluded.updated_at RETURNING version`,
  profileRemove: 'DELETE FROM memcore_profiles WHERE path = ?',
  // The import's profile inside D1's batch: a plain insert, so an existing profile fails it all.
  profileInsert: `INSERT INTO memcore_profiles (path, text, version, updated_at)
    VALUES (?, ?, (SELECT value FROM memcore_counters WHERE name = 'profile_version'), ?)`,
};

const IDENTITY = `user_id = ? AND key = ? AND CASE WHEN ? = 'global' THEN visibility = 'global'
  ELSE visibility IN ('self', 'group') AND source_agent_id IS ? END`;
const WRITE_CONDITION = `(EXISTS (SELECT 1 FROM memcore_entries WHERE ${IDENTITY} AND id NOT IN (SELECT value FROM json_each(?)))
  OR ${COUNT_WITHOUT_EVICTED} < ?)`;
for (const name of ['capUpdate', 'capEvict', 'capInsert']) {
  SQL[name] = SQL[name].replace('WRITE_CONDITION', WRITE_CONDITION).replaceAll('IDENTITY', IDENTITY);
}
/** The identity lookup inside the cap statements, on its own (for EXPLAIN). */
SQL.identity = `SELECT id FROM memcore_entries WHERE ${IDENTITY}`;

// The search prefilter (docs/reference/storage.md, "Search"). Every statement also returns the user's rows
// whose search_text is NULL (through the partial index memcore_entries_search_null), because any
// query may match them; the core re-applies its own matching to all that comes back.
const SEARCH_NULL = `${SELECT} WHERE user_id = ? AND search_text IS NULL`;

// One `instr` per pattern of a short test (a literal substring test: `%`, `_` and `\` are plain
// characters), or'ed when a test has several; params: see `shortParams`.
const shortTests = (short, column) => short.map((t) => (t.anyOf.length > 1 ? `(${t.anyOf.map(() => `instr(${column}, ?) > 0`).join(' OR ')})` : `instr(${column}, ?) > 0`));
const shortParams = (short) => short.flatMap((t) => t.anyOf);

/**
 * An FTS5 query that requires every test of the core's prefilter (`searchPrefilter`): each
 * pattern a phrase in double quotes, an inner `"` doubled, so nothing in a pattern (`*`, `(`, `:`,
 * `-`, `^`, `NEAR`, `AND`, `OR`) is FTS syntax; a test's patterns or'ed. A trigram phrase
 * matches exactly where the pattern is a substring.
 */
export function ftsQuery(tests) {
  const phrase = (text) => `"${text.replaceAll('"', '""')}"`;
  return tests.map((t) => (t.anyOf.length > 1 ? `(${t.anyOf.map(phrase).join(' OR ')})` : phrase(t.anyOf[0]))).join(' AND ');
}

/**
 * The search prefilter of the core's `plan` (`searchPrefilter(query)`, with at least one test)
 * as `[sql, params]`: a superset of the user's entries the core matches, never another user's
 * rows. With a long test: the FTS5 trigram index (one MATCH string, a parameter) in a fixed join
 * order (CROSS JOIN) — the index's rows → their entry ids → the entries of this user — and the
 * short tests on those candidates. Only short tests: each of the user's rows is tested.
 */
export function searchStatement(userId, plan) {
  const { long, short } = plan;
  if (long.length === 0) {
    return [`${SELECT} WHERE user_id = ? AND (search_text IS NULL OR (${shortTests(short, 'search_text').join(' AND ')})) ORDER BY id`, [userId, ...shortParams(short)]];
  }
  const sql = `SELECT ${ENTRY_COLUMNS.map((c) => `e.${c} AS ${c}`).join(', ')}
    FROM memcore_search CROSS JOIN memcore_search_rows r ON r.doc = memcore_search.rowid CROSS JOIN memcore_entries e ON e.id = r.entry_id
    WHERE memcore_search MATCH ? AND e.user_id = ?${shortTests(short, 'e.search_text').map((test) => ` AND ${test}`).join('')}
    UNION ALL ${SEARCH_NULL} ORDER BY id`;
  return [sql, [ftsQuery(long), userId, ...shortParams(short), userId]];
}

/** Identity params of `IDENTITY` for an entry. */
export function identityParams(entry) {
  return [entry.userId, entry.key, entry.visibility, entry.sourceAgentId ?? null];
}

/**
 * The four statements of `insertWithinCap` with their params, in order: update the row at the
 * identity (not among the evicted), evict (only if the write will happen), insert (only if no row
 * has the identity and the count is below the cap), count (non-reserved, not evicted).
 */
export function capStatements(entry, json, maxEntries, evict, params) {
  const evictJson = JSON.stringify(evict);
  const id = identityParams(entry);
  const row = params; // ENTRY_COLUMNS order
  return [
    [SQL.capUpdate, [row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9], row[12], row[13], row[14], row[15], row[16], row[2], row[3], row[2], row[3], ...id, evictJson]],
    [SQL.capEvict, [entry.userId, evictJson, ...id, evictJson, entry.userId, evictJson, entry.userId, maxEntries]],
    [SQL.capInsert, [...row, ...id, entry.userId, maxEntries]],
    [SQL.capCount, [entry.userId, evictJson, entry.userId]],
  ];
}

/**
 * The SQLite dialect of SqlStorage (storage.js), for better-sqlite3 and D1 alike: text may hold
 * NUL (`limits`); ids travel as one JSON array.
 */
export const SQLITE = {
  SQL,
  // entryPage: a user's non-reserved entries, newest first (the recency rule), filtered (`where`
  // from entryPageFilter) — the page and the count, params: userId, ...filter params(, limit,
  // offset).
  entryPage: (where) => [
    `${SELECT} WHERE user_id = ? AND reserved = 0${where} ORDER BY ${RECENT} LIMIT ? OFFSET ?`,
    `SELECT count(*) AS n FROM memcore_entries WHERE user_id = ? AND reserved = 0${where}`,
  ],
  userPageParams: (after, prefix, plain, limit) => [after, prefix, prefix, plain ? 1 : 0, after, prefix, prefix, plain ? 1 : 0, limit],
  userSummaryParams: (userId) => [userId, userId, userId, userId, userId],
  limits: { nul: true, valueSurrogates: true },
  bool: (b) => (b ? 1 : 0),
  jsonParsed: false,
  idList: (ids) => JSON.stringify(ids),
  idHoldersParams: (list) => [list, list],
  searchStatement,
  recallParams: (order, userId, agentId, groupId, limit) => {
    const visible = [userId, agentId, groupId, groupId, limit];
    return order === 'most_recent' ? visible : [...visible, ...visible];
  },
  checkPath: (path, fn) => checkStoragePath(path, fn),
  rowsPerInsert: 1,
  insertRows: () => SQL.insert,
  // A stored value is JSON text: equal values may differ in key order (`storedValues` re-checks).
  jsonEquality: 'text',
  vectorsStatement: (userId, model) => [SQL.vectors, [userId, model]],
  putVectorStatement: (id, key, json, model, vector) => [SQL.putVector, [vector, model, id, key, json]],
  unembeddedStatement: ({ model, userId, after, limit, scope }) => {
    if (userId !== null) return [SQL.unembeddedUser, [userId, after ?? scope ?? '', model, limit]];
    if (scope === null) return [SQL.unembeddedAll, [after ?? '', model, limit]];
    return [SQL.unembeddedTenant, [after ?? scope, scopeEnd(scope), model, limit]];
  },
  // Four statements in one transaction (D1: one batch), each re-deciding from the table. As they
  // answer, `change` records what they did for a search mirror to follow (storage.js): null when
  // the update at the identity wrote a row of another id than the entry's.
  capInsert: (entry, maxEntries, evict, row) => {
    const plan = {
      statements: capStatements(entry, null, maxEntries, evict, row),
      result: (r) => {
        plan.change = r[0].changes > 0 ? null : { evicted: r[1].changes > 0, inserted: r[2].changes > 0 };
        return { written: r[0].changes + r[2].changes > 0, count: r[3].rows[0].n };
      },
    };
    return plan;
  },
};

/**
 * The SQLite dialect as D1 runs it: the same schema and statements, but vectors read as hex text
 * (D1 answers a BLOB as an array of numbers, one JS number a byte: measured in workerd, 10,000
 * vectors of 384 bytes 1.1 s as arrays, 0.19 s as hex decoded here).
 */
export const D1_SQLITE = {
  ...SQLITE,
  vectorsStatement: (userId, model) => [SQL.vectorsHex, [userId, model]],
  vectorOf: (row) => hexBytes(row.embedding_hex),
};

/**
 * The SQLite dialect as better-sqlite3 runs it on a UTF-8 database (what `openSqlite` creates):
 * `vectors` reads one packed row (`SQL.vectorsPacked`) and answers views into its one buffer —
 * measured 1.8× less CPU and 3× less wall time than a row and a Buffer per vector (10,000 × 384
 * bytes). `vectorRows` answers null when the packed row does not add up (then the per-row
 * statement is read).
 */
export const SQLITE_PACKED = {
  ...SQLITE,
  vectorsStatement: (userId, model) => [SQL.vectorsPacked, [userId, model]],
  vectorRows: (rows) => {
    const row = rows[0];
    let ids;
    let lengths;
    try {
      ids = JSON.parse(row.ids);
      lengths = JSON.parse(row.lengths);
    } catch {
      return null;
    }
    if (ids.length === 0) return [];
    const bytes = vectorBytes(row.bytes);
    if (bytes === null || ids.length !== lengths.length || lengths.reduce((n, l) => n + l, 0) !== bytes.length) return null;
    let at = 0;
    return ids.map((id, i) => {
      const vector = bytes.subarray(at, at + lengths[i]);
      at += lengths[i];
      return { id, vector };
    });
  },
};

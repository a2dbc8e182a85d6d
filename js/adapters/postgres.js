// PostgreSQL storage for Node over npm `pg` (docs/storage.md): one object that is both the entry
// store (with every pushed-down operation) and profile storage, on the schema in sql/postgres/.
// Every value is a bound parameter ($1, $2, …); SQL text is never built from values.
import { searchPrefilter } from 'memcore';
import { MemcoreError } from '../errors.js';
import { versionConflict } from './memory-storage.js';
import { checkWriteOptions, writeCondition } from './storage-arguments.js';
import { INSERT_ROWS, SQL, insertRowsStatement, searchStatement } from './sql/postgres-statements.js';
import {
  checkCap, checkEntries, checkEntry, checkIds, checkQuery, checkString, entryParams, identityConflict, idExists, rowEntry, unstorable,
} from './sql/entry-rows.js';
import {
  POSTGRES_MIGRATIONS, SEARCH_TEXT_SINCE, SUPPORTED_SCHEMA, backfillSearchText, checkProfilePath, importProfile, parseVersion, profileText, schemaNewer,
} from './sql/schema.js';

// PostgreSQL text and jsonb cannot hold U+0000, and jsonb rejects lone surrogates: refused.
const LIMITS = { nul: false, valueSurrogates: false };
const bool = (b) => b;
// One advisory lock key space for memcore: migrations, and per-user cap checks (hashed user id).
const MIGRATION_LOCK = 'memcore:schema';

/**
 * Open PostgreSQL as memcore's entry store and profile storage.
 *
 * `poolOrConnectionString`: a `pg.Pool` you created (used as is; `close()` leaves it open), or a
 * connection string (`postgres://…`; the adapter creates a Pool with `options.max` connections,
 * default 10, ignores idle-client errors so a restarting server does not crash the process, and
 * `close()` ends it). Migrations are applied at open in one transaction under an advisory lock; a
 * database whose schema is newer than this code is refused with `E_HOST`
 * (`details.reason: 'schema-newer'`) untouched.
 *
 * `options.readonly: true` creates nothing: no migration runs (a database at an older schema is
 * read as it is; `schemaVersion` says which), one without memcore's tables is refused with `E_HOST`
 * `reason: 'not-memcore'`, and a Pool the adapter creates runs every transaction read-only
 * (`default_transaction_read_only`), so a write rejects `E_HOST` (SQLSTATE `25006`).
 *
 * @example
 * import { openPostgres } from 'memcore/adapters/postgres';
 * const db = await openPostgres(process.env.DATABASE_URL);
 * const tools = createMemoryTools({ store: db, userId, agentId });
 */
export async function openPostgres(poolOrConnectionString, options = {}) {
  const { max = 10, readonly = false } = options ?? {};
  if (typeof readonly !== 'boolean') throw new MemcoreError('E_CONFIG', 'openPostgres: options.readonly must be true or false', { path: 'readonly' });
  let pool;
  let owned = false;
  if (typeof poolOrConnectionString === 'string' && poolOrConnectionString.length > 0) {
    if (!Number.isSafeInteger(max) || max < 1) throw new MemcoreError('E_CONFIG', 'openPostgres: options.max must be a positive integer', { path: 'max' });
    let pg;
    try {
      pg = (await import('pg')).default;
    } catch (error) {
      throw new MemcoreError('E_CONFIG', `openPostgres needs the optional peer dependency pg: npm install pg (${error.message})`, { path: 'pg' });
    }
    pool = new pg.Pool({ connectionString: poolOrConnectionString, max, ...(readonly ? { options: '-c default_transaction_read_only=on' } : {}) });
    pool.on('error', () => {}); // an idle client lost its connection; the next query reports it
    owned = true;
  } else if (poolOrConnectionString && typeof poolOrConnectionString.query === 'function' && typeof poolOrConnectionString.connect === 'function') {
    pool = poolOrConnectionString;
  } else {
    throw new MemcoreError('E_ARGUMENT', 'openPostgres: pass a pg.Pool or a connection string like "postgres://user@host/db"', { function: 'openPostgres', argument: 'poolOrConnectionString' });
  }
  if (readonly) {
    try {
      return new PostgresStorage(pool, owned, await readSchemaVersion(pool));
    } catch (error) {
      if (owned) await pool.end().catch(() => {});
      throw error;
    }
  }
  const storage = new PostgresStorage(pool, owned, SUPPORTED_SCHEMA);
  try {
    await storage.transaction('openPostgres', async (client) => {
      await client.query(SQL.lock, [MIGRATION_LOCK]);
      await client.query(SQL.schemaTable);
      const found = (await client.query(SQL.schemaVersion)).rows[0].version;
      if (found > SUPPORTED_SCHEMA) throw schemaNewer('openPostgres', found);
      for (const migration of POSTGRES_MIGRATIONS) {
        if (migration.version <= found) continue;
        await client.query(migration.sql);
        await client.query(SQL.recordVersion, [migration.version, new Date().toISOString()]);
      }
      if (found > 0 && found < SEARCH_TEXT_SINCE) {
        await backfillSearchText(
          async (after) => (await client.query(SQL.untextedPage, [after])).rows,
          async (updates) => {
            for (const params of updates) await client.query(SQL.setSearchText, params);
          },
          true,
        );
      }
    });
  } catch (error) {
    if (owned) await pool.end().catch(() => {});
    throw error;
  }
  return storage;
}

// What a read-only open finds: the schema version, without taking a lock or creating anything.
async function readSchemaVersion(pool) {
  const query = async (sql) => {
    try {
      return (await pool.query(sql)).rows;
    } catch (error) {
      throw hostError('openPostgres', error);
    }
  };
  const rows = await query("SELECT to_regclass('memcore_schema') IS NOT NULL AS found");
  if (!rows[0].found) {
    throw new MemcoreError('E_HOST', 'openPostgres: the database holds no memcore tables (never opened read-write by openPostgres); nothing to read', {
      function: 'openPostgres',
      reason: 'not-memcore',
      transient: false,
    });
  }
  const found = (await query(SQL.schemaVersion))[0].version;
  if (found > SUPPORTED_SCHEMA) throw schemaNewer('openPostgres', found);
  return found;
}

class PostgresStorage {
  #pool;
  #owned;
  #version;

  constructor(pool, owned, version) {
    this.#pool = pool;
    this.#owned = owned;
    this.#version = version;
  }

  /** The schema version this database is at: the newest this code knows, unless opened read-only. */
  get schemaVersion() {
    return this.#version;
  }

  /** The `pg.Pool` (for your own queries, EXPLAIN). */
  get pool() {
    return this.#pool;
  }

  /** End the pool if `openPostgres` created it; a Pool you passed stays open. */
  async close() {
    if (this.#owned && !this.#pool.ended) await this.#pool.end();
  }

  async list(userId) {
    checkString(userId, 'list', 'userId');
    if (unstorable(userId, false)) return [];
    return this.#entries('list', SQL.list, [userId]);
  }

  async get(id) {
    checkString(id, 'get', 'id');
    if (unstorable(id, false)) return null;
    return (await this.#entries('get', SQL.get, [id]))[0] ?? null;
  }

  async upsert(entry) {
    const json = checkEntry(entry, 'upsert', LIMITS);
    await this.#query('upsert', SQL.upsert, entryParams(entry, json, bool), entry);
  }

  async delete(id) {
    checkString(id, 'delete', 'id');
    if (unstorable(id, false)) return false;
    return (await this.#query('delete', SQL.delete, [id])).rowCount > 0;
  }

  async incrementAccess(ids) {
    checkIds(ids, 'incrementAccess');
    const known = ids.filter((id) => !unstorable(id, false));
    if (known.length > 0) await this.#query('incrementAccess', SQL.incrementAccess, [known]);
  }

  async countUser(userId) {
    checkString(userId, 'countUser', 'userId');
    if (unstorable(userId, false)) return 0;
    return Number((await this.#query('countUser', SQL.countUser, [userId])).rows[0].n);
  }

  async search(userId, query) {
    checkString(userId, 'search', 'userId');
    checkString(query, 'search', 'query');
    const plan = searchPrefilter(query);
    if (plan.long.length + plan.short.length === 0 || unstorable(userId, false)) return [];
    const [sql, params] = searchStatement(userId, plan);
    return this.#entries('search', sql, params);
  }

  async recall(query) {
    const { userId, agentId, groupId, order, limit } = checkQuery(query, 'recall', { order: true });
    const g = groupId ?? '';
    if (unstorable(userId, false)) return [];
    // An agent or group id that cannot be stored matches no self/group row: '' never does either.
    const params = [userId, unstorable(agentId, false) ? '' : agentId, unstorable(g, false) ? '' : g, limit];
    return this.#entries('recall', order === 'most_recent' ? SQL.recallRecent : SQL.recallAccessed, params);
  }

  async findByKey(userId, key) {
    checkString(userId, 'findByKey', 'userId');
    checkString(key, 'findByKey', 'key');
    if (unstorable(userId, false) || unstorable(key, false)) return [];
    return this.#entries('findByKey', SQL.findByKey, [userId, key]);
  }

  async oldestOwn(query) {
    const { userId, agentId, limit } = checkQuery(query, 'oldestOwn', { order: false });
    if (unstorable(userId, false) || unstorable(agentId, false)) return [];
    return this.#entries('oldestOwn', SQL.oldestOwn, [userId, agentId, limit]);
  }

  /**
   * One transaction under `pg_advisory_xact_lock` on the user: two agents writing at the cap at
   * once serialise here, so the count never exceeds `maxEntries`.
   */
  async insertWithinCap(entry, cap) {
    const json = checkEntry(entry, 'insertWithinCap', LIMITS);
    const { maxEntries, evict } = checkCap(cap, 'insertWithinCap');
    const row = entryParams(entry, json, bool);
    return this.transaction('insertWithinCap', async (client) => {
      await client.query(SQL.lock, [`memcore:user:${entry.userId}`]);
      if (evict.length > 0) await client.query(SQL.deleteOwned, [entry.userId, evict]);
      const existing = (await client.query(SQL.identity, [entry.userId, entry.key, entry.visibility, entry.sourceAgentId ?? null])).rows[0];
      const count = Number((await client.query(SQL.countUser, [entry.userId])).rows[0].n);
      if (existing) {
        await client.query(SQL.updateInPlace, [existing.id, row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9], row[12], row[13], row[14], row[15]]);
        return { written: true, count };
      }
      if (count >= maxEntries) return { rollback: true, result: { written: false, count } };
      await client.query(SQL.insert, row);
      return { written: true, count: count + 1 };
    }, entry);
  }

  /**
   * Insert every entry (an import) in one transaction, or none: multi-row inserts of
   * `INSERT_ROWS` rows on one connection, rolled back together when any row fails. With
   * `{ profile: { path, text } }` the profile is created in the same transaction (create-only).
   */
  async insertAll(entries, options) {
    const rows = checkEntries(entries, 'insertAll', LIMITS, bool);
    const profile = importProfile(options, 'insertAll', LIMITS);
    if (rows.length === 0 && !profile) return;
    await this.transaction('insertAll', async (client) => {
      for (let i = 0; i < rows.length; i += INSERT_ROWS) {
        const chunk = rows.slice(i, i + INSERT_ROWS);
        try {
          await client.query(insertRowsStatement(chunk.length), chunk.flat());
        } catch (error) {
          if (error?.code === '23505' && error.constraint === 'memcore_entries_pkey') throw idExists('insertAll', /\(id\)=\((.*)\)/.exec(error.detail ?? '')?.[1] ?? null, error);
          throw error;
        }
      }
      // The import's profile in the same transaction, create-only.
      if (profile && (await client.query(SQL.profileCreate, [profile.path, profile.text, new Date().toISOString()])).rowCount === 0) {
        const actual = (await client.query(SQL.profileVersion, [profile.path])).rows[0];
        throw versionConflict(profile.path, null, actual ? String(actual.version) : null);
      }
    });
  }

  async read(path) {
    checkProfilePath(path, 'read', { nul: true });
    if (unstorable(path, false)) return null;
    const row = (await this.#query('read', SQL.profileRead, [path])).rows[0];
    return row ? { text: row.text, version: String(row.version) } : null;
  }

  async write(path, text, options = {}) {
    checkProfilePath(path, 'write', LIMITS);
    profileText(text, 'write', LIMITS);
    checkWriteOptions(options, 'write');
    const { ifAbsent, ifVersion } = writeCondition(options);
    const now = new Date().toISOString();
    let result;
    if (ifAbsent) result = await this.#query('write', SQL.profileCreate, [path, text, now]);
    else if (ifVersion === null) result = await this.#query('write', SQL.profilePut, [path, text, now]);
    else {
      const expected = parseVersion(ifVersion);
      if (expected !== null) result = await this.#query('write', SQL.profileCas, [text, now, path, expected]);
    }
    const row = result?.rows[0];
    if (row) return { version: String(row.version) };
    const actual = (await this.#query('write', SQL.profileVersion, [path])).rows[0];
    throw versionConflict(path, ifAbsent ? null : ifVersion, actual ? String(actual.version) : null);
  }

  async remove(path) {
    checkProfilePath(path, 'remove', { nul: true });
    if (unstorable(path, false)) return;
    await this.#query('remove', SQL.profileRemove, [path]);
  }

  /** Profiles need no folders in a table. */
  async ensureRoot(rootFolder) {
    checkProfilePath(rootFolder, 'ensureRoot', { nul: true });
  }

  /**
   * Run `task(client)` in one transaction on one pooled connection; `task` may answer
   * `{ rollback: true, result }` to roll back and still resolve to `result`.
   */
  async transaction(fn, task, entry) {
    let client;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw hostError(fn, error);
    }
    let broken = false;
    try {
      await client.query('BEGIN');
      const outcome = await task(client);
      if (outcome?.rollback) {
        await client.query('ROLLBACK');
        return outcome.result;
      }
      await client.query('COMMIT');
      return outcome;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => { broken = true; });
      if (error instanceof MemcoreError) throw error;
      throw mapError(fn, error, entry);
    } finally {
      client.release(broken || undefined);
    }
  }

  async #entries(fn, sql, params) {
    return (await this.#query(fn, sql, params)).rows.map((row) => rowEntry(row, true));
  }

  async #query(fn, sql, params, entry) {
    try {
      return await this.#pool.query(sql, params);
    } catch (error) {
      throw mapError(fn, error, entry);
    }
  }
}

function mapError(fn, error, entry) {
  if (entry && error?.code === '23505' && /identity/.test(error.constraint ?? '')) return identityConflict(fn, entry, error);
  return hostError(fn, error);
}

// Connection loss, a server shutting down or starting, too many clients, serialisation failures
// and deadlocks are worth a retry; everything else (syntax, constraints, types) is not.
const TRANSIENT_SQLSTATE = /^(08|57P0[1-3]|53300|40001|40P01)/;
const TRANSIENT_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

function hostError(fn, error) {
  const code = error?.code ?? null;
  const lost = /Connection terminated|connection.*(ended|closed)|Client has encountered a connection error|Cannot use a pool after calling end/i.test(error?.message ?? '');
  const transient = TRANSIENT_ERRNO.has(code) || (typeof code === 'string' && TRANSIENT_SQLSTATE.test(code)) || (lost && !/after calling end/.test(error?.message ?? ''));
  return new MemcoreError('E_HOST', `${fn}: PostgreSQL error: ${error?.message || code || String(error)}`, { function: fn, code, transient });
}

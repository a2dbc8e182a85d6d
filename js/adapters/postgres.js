// PostgreSQL storage for Node over npm `pg` (docs/reference/storage.md): SqlStorage (sql/storage.js) over a
// pg driver and the PostgreSQL dialect, on the schema in sql/postgres/.
// Every value is a bound parameter ($1, $2, …); SQL text is never built from values.
import { MemcoreError } from '../errors.js';
import { POSTGRES, SQL } from './sql/postgres-statements.js';
import { identityConflict } from './sql/entry-rows.js';
import { POSTGRES_MIGRATIONS, SEARCH_TEXT_SINCE, SUPPORTED_SCHEMA, backfillSearchText, schemaNewer } from './sql/schema.js';
import { SqlStorage, driveAsync, tenantOption } from './sql/storage.js';
import { MIRROR_SINCE, mirrorBound } from './sql/search-mirror.js';
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
  const mirror = mirrorBound('openPostgres', options);
  const tenant = tenantOption('openPostgres', options);
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
      const found = await readSchemaVersion(pool);
      return new PostgresStorage(pool, owned, found, found >= MIRROR_SINCE ? mirror : 0, tenant);
    } catch (error) {
      if (owned) await pool.end().catch(() => {});
      throw error;
    }
  }
  const storage = new PostgresStorage(pool, owned, SUPPORTED_SCHEMA, mirror, tenant);
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

class PostgresStorage extends SqlStorage {
  #pool;
  #owned;
  #version;

  constructor(pool, owned, version, mirror, tenant) {
    super(postgresDriver(pool), POSTGRES, mirror, tenant);
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

  /**
   * Run `task(client)` in one transaction on one pooled connection; `task` may answer
   * `{ rollback: true, result }` to roll back and still resolve to `result`.
   */
  async transaction(fn, task, entry) {
    try {
      return await withTransaction(this.#pool, task);
    } catch (error) {
      if (error instanceof MemcoreError) throw error;
      throw mapError(fn, error, entry);
    }
  }
}

// One transaction on one pooled connection (a failed ROLLBACK discards the connection).
async function withTransaction(pool, task) {
  const client = await pool.connect();
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
    throw error;
  } finally {
    client.release(broken || undefined);
  }
}

/** The pg driver of SqlStorage: statements on the pool; transactions on one pooled connection. */
function postgresDriver(pool) {
  const on = (client) => ({
    all: async (sql, params) => (await client.query(sql, params)).rows,
    first: async (sql, params) => (await client.query(sql, params)).rows[0] ?? null,
    run: async (sql, params) => ({ changes: (await client.query(sql, params)).rowCount }),
  });
  const results = async (client, list) => {
    const out = [];
    for (const [sql, params] of list) {
      const result = await client.query(sql, params);
      out.push({ rows: result.rows, changes: result.rowCount });
    }
    return out;
  };
  return {
    ...on(pool),
    // One statement needs no BEGIN/COMMIT round trips.
    atomic: (list) => (list.length === 1 ? results(pool, list) : withTransaction(pool, (client) => results(client, list))),
    transaction: (body) => withTransaction(pool, (client) => {
      const q = on(client);
      return driveAsync(body, ([op, sql, params]) => q[op](sql, params));
    }),
    // pg sends a Buffer as bytea (a view of the same bytes, no copy).
    blob: (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    identityViolation: (error) => error?.code === '23505' && /identity/.test(error.constraint ?? ''),
    duplicateId: (error) => (error?.code === '23505' && error.constraint === 'memcore_entries_pkey' ? /\(id\)=\((.*)\)/.exec(error.detail ?? '')?.[1] ?? null : undefined),
    hostError,
  };
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

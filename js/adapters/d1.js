// Cloudflare D1 storage (docs/reference/storage.md): SqlStorage (sql/storage.js) over a D1 driver and the
// SQLite dialect, on the SQLite schema (sql/sqlite/, embedded). D1 has
// no interactive transactions: every atomic step is one statement or one `batch` (D1 runs a batch
// as one transaction). Imports nothing Node-only: this module runs in workerd.
import { MemcoreError } from '../errors.js';
import { D1_SQLITE, SQL } from './sql/sqlite-statements.js';
import { SEARCH_TEXT_SINCE, SQLITE_MIGRATIONS, SUPPORTED_SCHEMA, backfillSearchText, schemaNewer } from './sql/schema.js';
import { SqlStorage, tenantOption } from './sql/storage.js';
import { mirrorBound } from './sql/search-mirror.js';

/**
 * Use a D1 binding (`env.DB`) as memcore's entry store and profile storage.
 *
 * Pending migrations are applied at open as one `batch` (one transaction; a Worker racing another
 * loses on the version row and re-reads); a database whose schema is newer than this code is
 * refused with `E_HOST` (`details.reason: 'schema-newer'`) untouched. `close()` is a no-op (the
 * binding belongs to the Worker).
 *
 * @example
 * import { openD1 } from 'memcore/adapters/d1';
 * export default {
 *   async fetch(request, env) {
 *     const db = await openD1(env.DB);
 *     const tools = createMemoryTools({ store: db, userId, agentId });
 *   },
 * };
 */
export async function openD1(binding, options = {}) {
  if (options !== undefined && options !== null && typeof options !== 'object') {
    throw new MemcoreError('E_ARGUMENT', 'openD1: options must be an object', { function: 'openD1', argument: 'options' });
  }
  if (!binding || typeof binding.prepare !== 'function' || typeof binding.batch !== 'function') {
    throw new MemcoreError('E_ARGUMENT', 'openD1: pass a D1 binding (env.DB), the object with prepare() and batch()', { function: 'openD1', argument: 'binding' });
  }
  const store = new D1Storage(binding, mirrorBound('openD1', options), tenantOption('openD1', options));
  await store.migrate();
  return store;
}

class D1Storage extends SqlStorage {
  #db;

  constructor(db, mirror, tenant) {
    super(d1Driver(db), D1_SQLITE, mirror, tenant);
    this.#db = db;
  }

  /** The schema version this database is at (the newest this code knows). */
  get schemaVersion() {
    return SUPPORTED_SCHEMA;
  }

  /** The D1 binding. */
  get database() {
    return this.#db;
  }

  /** Nothing to close: the binding belongs to the Worker. */
  async close() {}

  /** Apply pending migrations (called by `openD1`). */
  async migrate() {
    // One read when the schema is current (a Worker may open per request); the table is created
    // only when it is missing.
    const found = await attempt(async () => {
      try {
        return (await this.#db.prepare(SQL.schemaVersion).first()).version;
      } catch (error) {
        if (!/no such table/i.test(error?.message ?? '')) throw error;
        await this.#db.prepare(SQL.schemaTable).run();
        return 0;
      }
    });
    if (found > SUPPORTED_SCHEMA) throw schemaNewer('openD1', found);
    const pending = SQLITE_MIGRATIONS.filter((m) => m.version > found);
    if (pending.length === 0) return;
    const now = new Date().toISOString();
    const statements = pending.flatMap((m) => [...m.statements.map((s) => this.#db.prepare(s)), this.#db.prepare(SQL.recordVersion).bind(m.version, now)]);
    try {
      await this.#db.batch(statements);
    } catch (error) {
      // Another Worker may have applied the same migrations first (its version row wins).
      const reached = await attempt(async () => (await this.#db.prepare(SQL.schemaVersion).first()).version);
      if (reached < SUPPORTED_SCHEMA) throw hostError('openD1', error);
      return;
    }
    if (found > 0 && found < SEARCH_TEXT_SINCE) {
      // After the batch (JS computes the texts): a Worker stopped half-way leaves the rest NULL,
      // which every search still returns and the core matches.
      await attempt(() =>
        backfillSearchText(
          async (after) => (await this.#db.prepare(SQL.untextedPage).bind(after).all()).results,
          async (updates) => {
            await this.#db.batch(updates.map((params) => this.#db.prepare(SQL.setSearchText).bind(...params)));
          },
        ),
      );
    }
  }
}

async function attempt(task) {
  try {
    return await task();
  } catch (error) {
    if (error instanceof MemcoreError) throw error;
    throw hostError('openD1', error);
  }
}

/** The D1 driver of SqlStorage: no interactive transactions; `atomic` is one `batch` (one transaction). */
function d1Driver(db) {
  const bound = (sql, params) => db.prepare(sql).bind(...params);
  return {
    all: async (sql, params) => (await bound(sql, params).all()).results,
    first: (sql, params) => bound(sql, params).first(),
    run: async (sql, params) => ({ changes: (await bound(sql, params).run()).meta.changes }),
    atomic: async (list) => (await db.batch(list.map(([sql, params]) => bound(sql, params)))).map((r) => ({ rows: r.results ?? [], changes: r.meta?.changes ?? 0 })),
    identityViolation: (error) => /UNIQUE constraint failed: memcore_entries\.user_id, memcore_entries\.key/.test(error?.message ?? ''),
    // D1 names the constraint, not the row.
    duplicateId: (error) => (/UNIQUE constraint failed: memcore_entries\.id/.test(error?.message ?? '') ? null : undefined),
    profileExists: (error) => /UNIQUE constraint failed: memcore_profiles\.path/.test(error?.message ?? ''),
    hostError,
  };
}

// D1's documented retryable failures: a reset or overloaded Durable Object, a lost network link.
const TRANSIENT = /network connection lost|storage caused object to be reset|reset because its code was updated|transient issue|overloaded|internal error|timed out|timeout/i;

function hostError(fn, error) {
  const message = error?.message ?? String(error);
  return new MemcoreError('E_HOST', `${fn}: D1 error: ${message}`, { function: fn, transient: TRANSIENT.test(message) });
}

// Cloudflare D1 storage (docs/storage.md): one object that is both the entry store (with every
// pushed-down operation) and profile storage, on the SQLite schema (sql/sqlite/, embedded). D1 has
// no interactive transactions: every atomic step is one statement or one `batch` (D1 runs a batch
// as one transaction). Imports nothing Node-only: this module runs in workerd.
import { searchPrefilter } from 'memcore';
import { MemcoreError } from '../errors.js';
import { versionConflict } from './memory-storage.js';
import { checkStoragePath, checkWriteOptions, writeCondition } from './storage-arguments.js';
import { SQL, capStatements, searchStatement } from './sql/sqlite-statements.js';
import { checkCap, checkEntries, checkEntry, checkIds, checkQuery, checkString, entryParams, identityConflict, idExists, rowEntry, unstorable } from './sql/entry-rows.js';
import {
  SEARCH_TEXT_SINCE, SQLITE_MIGRATIONS, SUPPORTED_SCHEMA, backfillSearchText, checkProfilePath, importProfile, parseVersion, profileText, schemaNewer,
} from './sql/schema.js';

const bool = (b) => (b ? 1 : 0);
const LIMITS = { nul: true, valueSurrogates: true };

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
  const store = new D1Storage(binding);
  await store.migrate();
  return store;
}

class D1Storage {
  #db;

  constructor(db) {
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
    const found = await this.#run('openD1', async () => {
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
      const reached = await this.#run('openD1', async () => (await this.#db.prepare(SQL.schemaVersion).first()).version);
      if (reached < SUPPORTED_SCHEMA) throw hostError('openD1', error);
      return;
    }
    if (found > 0 && found < SEARCH_TEXT_SINCE) {
      // After the batch (JS computes the texts): a Worker stopped half-way leaves the rest NULL,
      // which every search still returns and the core matches.
      await this.#run('openD1', () =>
        backfillSearchText(
          async (after) => (await this.#db.prepare(SQL.untextedPage).bind(after).all()).results,
          async (updates) => {
            await this.#db.batch(updates.map((params) => this.#db.prepare(SQL.setSearchText).bind(...params)));
          },
        ),
      );
    }
  }

  async list(userId) {
    checkString(userId, 'list', 'userId');
    if (unstorable(userId, true)) return [];
    return this.#all('list', SQL.list, [userId]);
  }

  async get(id) {
    checkString(id, 'get', 'id');
    if (unstorable(id, true)) return null;
    return (await this.#all('get', SQL.get, [id]))[0] ?? null;
  }

  async upsert(entry) {
    const json = checkEntry(entry, 'upsert', LIMITS);
    await this.#run('upsert', () => this.#db.prepare(SQL.upsert).bind(...entryParams(entry, json, bool)).run(), entry);
  }

  async delete(id) {
    checkString(id, 'delete', 'id');
    if (unstorable(id, true)) return false;
    const result = await this.#run('delete', () => this.#db.prepare(SQL.delete).bind(id).run());
    return result.meta.changes > 0;
  }

  async incrementAccess(ids) {
    checkIds(ids, 'incrementAccess');
    const known = ids.filter((id) => !unstorable(id, true));
    if (known.length === 0) return;
    await this.#run('incrementAccess', () => this.#db.prepare(SQL.incrementAccess).bind(JSON.stringify(known)).run());
  }

  async countUser(userId) {
    checkString(userId, 'countUser', 'userId');
    if (unstorable(userId, true)) return 0;
    return (await this.#run('countUser', () => this.#db.prepare(SQL.countUser).bind(userId).first())).n;
  }

  async search(userId, query) {
    checkString(userId, 'search', 'userId');
    checkString(query, 'search', 'query');
    const plan = searchPrefilter(query);
    if (plan.long.length + plan.short.length === 0 || unstorable(userId, true)) return [];
    const [sql, params] = searchStatement(userId, plan);
    return this.#all('search', sql, params);
  }

  async recall(query) {
    const { userId, agentId, groupId, order, limit } = checkQuery(query, 'recall', { order: true });
    const g = groupId ?? '';
    if (unstorable(userId, true)) return [];
    const a = unstorable(agentId, true) ? '' : agentId;
    const group = unstorable(g, true) ? '' : g;
    const visible = [userId, a, group, group, limit];
    return this.#all('recall', order === 'most_recent' ? SQL.recallRecent : SQL.recallAccessed, order === 'most_recent' ? visible : [...visible, ...visible]);
  }

  async findByKey(userId, key) {
    checkString(userId, 'findByKey', 'userId');
    checkString(key, 'findByKey', 'key');
    if (unstorable(userId, true) || unstorable(key, true)) return [];
    return this.#all('findByKey', SQL.findByKey, [userId, key]);
  }

  async oldestOwn(query) {
    const { userId, agentId, limit } = checkQuery(query, 'oldestOwn', { order: false });
    if (unstorable(userId, true) || unstorable(agentId, true)) return [];
    return this.#all('oldestOwn', SQL.oldestOwn, [userId, agentId, limit]);
  }

  /** One `batch` (one D1 transaction) of four statements that each re-decide from the table. */
  async insertWithinCap(entry, cap) {
    const json = checkEntry(entry, 'insertWithinCap', LIMITS);
    const { maxEntries, evict } = checkCap(cap, 'insertWithinCap');
    const statements = capStatements(entry, json, maxEntries, evict, entryParams(entry, json, bool));
    const results = await this.#run('insertWithinCap', () => this.#db.batch(statements.map(([sql, params]) => this.#db.prepare(sql).bind(...params))), entry);
    return { written: results[0].meta.changes + results[2].meta.changes > 0, count: results[3].results[0].n };
  }

  /**
   * Insert every entry (an import) in one `batch` (one D1 transaction), or none: a failing row
   * rolls back them all. With `{ profile: { path, text } }` the profile is created in the same
   * batch (create-only).
   */
  async insertAll(entries, options) {
    const rows = checkEntries(entries, 'insertAll', LIMITS, bool);
    const profile = importProfile(options, 'insertAll', LIMITS);
    if (rows.length === 0 && !profile) return;
    const statements = rows.map((params) => this.#db.prepare(SQL.insert).bind(...params));
    // The import's profile in the same batch: a plain insert, so an existing one fails it all.
    if (profile) statements.push(this.#db.prepare(SQL.bumpVersion), this.#db.prepare(SQL.profileInsert).bind(profile.path, profile.text, new Date().toISOString()));
    await this.#run('insertAll', async () => {
      try {
        return await this.#db.batch(statements);
      } catch (error) {
        if (profile && /UNIQUE constraint failed: memcore_profiles\.path/.test(error?.message ?? '')) {
          const actual = await this.#db.prepare(SQL.profileVersion).bind(profile.path).first();
          throw versionConflict(profile.path, null, actual ? String(actual.version) : null);
        }
        // D1 names the constraint, not the row.
        if (/UNIQUE constraint failed: memcore_entries\.id/.test(error?.message ?? '')) throw idExists('insertAll', null, error);
        throw error;
      }
    });
  }

  async read(path) {
    checkStoragePath(path, 'read');
    if (unstorable(path, true)) return null;
    const row = await this.#run('read', () => this.#db.prepare(SQL.profileRead).bind(path).first());
    return row ? { text: row.text, version: String(row.version) } : null;
  }

  async write(path, text, options = {}) {
    checkProfilePath(path, 'write', LIMITS);
    profileText(text, 'write', LIMITS);
    checkWriteOptions(options, 'write');
    const { ifAbsent, ifVersion } = writeCondition(options);
    const now = new Date().toISOString();
    let statement = null;
    if (ifAbsent) statement = this.#db.prepare(SQL.profileCreate).bind(path, text, now);
    else if (ifVersion === null) statement = this.#db.prepare(SQL.profilePut).bind(path, text, now);
    else {
      const expected = parseVersion(ifVersion);
      if (expected !== null) statement = this.#db.prepare(SQL.profileCas).bind(text, now, path, expected);
    }
    if (statement) {
      const results = await this.#run('write', () => this.#db.batch([this.#db.prepare(SQL.bumpVersion), statement]));
      const row = results[1].results?.[0];
      if (row) return { version: String(row.version) };
    }
    const actual = await this.#run('write', () => this.#db.prepare(SQL.profileVersion).bind(path).first());
    throw versionConflict(path, ifAbsent ? null : ifVersion, actual ? String(actual.version) : null);
  }

  async remove(path) {
    checkStoragePath(path, 'remove');
    if (unstorable(path, true)) return;
    await this.#run('remove', () => this.#db.prepare(SQL.profileRemove).bind(path).run());
  }

  /** Profiles need no folders in a table. */
  async ensureRoot(rootFolder) {
    checkStoragePath(rootFolder, 'ensureRoot');
  }

  async #all(fn, sql, params) {
    const result = await this.#run(fn, () => this.#db.prepare(sql).bind(...params).all());
    return result.results.map((row) => rowEntry(row));
  }

  async #run(fn, task, entry) {
    try {
      return await task();
    } catch (error) {
      if (error instanceof MemcoreError) throw error;
      if (entry && /UNIQUE constraint failed: memcore_entries\.user_id, memcore_entries\.key/.test(error?.message ?? '')) throw identityConflict(fn, entry, error);
      throw hostError(fn, error);
    }
  }
}

// D1's documented retryable failures: a reset or overloaded Durable Object, a lost network link.
const TRANSIENT = /network connection lost|storage caused object to be reset|reset because its code was updated|transient issue|overloaded|internal error|timed out|timeout/i;

function hostError(fn, error) {
  const message = error?.message ?? String(error);
  return new MemcoreError('E_HOST', `${fn}: D1 error: ${message}`, { function: fn, transient: TRANSIENT.test(message) });
}

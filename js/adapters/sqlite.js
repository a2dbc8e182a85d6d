// SQLite storage for Node over better-sqlite3@12 (docs/storage.md): one object that is both the
// entry store (with every pushed-down operation) and profile storage, on the schema in
// sql/sqlite/. better-sqlite3 is synchronous, so each method runs to completion before it returns
// its Promise; atomic steps run in `BEGIN IMMEDIATE` transactions.
import { searchTerms } from 'memcore';
import { MemcoreError } from '../errors.js';
import { versionConflict } from './memory-storage.js';
import { checkStoragePath, checkWriteOptions, writeCondition } from './storage-arguments.js';
import { SQL, capStatements, searchStatement } from './sql/sqlite-statements.js';
import { checkCap, checkEntries, checkEntry, checkIds, checkQuery, checkString, entryParams, identityConflict, idExists, rowEntry, unstorable } from './sql/entry-rows.js';
import { applySqliteMigrations, checkProfilePath, parseVersion, profileText, SUPPORTED_SCHEMA } from './sql/schema.js';

const DEFAULT_BUSY_TIMEOUT_MS = 5000;
const bool = (b) => (b ? 1 : 0);
const LIMITS = { nul: true, valueSurrogates: true };

/**
 * Open (or adopt) a SQLite database as memcore's entry store and profile storage.
 *
 * `pathOrDatabase`: a file path (opened with WAL and a busy timeout; `close()` closes it),
 * `':memory:'`, or a better-sqlite3 `Database` you opened (used as is; `close()` leaves it open).
 * Migrations are applied at open in one `BEGIN IMMEDIATE` transaction; a database whose schema is
 * newer than this code is refused with `E_HOST` (`details.reason: 'schema-newer'`) untouched.
 *
 * @example
 * import { openSqlite } from 'memcore/adapters/sqlite';
 * const db = await openSqlite('./memcore.db');
 * const tools = createMemoryTools({ store: db, userId, agentId });
 * const memory = new ContextMemory({ storage: db, model });
 */
export async function openSqlite(pathOrDatabase, options = {}) {
  const { busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS } = options ?? {};
  if (!Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new MemcoreError('E_CONFIG', 'openSqlite: options.busyTimeoutMs must be a non-negative integer number of milliseconds', { path: 'busyTimeoutMs' });
  }
  let db;
  let owned = false;
  if (typeof pathOrDatabase === 'string' && pathOrDatabase.length > 0) {
    let Database;
    try {
      Database = (await import('better-sqlite3')).default;
    } catch (error) {
      throw new MemcoreError('E_CONFIG', `openSqlite needs the optional peer dependency better-sqlite3@12: npm install better-sqlite3@12 (${error.message})`, { path: 'better-sqlite3' });
    }
    try {
      db = new Database(pathOrDatabase);
      owned = true;
      // The busy timeout first: switching to WAL needs a lock another process may hold.
      db.pragma(`busy_timeout = ${busyTimeoutMs}`);
      if (pathOrDatabase !== ':memory:') db.pragma('journal_mode = WAL');
    } catch (error) {
      db?.close();
      throw hostError('openSqlite', error);
    }
  } else if (pathOrDatabase && typeof pathOrDatabase.prepare === 'function' && typeof pathOrDatabase.transaction === 'function') {
    db = pathOrDatabase;
  } else {
    throw new MemcoreError('E_ARGUMENT', 'openSqlite: pass a file path, ":memory:" or a better-sqlite3 Database', { function: 'openSqlite', argument: 'pathOrDatabase' });
  }
  try {
    applySqliteMigrations(db);
  } catch (error) {
    if (owned) db.close();
    if (error instanceof MemcoreError) throw error;
    throw hostError('openSqlite', error);
  }
  return new SqliteStorage(db, owned);
}

class SqliteStorage {
  #db;
  #owned;
  #statements = new Map();

  constructor(db, owned) {
    this.#db = db;
    this.#owned = owned;
  }

  /** The schema version this database is at (the newest this code knows). */
  get schemaVersion() {
    return SUPPORTED_SCHEMA;
  }

  /** The better-sqlite3 handle (for your own queries, backups, EXPLAIN). */
  get database() {
    return this.#db;
  }

  /** Close the database if `openSqlite` opened it; an adopted `Database` stays open. */
  async close() {
    if (this.#owned && this.#db.open) this.#db.close();
  }

  async list(userId) {
    checkString(userId, 'list', 'userId');
    if (unstorable(userId, true)) return [];
    return this.#run('list', () => this.#all(SQL.list, userId));
  }

  async get(id) {
    checkString(id, 'get', 'id');
    if (unstorable(id, true)) return null;
    return this.#run('get', () => {
      const row = this.#stmt(SQL.get).get(id);
      return row ? rowEntry(row) : null;
    });
  }

  async upsert(entry) {
    const json = checkEntry(entry, 'upsert', LIMITS);
    this.#run('upsert', () => this.#stmt(SQL.upsert).run(...entryParams(entry, json, bool)), entry);
  }

  async delete(id) {
    checkString(id, 'delete', 'id');
    if (unstorable(id, true)) return false;
    return this.#run('delete', () => this.#stmt(SQL.delete).run(id).changes > 0);
  }

  async incrementAccess(ids) {
    checkIds(ids, 'incrementAccess');
    const known = ids.filter((id) => !unstorable(id, true));
    if (known.length === 0) return;
    this.#run('incrementAccess', () => this.#stmt(SQL.incrementAccess).run(JSON.stringify(known)));
  }

  async countUser(userId) {
    checkString(userId, 'countUser', 'userId');
    if (unstorable(userId, true)) return 0;
    return this.#run('countUser', () => this.#stmt(SQL.countUser).get(userId).n);
  }

  async search(userId, query) {
    checkString(userId, 'search', 'userId');
    checkString(query, 'search', 'query');
    const terms = searchTerms(query);
    if (terms.length === 0 || unstorable(userId, true)) return [];
    const [sql, params] = searchStatement(userId, terms);
    return this.#run('search', () => this.#all(sql, ...params));
  }

  async recall(query) {
    const { userId, agentId, groupId, order, limit } = checkQuery(query, 'recall', { order: true });
    const g = groupId ?? '';
    if (unstorable(userId, true)) return [];
    // An agent or group id that cannot be stored matches no self/group row: '' never does either.
    const a = unstorable(agentId, true) ? '' : agentId;
    const group = unstorable(g, true) ? '' : g;
    const visible = [userId, a, group, group, limit];
    return this.#run('recall', () => (order === 'most_recent' ? this.#all(SQL.recallRecent, ...visible) : this.#all(SQL.recallAccessed, ...visible, ...visible)));
  }

  async findByKey(userId, key) {
    checkString(userId, 'findByKey', 'userId');
    checkString(key, 'findByKey', 'key');
    if (unstorable(userId, true) || unstorable(key, true)) return [];
    return this.#run('findByKey', () => this.#all(SQL.findByKey, userId, key));
  }

  async oldestOwn(query) {
    const { userId, agentId, limit } = checkQuery(query, 'oldestOwn', { order: false });
    if (unstorable(userId, true) || unstorable(agentId, true)) return [];
    return this.#run('oldestOwn', () => this.#all(SQL.oldestOwn, userId, agentId, limit));
  }

  async insertWithinCap(entry, cap) {
    const json = checkEntry(entry, 'insertWithinCap', LIMITS);
    const { maxEntries, evict } = checkCap(cap, 'insertWithinCap');
    const statements = capStatements(entry, json, maxEntries, evict, entryParams(entry, json, bool));
    return this.#run('insertWithinCap', () => this.#db.transaction(() => {
      const [updated, , inserted] = statements.slice(0, 3).map(([sql, params]) => this.#stmt(sql).run(...params).changes);
      return { written: updated + inserted > 0, count: this.#stmt(statements[3][0]).get(...statements[3][1]).n };
    }).immediate(), entry);
  }

  /** Insert every entry (an import) in one `BEGIN IMMEDIATE` transaction, or none: a failing row rolls back them all. */
  async insertAll(entries) {
    const rows = checkEntries(entries, 'insertAll', LIMITS, bool);
    let at = 0;
    try {
      this.#db.transaction(() => {
        for (at = 0; at < rows.length; at++) this.#stmt(SQL.insert).run(...rows[at]);
      }).immediate();
    } catch (error) {
      if (error?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') throw idExists('insertAll', entries[at]?.id ?? null, error);
      throw this.#failure('insertAll', error, entries[at]);
    }
  }

  async read(path) {
    checkStoragePath(path, 'read');
    if (unstorable(path, true)) return null;
    return this.#run('read', () => {
      const row = this.#stmt(SQL.profileRead).get(path);
      return row ? { text: row.text, version: String(row.version) } : null;
    });
  }

  async write(path, text, options = {}) {
    checkProfilePath(path, 'write', LIMITS);
    profileText(text, 'write', LIMITS);
    checkWriteOptions(options, 'write');
    const { ifAbsent, ifVersion } = writeCondition(options);
    const now = new Date().toISOString();
    const outcome = this.#run('write', () => this.#db.transaction(() => {
      this.#stmt(SQL.bumpVersion).run();
      let row;
      if (ifAbsent) row = this.#stmt(SQL.profileCreate).get(path, text, now);
      else if (ifVersion === null) row = this.#stmt(SQL.profilePut).get(path, text, now);
      else {
        const expected = parseVersion(ifVersion);
        if (expected !== null) row = this.#stmt(SQL.profileCas).get(text, now, path, expected);
      }
      if (row) return { version: String(row.version) };
      const actual = this.#stmt(SQL.profileVersion).get(path);
      return { conflict: actual ? String(actual.version) : null };
    }).immediate());
    if ('conflict' in outcome) throw versionConflict(path, ifAbsent ? null : ifVersion, outcome.conflict);
    return outcome;
  }

  async remove(path) {
    checkStoragePath(path, 'remove');
    if (unstorable(path, true)) return;
    this.#run('remove', () => this.#stmt(SQL.profileRemove).run(path));
  }

  /** Profiles need no folders in a table. */
  async ensureRoot(rootFolder) {
    checkStoragePath(rootFolder, 'ensureRoot');
  }

  #stmt(sql) {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #all(sql, ...params) {
    return this.#stmt(sql).all(...params).map((row) => rowEntry(row));
  }

  #run(fn, task, entry) {
    try {
      return task();
    } catch (error) {
      throw this.#failure(fn, error, entry);
    }
  }

  #failure(fn, error, entry) {
    if (error instanceof MemcoreError) return error;
    if (entry && error?.code === 'SQLITE_CONSTRAINT_UNIQUE' && /memcore_entries\.key/.test(error.message)) return identityConflict(fn, entry, error);
    return hostError(fn, error);
  }
}

function hostError(fn, error) {
  const code = error?.code ?? null;
  const closed = /not open/i.test(error?.message ?? '');
  return new MemcoreError('E_HOST', `${fn}: SQLite ${closed ? 'database is closed' : `error: ${error?.message ?? error}`}`, {
    function: fn,
    code,
    transient: code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || code === 'SQLITE_IOERR',
  });
}

// SQLite storage for Node over better-sqlite3@12 (docs/storage.md): one object that is both the
// entry store (with every pushed-down operation) and profile storage, on the schema in
// sql/sqlite/. better-sqlite3 is synchronous, so each method runs to completion before it returns
// its Promise; atomic steps run in `BEGIN IMMEDIATE` transactions.
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { searchPrefilter } from 'memcore';
import { MemcoreError } from '../errors.js';
import { versionConflict } from './memory-storage.js';
import { checkStoragePath, checkWriteOptions, writeCondition } from './storage-arguments.js';
import { SQL, capStatements, searchStatement } from './sql/sqlite-statements.js';
import { checkCap, checkEntries, checkEntry, checkIds, checkQuery, checkString, entryParams, identityConflict, idExists, rowEntry, unstorable } from './sql/entry-rows.js';
import { applySqliteMigrations, checkProfilePath, importProfile, parseVersion, profileText, schemaNewer, SUPPORTED_SCHEMA } from './sql/schema.js';

const DEFAULT_BUSY_TIMEOUT_MS = 5000;
const bool = (b) => (b ? 1 : 0);
const LIMITS = { nul: true, valueSurrogates: true };

/**
 * Open (or adopt) a SQLite database as memcore's entry store and profile storage.
 *
 * `pathOrDatabase`: a file path (its missing folders are created, like `mkdir -p`; opened with WAL
 * and a busy timeout; `close()` closes it), `':memory:'`, or a better-sqlite3 `Database` you
 * opened (used as is; `close()` leaves it open). Migrations are applied at open in one
 * `BEGIN IMMEDIATE` transaction; a database whose schema is newer than this code is refused with
 * `E_HOST` (`details.reason: 'schema-newer'`) untouched.
 *
 * `options.readonly: true` opens an existing file read-only (better-sqlite3 `{ readonly: true,
 * fileMustExist: true }`): nothing is created — no folder, no file, no table — and no migration
 * runs; a database at an older schema is read as it is (`schemaVersion` says which), one without
 * memcore's tables is refused (`reason: 'not-memcore'`), and every write rejects `E_HOST`
 * `reason: 'read-only'`.
 *
 * A file that cannot be opened rejects `E_HOST` with `details: { function, reason, path, code,
 * transient }` and a message naming the cause: `reason` is `'not-found'` (read-only open of a
 * missing file), `'is-a-directory'`, `'not-a-directory'` (a part of the path is a file),
 * `'permission-denied'`, `'read-only'` (a read-write open of a file or folder this process cannot
 * write), `'not-a-database'` (`SQLITE_NOTADB`), `'corrupt'`, `'busy'` (locked past
 * `busyTimeoutMs`, `transient: true`) or `'cannot-open'`; `code` is SQLite's (`SQLITE_CANTOPEN`, …)
 * or the file system's (`EACCES`, …).
 *
 * @example
 * import { openSqlite } from 'memcore/adapters/sqlite';
 * const db = await openSqlite('./.memcore/memcore.db');
 * const tools = createMemoryTools({ store: db, userId, agentId });
 * const memory = new ContextMemory({ storage: db, model });
 */
export async function openSqlite(pathOrDatabase, options = {}) {
  const { busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS, readonly = false } = options ?? {};
  if (!Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new MemcoreError('E_CONFIG', 'openSqlite: options.busyTimeoutMs must be a non-negative integer number of milliseconds', { path: 'busyTimeoutMs' });
  }
  if (typeof readonly !== 'boolean') {
    throw new MemcoreError('E_CONFIG', 'openSqlite: options.readonly must be true or false', { path: 'readonly' });
  }
  let db;
  let owned = false;
  let where;
  if (typeof pathOrDatabase === 'string' && pathOrDatabase.length > 0) {
    where = pathOrDatabase;
    if (readonly && pathOrDatabase === ':memory:') {
      throw new MemcoreError('E_CONFIG', 'openSqlite: a ":memory:" database cannot be opened read-only (it would be empty)', { path: 'readonly' });
    }
    let Database;
    try {
      Database = (await import('better-sqlite3')).default;
    } catch (error) {
      throw new MemcoreError('E_CONFIG', `openSqlite needs the optional peer dependency better-sqlite3@12: npm install better-sqlite3@12 (${error.message})`, { path: 'better-sqlite3' });
    }
    // `:memory:` and `file:` URIs are SQLite's business; a plain path is checked (and its folder
    // created) first, because SQLite names every such failure "unable to open database file".
    if (isPlainFile(pathOrDatabase)) prepareFile(pathOrDatabase, readonly, busyTimeoutMs);
    try {
      db = new Database(pathOrDatabase, readonly ? { readonly: true, fileMustExist: true, timeout: busyTimeoutMs } : { timeout: busyTimeoutMs });
      owned = true;
      // The busy timeout first: switching to WAL needs a lock another process may hold.
      db.pragma(`busy_timeout = ${busyTimeoutMs}`);
      if (pathOrDatabase !== ':memory:' && !readonly) db.pragma('journal_mode = WAL');
    } catch (error) {
      db?.close();
      throw openError(pathOrDatabase, error, { readonly, busyTimeoutMs, file: isPlainFile(pathOrDatabase) });
    }
  } else if (pathOrDatabase && typeof pathOrDatabase.prepare === 'function' && typeof pathOrDatabase.transaction === 'function') {
    db = pathOrDatabase;
    where = typeof db.name === 'string' && db.name !== '' ? db.name : 'the Database passed in';
  } else {
    throw new MemcoreError('E_ARGUMENT', 'openSqlite: pass a file path, ":memory:" or a better-sqlite3 Database', { function: 'openSqlite', argument: 'pathOrDatabase' });
  }
  let version;
  try {
    if (readonly) {
      version = readSchemaVersion(db, where);
    } else {
      applySqliteMigrations(db);
      version = SUPPORTED_SCHEMA;
    }
  } catch (error) {
    if (owned) db.close();
    if (error instanceof MemcoreError) throw error;
    throw openError(where, error, { readonly, busyTimeoutMs, file: owned && isPlainFile(where) });
  }
  return new SqliteStorage(db, owned, version);
}

// What a read-only open finds: the schema version, without creating or changing anything.
function readSchemaVersion(db, where) {
  const table = db.prepare("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'memcore_schema'").get();
  if (!table) {
    throw new MemcoreError('E_HOST', `openSqlite: ${where} holds no memcore tables (never opened read-write by openSqlite); nothing to read`, {
      function: 'openSqlite',
      reason: 'not-memcore',
      path: where,
      transient: false,
    });
  }
  const found = db.prepare(SQL.schemaVersion).get().version;
  if (found > SUPPORTED_SCHEMA) throw schemaNewer('openSqlite', found);
  return found;
}

class SqliteStorage {
  #db;
  #owned;
  #version;
  #statements = new Map();

  constructor(db, owned, version) {
    this.#db = db;
    this.#owned = owned;
    this.#version = version;
  }

  /** The schema version this database is at: the newest this code knows, unless opened read-only. */
  get schemaVersion() {
    return this.#version;
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
    const plan = searchPrefilter(query);
    if (plan.long.length + plan.short.length === 0 || unstorable(userId, true)) return [];
    const [sql, params] = searchStatement(userId, plan);
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

  /**
   * Insert every entry (an import) in one `BEGIN IMMEDIATE` transaction, or none: a failing row
   * rolls back them all. With `{ profile: { path, text } }` the profile is created in the same
   * transaction (create-only: an existing one is `E_VERSION_CONFLICT`, nothing written).
   */
  async insertAll(entries, options) {
    const rows = checkEntries(entries, 'insertAll', LIMITS, bool);
    const profile = importProfile(options, 'insertAll', LIMITS);
    let at = 0;
    try {
      this.#db.transaction(() => {
        for (at = 0; at < rows.length; at++) this.#stmt(SQL.insert).run(...rows[at]);
        if (!profile) return;
        this.#stmt(SQL.bumpVersion).run();
        if (!this.#stmt(SQL.profileCreate).get(profile.path, profile.text, new Date().toISOString())) {
          const actual = this.#stmt(SQL.profileVersion).get(profile.path);
          throw versionConflict(profile.path, null, actual ? String(actual.version) : null);
        }
      }).immediate();
    } catch (error) {
      if (error instanceof MemcoreError) throw error;
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

// SQLite's result codes that say why, beyond "failed". Extended codes (SQLITE_READONLY_DIRECTORY,
// SQLITE_BUSY_SNAPSHOT, …) map by their primary code.
const REASONS = {
  SQLITE_NOTADB: 'not-a-database',
  SQLITE_CORRUPT: 'corrupt',
  SQLITE_BUSY: 'busy',
  SQLITE_LOCKED: 'busy',
  SQLITE_READONLY: 'read-only',
  SQLITE_FULL: 'full',
  SQLITE_IOERR: 'io',
  SQLITE_CANTOPEN: 'cannot-open',
  EACCES: 'permission-denied',
  EPERM: 'permission-denied',
  EROFS: 'read-only',
  ENOTDIR: 'not-a-directory',
  EISDIR: 'is-a-directory',
  ENOENT: 'not-found',
};
const TRANSIENT = new Set(['busy', 'io']);
const reasonOf = (code) => (typeof code === 'string' ? REASONS[code] ?? REASONS[code.replace(/^(SQLITE_[A-Z]+)_.*$/, '$1')] ?? null : null);

// better-sqlite3 throws SqliteError (with `code`) for SQLite failures and plain TypeErrors for its
// own checks; those get a code too, so every error names one.
function driverCode(error) {
  if (typeof error?.code === 'string' && error.code !== '') return error.code;
  const message = String(error?.message ?? '');
  if (/^The database connection is not open$/.test(message)) return 'SQLITE_MISUSE';
  if (/directory does not exist/.test(message)) return 'ENOENT';
  return error?.name && error.name !== 'Error' ? error.name : 'UNKNOWN';
}

function hostError(fn, error) {
  const code = driverCode(error);
  const closed = /^The database connection is not open$/.test(error?.message ?? '');
  const reason = closed ? 'closed' : reasonOf(code);
  const details = { function: fn, code, transient: TRANSIENT.has(reason) };
  if (reason) details.reason = reason;
  return new MemcoreError('E_HOST', `${fn}: SQLite ${closed ? 'database is closed' : `error: ${error?.message ?? error} (${code})`}`, details);
}

/**
 * Check a database file before SQLite opens it, and create its missing folders (read-write only):
 * throws the `openError` naming the cause, which SQLite itself would only call "unable to open".
 */
function prepareFile(path, readonly, busyTimeoutMs) {
  const fail = (error, reason, explain) => {
    throw openError(path, Object.assign(error, { reason, explain }), { readonly, busyTimeoutMs, file: true });
  };
  const denied = (error) => error.code === 'EACCES' || error.code === 'EPERM';
  const folder = dirname(resolve(path));
  let stat = null;
  try {
    stat = statSync(path);
  } catch (error) {
    if (denied(error)) fail(error, 'permission-denied', 'permission denied: a folder on its path cannot be searched by this process');
    if (error.code !== 'ENOENT') fail(error);
  }
  if (stat === null) {
    if (readonly) fail(Object.assign(new Error('no such file'), { code: 'ENOENT' }), 'not-found');
    try {
      mkdirSync(folder, { recursive: true });
    } catch (error) {
      // mkdir answers EEXIST when a file stands where a folder should be.
      if (error.code === 'EEXIST' || error.code === 'ENOTDIR') fail(error, 'not-a-directory');
      if (denied(error)) fail(error, 'permission-denied', `permission denied: cannot create its folder ${folder}`);
      fail(error);
    }
    try {
      accessSync(folder, constants.W_OK | constants.X_OK);
    } catch (error) {
      if (denied(error)) fail(error, 'permission-denied', `permission denied: cannot create it in ${folder}`);
      fail(error);
    }
    return;
  }
  if (stat.isDirectory()) fail(Object.assign(new Error('is a directory'), { code: 'EISDIR' }), 'is-a-directory');
  try {
    accessSync(path, constants.R_OK);
  } catch (error) {
    fail(error, denied(error) ? 'permission-denied' : undefined, denied(error) ? 'permission denied: this process may not read it' : undefined);
  }
  if (readonly) return;
  // SQLite would open a file it cannot write read-only without a word, and fail at the first write.
  try {
    accessSync(path, constants.W_OK);
  } catch (error) {
    fail(error, denied(error) || error.code === 'EROFS' ? 'read-only' : undefined);
  }
}

const CAUSES = {
  'not-found': () => 'it does not exist (a read-only open creates nothing)',
  'is-a-directory': () => 'it is a directory, not a database file',
  'not-a-directory': () => 'a part of its path is a file, not a folder',
  'permission-denied': (path, readonly) => `permission denied (this process may not ${readonly ? 'read it' : 'read and write it, or create it in its folder'})`,
  'read-only': (path, readonly, code) =>
    code === 'SQLITE_READONLY_DIRECTORY'
      ? 'its folder is read-only, and a WAL database needs its -wal and -shm files there'
      : readonly
        ? 'it is read-only'
        : 'it is read-only for this process (open it with { readonly: true } to read it)',
  'not-a-database': () => 'it is not a SQLite database (the file holds something else)',
  corrupt: () => 'the database file is corrupt',
  busy: (path, readonly, code, busyTimeoutMs) => `it is locked by another connection for longer than busyTimeoutMs (${busyTimeoutMs} ms); retry, or raise busyTimeoutMs`,
  full: () => 'the disk is full',
  io: () => 'an I/O error',
};

/** A failed open: `E_HOST` with the cause named (`details.reason`), the path and the code. */
function openError(path, error, { readonly, busyTimeoutMs, file }) {
  let code = driverCode(error);
  let reason = (typeof error?.reason === 'string' && error.reason) || reasonOf(code) || 'cannot-open';
  if (file && (reason === 'cannot-open' || reason === 'not-found')) {
    // SQLite says "unable to open database file" for most causes: look at the file system.
    const found = diagnose(path, readonly);
    if (found) {
      reason = found.reason;
      code = found.code ?? code;
    }
  }
  const cause = (typeof error?.explain === 'string' && error.explain) || CAUSES[reason]?.(path, readonly, code, busyTimeoutMs) || `${error?.message ?? error}`;
  return new MemcoreError('E_HOST', `openSqlite: cannot open the SQLite database ${path}${readonly ? ' read-only' : ''}: ${cause} (${code})`, {
    function: 'openSqlite',
    reason,
    path,
    code,
    transient: TRANSIENT.has(reason),
  });
}

const isPlainFile = (path) => path !== ':memory:' && !path.startsWith('file:');

// Why SQLite could not open `path`, from the file system: `{ reason, code }` or null.
function diagnose(path, readonly) {
  let stat;
  try {
    stat = statSync(path);
  } catch (error) {
    if (error.code !== 'ENOENT') return { reason: reasonOf(error.code) ?? 'cannot-open', code: error.code };
    if (readonly) return { reason: 'not-found', code: 'ENOENT' };
    try {
      accessSync(dirname(resolve(path)), constants.W_OK | constants.X_OK);
    } catch (denied) {
      return { reason: reasonOf(denied.code) ?? 'cannot-open', code: denied.code };
    }
    return null;
  }
  if (stat.isDirectory()) return { reason: 'is-a-directory', code: 'EISDIR' };
  try {
    accessSync(path, readonly ? constants.R_OK : constants.R_OK | constants.W_OK);
  } catch (error) {
    return { reason: reasonOf(error.code) ?? 'cannot-open', code: error.code };
  }
  return null;
}

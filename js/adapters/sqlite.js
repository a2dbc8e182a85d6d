// SQLite storage for Node over better-sqlite3@12 (docs/reference/storage.md): SqlStorage (sql/storage.js)
// over a better-sqlite3 driver and the SQLite dialect, on the schema in sql/sqlite/.
// better-sqlite3 is synchronous, so each method runs to completion before it returns its Promise;
// atomic steps run in `BEGIN IMMEDIATE` transactions.
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { MemcoreError } from '../errors.js';
import { SQL, SQLITE, SQLITE_PACKED } from './sql/sqlite-statements.js';
import { applySqliteMigrations, schemaNewer, SUPPORTED_SCHEMA } from './sql/schema.js';
import { SqlStorage, drive, tenantOption } from './sql/storage.js';
import { MIRROR_SINCE, mirrorBound } from './sql/search-mirror.js';
import { JOURNAL_SINCE } from './sql/history-store.js';

const DEFAULT_BUSY_TIMEOUT_MS = 5000;

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
  const mirror = mirrorBound('openSqlite', options);
  const tenant = tenantOption('openSqlite', options);
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
      // Statement journals in memory: a write's statements run in one transaction, and an entry
      // update touches more pages than SQLite keeps in memory before it spills a statement's
      // journal to a temporary file (64 KiB) — a file created, written and deleted at every such
      // write (docs/internals/decisions.md, "History and audit").
      db.pragma('temp_store = MEMORY');
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
  // The history journal (schema 13): folded by a read-write store; read beside the history
  // tables by a read-only one that finds it (it cannot fold).
  const journal = readonly ? (version >= JOURNAL_SINCE ? 'read' : null) : 'fold';
  return new SqliteStorage(db, owned, version, version >= MIRROR_SINCE ? mirror : 0, tenant, journal);
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

class SqliteStorage extends SqlStorage {
  #db;
  #owned;
  #version;

  constructor(db, owned, version, mirror, tenant, journal) {
    // Vectors are read packed where a BLOB's bytes survive group_concat unchanged (UTF-8).
    super(Object.assign(sqliteDriver(db), { journal }), db.pragma('encoding', { simple: true }) === 'UTF-8' ? SQLITE_PACKED : SQLITE, mirror, tenant);
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

  /**
   * Fold the history journal, then close the database if `openSqlite` opened it (an adopted
   * `Database` stays open).
   */
  async close() {
    if (!this.#db.open) return;
    try {
      // The journal folded: what a read-only open of the file reads without folding.
      await this.foldHistory();
    } finally {
      if (this.#owned) this.#db.close();
    }
  }
}

const ROLLBACK = Symbol('rollback');

/**
 * The better-sqlite3 driver of SqlStorage: synchronous, prepared statements cached, every atomic
 * step and transaction `BEGIN IMMEDIATE`.
 */
function sqliteDriver(db) {
  const statements = new Map();
  // One transaction function for every transaction of this driver: better-sqlite3's
  // `db.transaction(fn)` builds four wrapped functions each call (~15 µs, as much as a small
  // statement), so `task` is passed in instead. Nested calls become savepoints, as before.
  const immediate = db.transaction((task) => task()).immediate;
  const stmt = (sql) => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  const driver = {
    local: true,
    all: (sql, params) => stmt(sql).all(...params),
    first: (sql, params) => stmt(sql).get(...params) ?? null,
    run: (sql, params) => ({ changes: stmt(sql).run(...params).changes }),
    atomic: (list) => immediate(() => list.map(([sql, params]) => {
      const s = stmt(sql);
      return s.reader ? { rows: s.all(...params), changes: 0 } : { rows: [], changes: s.run(...params).changes };
    })),
    transaction(body) {
      let outcome;
      try {
        return immediate(() => {
          outcome = drive(body, ([op, sql, params]) => driver[op](sql, params));
          if (outcome?.rollback) throw ROLLBACK;
          return outcome;
        });
      } catch (error) {
        if (error === ROLLBACK) return outcome.result;
        throw error;
      }
    },
    // A write watched in its own transaction (storage.js, the search mirror following a write):
    // `before()`, the write `task()` (its own transaction becomes a savepoint), `after(seen)` —
    // what no other connection can commit between.
    observe: (before, task, after) => immediate(() => {
      const seen = before();
      const result = task();
      return { seen, result, now: after(seen) };
    }),
    // better-sqlite3 binds a BLOB from a Buffer only: a view of the same bytes, no copy.
    blob: (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    identityViolation: (error) => error?.code === 'SQLITE_CONSTRAINT_UNIQUE' && /memcore_entries\.key/.test(error.message),
    // SQLite does not name the row: SqlStorage knows it (one row a statement).
    duplicateId: (error) => (error?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ? null : undefined),
    hostError,
  };
  return driver;
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

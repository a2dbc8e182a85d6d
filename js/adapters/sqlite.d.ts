// Typings for `memcore/adapters/sqlite` (Node; optional peer dependency better-sqlite3@12).
import type { SearchMirrorOptions, SqlStorage } from './sql-storage.js';

export type { CapOptions, CapResult, NotMemcoreDetails, OldestOwnQuery, RecallQuery, SchemaNewerDetails, SearchMirrorOptions, SqlStorage } from './sql-storage.js';

/** The parts of a better-sqlite3 `Database` the adapter uses (so no @types package is needed). */
export interface BetterSqlite3Database {
  prepare(sql: string): unknown;
  transaction(fn: (...args: never[]) => unknown): unknown;
  exec(sql: string): unknown;
  readonly open: boolean;
}

export interface SqliteOptions {
  /** How long a write waits for another connection's lock (SQLite `busy_timeout`), default 5000. Only for a path. */
  busyTimeoutMs?: number;
  /**
   * Open an existing file read-only (default `false`): nothing is created (no folder, file or
   * table), no migration runs, a database at an older schema is read as it is (`schemaVersion`),
   * one without memcore's tables is `E_HOST` `not-memcore`, and writes reject `E_HOST` `read-only`.
   */
  readonly?: boolean;
  /** The search mirror's bound (docs/reference/storage.md, "Search mirror"): `{ maxEntries }`, default 100,000; 0 turns it off. */
  searchMirror?: SearchMirrorOptions;
  /**
   * Open the view of this tenant (docs/reference/storage.md, "Tenants"): every operation reads and writes
   * that tenant's rows only; absent, the default tenant. 1–128 UTF-8 bytes, no control character,
   * no edge whitespace (`E_CONFIG` otherwise).
   */
  tenant?: string;
}

/** Why a SQLite file could not be opened (`details.reason` of the `E_HOST` error of `openSqlite`). */
export type SqliteOpenFailure =
  | 'not-found'
  | 'is-a-directory'
  | 'not-a-directory'
  | 'permission-denied'
  | 'read-only'
  | 'not-a-database'
  | 'corrupt'
  | 'busy'
  | 'full'
  | 'io'
  | 'cannot-open';

/** `details` of the `E_HOST` error of a SQLite database that cannot be opened; the message names the cause and the path. */
export interface SqliteOpenErrorDetails {
  function: 'openSqlite';
  reason: SqliteOpenFailure;
  /** The path given (or the adopted `Database`'s name). */
  path: string;
  /** SQLite's result code (`SQLITE_NOTADB`, `SQLITE_BUSY`, …) or the file system's (`EACCES`, `EISDIR`, `ENOENT`, `ENOTDIR`, …). */
  code: string;
  /** `true` for `busy` and `io` only. */
  transient: boolean;
}

/** `details` of the `E_HOST` error of any other SQLite failure: `code` always names one. */
export interface SqliteErrorDetails {
  function: string;
  /** SQLite's result code; `SQLITE_MISUSE` for a closed database; the JS error name for the driver's own checks. */
  code: string;
  /** When the code says why: `closed`, `busy`, `read-only`, `not-a-database`, `corrupt`, `full`, `io`, … */
  reason?: string;
  transient: boolean;
}

export interface SqliteStorage extends SqlStorage {
  /** The better-sqlite3 handle. */
  readonly database: BetterSqlite3Database;
}

/**
 * Open a SQLite file (WAL, busy timeout; missing folders are created), `':memory:'`, or adopt a
 * better-sqlite3 `Database`, as entry store + profile storage. Migrations run at open; a newer
 * schema is `E_HOST` `schema-newer`; a file that cannot be opened is `E_HOST` with
 * `SqliteOpenErrorDetails` (`reason`, `path`, `code`). `{ readonly: true }` opens an existing
 * file without creating or migrating anything.
 * @example
 * import { openSqlite } from 'memcore/adapters/sqlite';
 * const db = await openSqlite('./.memcore/memcore.db');
 * const tools = createMemoryTools({ store: db, userId: 'u1', agentId: 'a1' });
 * const memory = new ContextMemory({ storage: db, model });
 */
export function openSqlite(pathOrDatabase: string | BetterSqlite3Database, options?: SqliteOptions): Promise<SqliteStorage>;

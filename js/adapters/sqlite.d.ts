// Typings for `memcore/adapters/sqlite` (Node; optional peer dependency better-sqlite3@12).
import type { SqlStorage } from './sql-storage.js';

export type { CapOptions, CapResult, OldestOwnQuery, RecallQuery, SchemaNewerDetails, SqlStorage } from './sql-storage.js';

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
}

export interface SqliteStorage extends SqlStorage {
  /** The better-sqlite3 handle. */
  readonly database: BetterSqlite3Database;
}

/**
 * Open a SQLite file (WAL, busy timeout), `':memory:'`, or adopt a better-sqlite3 `Database`, as
 * entry store + profile storage. Migrations run at open; a newer schema is `E_HOST` `schema-newer`.
 * @example
 * import { openSqlite } from 'memcore/adapters/sqlite';
 * const db = await openSqlite('./.memcore/memcore.db');
 * const tools = createMemoryTools({ store: db, userId: 'u1', agentId: 'a1' });
 * const memory = new ContextMemory({ storage: db, model });
 */
export function openSqlite(pathOrDatabase: string | BetterSqlite3Database, options?: SqliteOptions): Promise<SqliteStorage>;

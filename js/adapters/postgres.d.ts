// Typings for `memcore/adapters/postgres` (Node; optional peer dependency pg).
import type { SearchMirrorOptions, SqlStorage } from './sql-storage.js';

export type { CapOptions, CapResult, NotMemcoreDetails, OldestOwnQuery, RecallQuery, SchemaNewerDetails, SearchMirrorOptions, SqlStorage } from './sql-storage.js';

/** The parts of a `pg.Pool` the adapter uses (so no @types/pg is needed). */
export interface PgPool {
  query(text: string, values?: unknown[]): Promise<unknown>;
  connect(): Promise<unknown>;
  end(): Promise<void>;
}

export interface PostgresOptions {
  /**
   * Open the view of this tenant (docs/reference/storage.md, "Tenants"): every operation reads and writes
   * that tenant's rows only; absent, the default tenant. 1–128 UTF-8 bytes, no control character,
   * no edge whitespace (`E_CONFIG` otherwise).
   */
  tenant?: string;
  /** Connections of the Pool the adapter creates from a connection string, default 10. */
  max?: number;
  /**
   * Create nothing (default `false`): no migration runs, a database at an older schema is read as
   * it is (`schemaVersion`), one without memcore's tables is `E_HOST` `not-memcore`; a Pool the
   * adapter creates runs read-only transactions, so writes reject `E_HOST` (SQLSTATE `25006`).
   */
  readonly?: boolean;
  /** The search mirror's bound (docs/reference/storage.md, "Search mirror"): `{ maxEntries }`, default 100,000; 0 turns it off. */
  searchMirror?: SearchMirrorOptions;
}

export interface PostgresStorage extends SqlStorage {
  /** The pool queries run on. */
  readonly pool: PgPool;
}

/**
 * Open PostgreSQL (a `pg.Pool`, or a connection string) as entry store + profile storage.
 * Migrations run at open under an advisory lock; a newer schema is `E_HOST` `schema-newer`.
 * @example
 * import { openPostgres } from 'memcore/adapters/postgres';
 * const db = await openPostgres('postgres://memcore@localhost/memcore');
 * const tools = createMemoryTools({ store: db, userId: 'u1', agentId: 'a1' });
 */
export function openPostgres(poolOrConnectionString: string | PgPool, options?: PostgresOptions): Promise<PostgresStorage>;

// The object the SQL adapters (`memcore/adapters/sqlite`, `/postgres`, `/d1`) return: the entry
// store with every pushed-down operation, and profile storage, over one schema (docs/reference/storage.md).
import type { Entry, EntryStore, InMemoryEntryStore, Json } from '../index.js';
import type { ProfileStorage, ProfileWriteOptions, ProfileWriteResult, StoredProfile } from './profile-storage.js';
import type { ApiKeyRow, ApiKeyStore } from '../server.js';

export type { ProfileStorage, ProfileWriteOptions, ProfileWriteResult, StoredProfile, VersionConflictDetails } from './profile-storage.js';

/**
 * The search mirror of a SQL store (`options.searchMirror` of `openSqlite`, `openPostgres`,
 * `openD1`): the most entries all users' mirrors of one store hold together (default 100,000;
 * least recently searched dropped first; 0: no mirror, every ranked search lists the user's
 * entries). A user with more entries than this is never mirrored.
 */
/** One user of `userPage`: entries (the reserved `_gdpr_` keys not counted), episodes, the newest entry update or episode, the processing restriction. */
export interface UserSummary { userId: string; entries: number; episodes: number; lastActivity: string | null; restricted: boolean }

/** A page of users: `next` is the `after` of the next page, null on the last. */
export interface UserPage { users: UserSummary[]; next: string | null }

export interface SearchMirrorOptions {
  maxEntries?: number;
}

/** What `recall` is asked for (behaviour §2.4, §2.5). */
export interface RecallQuery {
  userId: string;
  agentId: string;
  /** The conversation's group; `null` or `''` selects no group entries. */
  groupId?: string | null;
  order: 'most_recent' | 'most_accessed';
  limit: number;
}

/** What `oldestOwn` is asked for: the agent's own non-`_gdpr_` entries, least recently updated first. */
export interface OldestOwnQuery {
  userId: string;
  agentId: string;
  limit: number;
}

/** The cap `insertWithinCap` enforces, and the ids to evict first (only the entry's user's rows). */
export interface CapOptions {
  maxEntries: number;
  evict?: string[];
}

/** `written: false` only when the cap refused a new entry (nothing changed, evictions undone). */
export interface CapResult {
  written: boolean;
  /** The user's non-`_gdpr_` entries, not counting the evicted ones (after the write when written). */
  count: number;
}

/** The vector rows of the store contract (docs/reference/search.md): the same types as `memcore`'s. */
export type { StoredVector, VectorWrite, UnembeddedQuery } from '../index.js';
import type { StoredVector, VectorWrite, UnembeddedQuery } from '../index.js';

/** `details` of the `E_HOST` error of a database written by a newer memcore. */
export interface SchemaNewerDetails {
  function: string;
  reason: 'schema-newer';
  found: number;
  supported: number;
  transient: false;
}

/** `details` of the `E_HOST` error of a read-only open of a database without memcore's tables. */
export interface NotMemcoreDetails {
  function: string;
  reason: 'not-memcore';
  /** SQLite: the path. */
  path?: string;
  transient: false;
}

/**
 * A SQL store: every method returns a Promise. Database failures reject with `MemcoreError`
 * `E_HOST` (`details.transient: true` for a lost connection, a busy database, a serialisation
 * failure); an upsert whose identity belongs to another id rejects with `E_HOST`,
 * `details.reason: 'identity-conflict'`; bad arguments with `E_ARGUMENT`; a failed write condition
 * with `E_VERSION_CONFLICT`, `details: { path, expected, actual }`.
 */
export interface SqlStorage extends EntryStore, ProfileStorage, ApiKeyStore {
  /** The schema version of the database: the newest this code knows, or what a read-only open found. */
  readonly schemaVersion: number;
  /** The tenant this store sees (`null`: the default tenant, the rows written without one). */
  readonly tenantId: string | null;
  /**
   * The same database seen as tenant `tenantId` (docs/reference/storage.md, "Tenants"): equal user ids and
   * entry ids of two tenants are different rows; the view shares the connection (close the store
   * it came from) and is the same object for the same id. `E_ARGUMENT` for a bad id, or when this
   * store is already another tenant's view.
   * @example const acme = db.forTenant('acme'); await listUserMemories(acme, 'u1');
   */
  forTenant(tenantId: string): TenantSqlStorage;
  list(userId: string): Promise<Entry[]>;
  get(id: string): Promise<Entry | null>;
  /** One `INSERT … ON CONFLICT (id) DO UPDATE`. */
  upsert(entry: Entry): Promise<void>;
  delete(id: string): Promise<boolean>;
  /** One `UPDATE … SET access_count = access_count + 1`. */
  incrementAccess(ids: string[]): Promise<void>;
  /** The user's entries whose key is not `_gdpr_`-reserved. */
  countUser(userId: string): Promise<number>;
  /** A superset of the entries the core's search matches (it re-matches them). */
  search(userId: string, query: string): Promise<Entry[]>;
  /** The entries visible to the agent, ordered and cut for recall (`most_accessed`: the union of both orders' top `limit`). */
  recall(query: RecallQuery): Promise<Entry[]>;
  /** Every entry of the user with exactly this key, any agent or visibility. */
  findByKey(userId: string, key: string): Promise<Entry[]>;
  oldestOwn(query: OldestOwnQuery): Promise<Entry[]>;
  /** Evict, then update the entry at the identity in place or insert within the cap — one transaction. */
  insertWithinCap(entry: Entry, cap: CapOptions): Promise<CapResult>;
  /**
   * Insert every entry (an import) in one transaction, or none: SQLite `BEGIN IMMEDIATE`,
   * PostgreSQL one transaction (multi-row inserts of 500), D1 one `batch`. An id already stored
   * rejects with `E_HOST`, `details.reason: 'id-exists'` (and `details.id`, except on D1); a bad
   * entry with `E_ARGUMENT` naming `entries[i].field`; nothing is written either way. With
   * `{ profile: { path, text } }` (what `importUserData` passes when this store is also the
   * profile storage) the profile is created in the same transaction, create-only: an existing
   * one is `E_VERSION_CONFLICT` and nothing is written.
   */
  insertAll(entries: Entry[], options?: { profile?: { path: string; text: string } }): Promise<void>;
  /**
   * The user's vectors made by `model`, any order (schema 5; docs/reference/storage.md "Vectors"). A
   * `vector` may be a view into a buffer shared with the others: read it through its
   * `byteOffset`/`byteLength`, not its whole `buffer`.
   */
  vectors(userId: string, model: string): Promise<StoredVector[]>;
  /**
   * Store each row's vector and model while its entry still has exactly that key and value (one
   * transaction / batch); rows whose entry is gone or changed are skipped. Answers the rows written.
   */
  putVectors(rows: VectorWrite[]): Promise<number>;
  /** Entries with no vector, or a vector of another model, id ascending, ids `> after`, at most `limit`. */
  unembedded(query: UnembeddedQuery): Promise<Entry[]>;
  /**
   * The user's search mirror (schema 6; docs/reference/storage.md "Search mirror"): an in-process copy of
   * the user's entries and of their vectors of `model`, current at the user's revision, which the
   * core ranks in place; `null` when the mirror is off (`searchMirror: { maxEntries: 0 }`, a
   * read-only database below schema 6) or the user's entries exceed its bound.
   */
  searchIndex(userId: string, model: string | null): Promise<InMemoryEntryStore | null>;
  read(path: string): Promise<StoredProfile | null>;
  /** A compare-and-swap on the version column; versions are decimal strings, never reused. */
  write(path: string, text: string, options?: ProfileWriteOptions): Promise<ProfileWriteResult>;
  remove(path: string): Promise<void>;
  /** Tables need no folders: a no-op (the path is still checked). */
  ensureRoot(rootFolder: string): Promise<void>;
  /**
   * The API keys of memcore/server's `apiKeys({ store })` (schema 8): the database's, one table
   * for every tenant (each row names its tenant), the same through every tenant view.
   */
  putApiKey(row: ApiKeyRow): Promise<void>;
  getApiKey(id: string): Promise<ApiKeyRow | null>;
  listApiKeys(query: { tenantId: string | null; userId?: string }): Promise<ApiKeyRow[]>;
  revokeApiKey(id: string, at: string): Promise<boolean>;
  /** Delete the API keys of `userId` (an erasure ends the user's access): in `options.tenantId` when given, else this store's tenant. How many went. */
  deleteApiKeysOf(userId: string, options?: { tenantId?: string | null }): Promise<number>;
  /** Every user id the database holds rows of, in every tenant (`findInvalidUserIds`, `memcore doctor`); on the database's store, not a tenant view. */
  storedUserIds(): Promise<{ tenantId: string | null; userId: string }[]>;
  /**
   * A page of this store's users (its tenant's) for operators — those with entries or episodes, in
   * id order from after `after`, whose id starts with `prefix`, at most `limit` (1–200, default 50);
   * `next` is the `after` of the next page (null: the last page). `GET /admin/users` answers it.
   */
  userPage(query?: { prefix?: string; after?: string | null; limit?: number }): Promise<UserPage>;
  /**
   * A page of a user's entries for operators — the non-reserved ones, newest first, `offset`
   * skipped, at most `limit` (1–1000, default 50), kept by the filters given — and how many the
   * filters keep in all. `writtenBy`: one writer kind, `'written'` (any known kind but
   * `'learned'`) or `'unknown'` (no `writtenBy`). `GET /usermemorystore/memories/{userId}?limit=`
   * answers it.
   * @example
   * const { entries, total } = await store.entryPage({ userId: 'u1', limit: 50, writtenBy: 'learned' });
   */
  entryPage(query: {
    userId: string; limit?: number; offset?: number; category?: string | null; visibility?: string | null; agentId?: string | null;
    writtenBy?: NonNullable<Entry['writtenBy']> | 'written' | 'unknown' | null;
  }): Promise<{ entries: Entry[]; total: number }>;
  /**
   * Apply the history journal now: a SQLite file opened read-write journals each write's history
   * (one row in the write's transaction) and folds it into the history tables every 64 writes,
   * before any read of history and at `close()`; PostgreSQL and D1 journal nothing (0). For a
   * read-only reader of the file (which cannot fold) or before a copy. How many appends it applied.
   * @example
   * const store = await openSqlite('memcore.db');
   * await store.foldHistory(); // 0 when nothing waited
   */
  foldHistory(): Promise<number>;
  close(): Promise<void>;
}

/** A tenant's view of a SQL store: the store's operations without its handle or `close()`. */
export type TenantSqlStorage = Omit<SqlStorage, 'schemaVersion' | 'close'>;

// memcore typings: the memory operations of the HTTP and MCP surfaces (behaviour §2.8); `memcore/server` serves them.
import type { AuditRecord, Entry, EntryStore, EntryVersion, Json, UserMemoryConfigInput, Violation } from './entries.js';
import type { CredentialKind } from './privacy.js';
import type { TimeInput } from './profile.js';
import type { EmbeddingOptions, SearchMode } from './search.js';

/** Options of the surface operations. */
export interface MemoryOperationOptions extends EmbeddingOptions {
  /** The `userMemoryConfig` whose `recallOrder`, `maxRecallEntries`, `maxEntriesPerUser` and `onCapReached` apply. */
  config?: UserMemoryConfigInput;
  /** The deadline of each store call, 1 ms – 1 h (default 10 s). */
  storeTimeoutMs?: number;
  /** Who the host authenticated: the `author.id` of the changes in the entries' history. */
  principal?: string;
  /**
   * Reads only (list, visible, search, by key, count): the state that was current at this time
   * (RFC 3339 text or a `Date`), rebuilt from the entries' history — `validFrom` inclusive,
   * `validUntil` exclusive; a past state has no vector (a `hybrid` search of the past ranks
   * lexically) and carries its entry's current access count. A write given `asOf` is refused.
   */
  asOf?: string | Date;
}

/** A visible-entries query: what agent `agentId` sees in group `groupId`. `limit` 1–1000 (a number or its decimal text). */
export interface VisibleMemoriesQuery { userId: string; agentId: string; groupId?: string | null; order?: 'most_recent' | 'most_accessed' | string; limit?: number | string }

/**
 * Every entry of a user, all visibilities, most recently updated first (`_gdpr_` entries are not shown).
 * @example const entries = await listUserMemories(store, 'user-1');
 */
export function listUserMemories(store: EntryStore, userId: string, options?: MemoryOperationOptions): Promise<Entry[]>;

/**
 * What one agent sees (the recall rule, without counting an access): `{ entries }`, or `{ violations }` for a bad query.
 * @example const r = await getVisibleMemories(store, { userId: 'u1', agentId: 'a1', limit: 10 }); if ('entries' in r) show(r.entries);
 */
export function getVisibleMemories(store: EntryStore, query: VisibleMemoriesQuery, options?: MemoryOperationOptions): Promise<{ entries: Entry[] } | { violations: Violation[] }>;

/**
 * The user's entries for `query`, every visibility: in `terms` mode (the default) those matching
 * every term, newest first (a query without terms matches nothing); in `ranked`/`hybrid` mode the
 * best matches first, at most `limit` (default `config.search.limit`, 10).
 * @example const found = await searchUserMemories(store, 'u1', 'what is my dog called', { mode: 'hybrid', embedder });
 */
export function searchUserMemories(store: EntryStore, userId: string, query: string, options?: MemoryOperationOptions & { mode?: SearchMode; limit?: number }): Promise<Entry[]>;

/**
 * The entry with `key`: the agent's own self/group entry when `agentId` is given and has one, else the global entry.
 * @example const entry = await getMemoryByKey(store, 'u1', 'city', { agentId: 'a1' });
 */
export function getMemoryByKey(store: EntryStore, userId: string, key: string, options?: MemoryOperationOptions & { agentId?: string | null }): Promise<Entry | null>;

/**
 * How many entries count toward `maxEntriesPerUser` (all but `_gdpr_` ones).
 * @example const n = await countUserMemories(store, 'u1');
 */
export function countUserMemories(store: EntryStore, userId: string, options?: MemoryOperationOptions): Promise<number>;

/** What `upsertUserMemory` did; expected refusals are outcomes. */
export type UpsertOutcome =
  | { outcome: 'stored'; entry: Entry; created: boolean; evicted: string[] }
  | { outcome: 'unchanged'; entry: Entry }
  | { outcome: 'invalid'; violations: Violation[] }
  | { outcome: 'full'; message: string }
  | { outcome: 'restricted'; message: string }
  /** The write holds a credential (`field`: `key`, `value` or `value.a.b[2]`; `kind`: the detector's) and `secrets` refuses it: nothing stored. */
  | { outcome: 'secret'; field: string; kind: CredentialKind; message: string }
  /** The request's `id` belongs to another user's entry or kept history (an entry id names one user's entry): nothing stored. REST 409 `E_CONFLICT`. */
  | { outcome: 'conflict'; message: string };

/**
 * Insert or update one entry: `validateMemoryWrite` (surface `rest` names the agent `sourceAgentId`, `mcp` `agentId`), the identity rule, then the cap (`maxEntriesPerUser`, `onCapReached`).
 * @example const r = await upsertUserMemory(store, { userId: 'u1', key: 'city', value: 'Oslo', visibility: 'global' }); if (r.outcome === 'invalid') console.log(r.violations);
 */
export function upsertUserMemory(store: EntryStore, request: Json, options?: MemoryOperationOptions & { surface?: 'rest' | 'mcp'; now?: () => TimeInput; newId?: () => string }): Promise<UpsertOutcome>;

/** What `deleteUserMemory` did. */
export type DeleteOutcome = { outcome: 'deleted'; entry: Entry } | { outcome: 'notFound' } | { outcome: 'reserved' } | { outcome: 'foreign' };

/**
 * Delete one entry by id; with `userId`, only that user's entry (another user's → `foreign`); `_gdpr_` entries → `reserved`.
 * @example const r = await deleteUserMemory(store, entryId, { userId: 'u1' });
 */
export function deleteUserMemory(store: EntryStore, entryId: string, options?: MemoryOperationOptions & { userId?: string | null }): Promise<DeleteOutcome>;

/**
 * Delete every entry of a user except `_gdpr_` ones (behaviour §4.3); resolves to how many were deleted.
 * @example const n = await deleteAllUserMemories(store, 'u1');
 */
export function deleteAllUserMemories(store: EntryStore, userId: string, options?: MemoryOperationOptions): Promise<number>;

/** The history of an entry or a key: the current entries it is about, and their past states, newest first. */
export interface EntryHistory { current: Entry[]; versions: EntryVersion[] }

/**
 * The history of one of the user's entries (`entryId`) or of a key (`key`: every entry of the
 * user that has or had it): the current state(s) and every version kept, newest first
 * (`validUntil` descending, ties by id descending). `_gdpr_` keys show nothing. `E_ARGUMENT`
 * when both or neither of `entryId` and `key` is given, or the store keeps no history.
 * @example const { current, versions } = await entryHistory({ store, userId: 'u1', key: 'city' });
 */
export function entryHistory(request: { store: EntryStore; userId: string; entryId?: string; key?: string } & MemoryOperationOptions): Promise<EntryHistory>;

/**
 * The audit log, for administrators (the host checks who asks): the records of `userId` (or of
 * every user) at or after `since`, numbered above `afterSeq` (paging), at most `limit` (1–1000,
 * default 100), in `seq` order. `E_ARGUMENT` for a bad `since` or `limit`, or a store that keeps
 * no audit log.
 * @example const records = await auditLog({ store, userId: 'u1', since: '2026-05-01T00:00:00Z', limit: 50 });
 */
export function auditLog(request: { store: EntryStore; userId?: string; since?: string | Date; afterSeq?: number; limit?: number; storeTimeoutMs?: number }): Promise<AuditRecord[]>;

/** What `restoreVersion` did: the entry holds the version's state again (`restored`), already held it (`unchanged`), no such version of the user (`notFound`), another current entry of the user holds the identity it lands on (`conflict` with that `entry`) or another user now holds the entry id (`conflict` without `entry`: theirs is never shown; nothing written or audited), a deleted entry cannot come back at the cap (`full`), or the user is restricted (`restricted`). */
export type RestoreOutcome =
  | { outcome: 'restored'; entry: Entry }
  | { outcome: 'unchanged'; entry: Entry }
  | { outcome: 'notFound' }
  | { outcome: 'conflict'; entry?: Entry; message: string }
  | { outcome: 'full'; message: string }
  | { outcome: 'restricted'; message: string };

/**
 * Give an entry one of its past states again (a version's `id` from `entryHistory`), a new change
 * like any other: the replaced state is kept as a version (reason `restored`), the restore is an
 * audit record (`restore`) by `principal`. A deleted entry comes back with its id and
 * `createdAt`; it never evicts (`full` at the cap). `E_ARGUMENT` for a store without history.
 * @example const { versions } = await entryHistory({ store, userId: 'u1', key: 'city' }); await restoreVersion({ store, userId: 'u1', versionId: versions[0].id });
 */
export function restoreVersion(request: { store: EntryStore; userId: string; versionId: string } & MemoryOperationOptions): Promise<RestoreOutcome>;

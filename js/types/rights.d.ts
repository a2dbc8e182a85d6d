// memcore typings: Data-subject rights: restriction, erasure, export, import (behaviour §4.3).
import type { Episode } from './learn.js';
import type { ContextMemory } from './context-memory.js';
import type { Entry, EntryStore, EntryVersion, HistoryErasure, HistorySize, UserMemoryConfigInput } from './entries.js';
import type { Embedder } from './embeddings.js';
import type { CredentialKind } from './privacy.js';
import type { TimeInput } from './profile.js';

/**
 * Set (`true`) or lift (`false`) the user's processing restriction (GDPR Art. 18, behaviour §4.3): the
 * global `_gdpr_processing_restricted` entry. Admin only: without `{ admin: true }` it rejects
 * with `E_ARGUMENT` and touches nothing. While set, the tools refuse writes, properties are not
 * persisted, `afterTurn` (with `hosts.entries`) ends as `restricted` and Dream skips the user.
 * @example await setProcessingRestriction(store, 'u1', true, { admin: true });
 */
export function setProcessingRestriction(store: EntryStore, userId: string, restricted: boolean, options: { admin: boolean; now?: () => TimeInput; newId?: () => string; storeTimeoutMs?: number } & RightsActor): Promise<RestrictionChange>;

/** Who acts in a rights call (the audit record's actor: `{ kind: 'rest', id: principal }`), and the `userMemoryConfig` whose `history` the record follows. */
export interface RightsActor { principal?: string; config?: UserMemoryConfigInput }

/** The restriction after the call, and whether the call changed it. */
export interface RestrictionChange { restricted: boolean; changed: boolean }
/** Whether the user's processing is restricted; rejects when the flag cannot be read (treat that as restricted). */
export function isProcessingRestricted(store: EntryStore, userId: string, options?: { storeTimeoutMs?: number }): Promise<boolean>;

/**
 * The stores a data-subject request covers: entry stores and `ContextMemory`s, one or several.
 * An entry store that is also profile storage (`read`, `write`, `remove`: the SQL stores,
 * `InMemoryProfileStorage`-like objects) holds profiles too, at
 * `<rootFolder>/<userId>/memory.md` — `{ entries: db }` is enough for a SQL store. A store given
 * again (twice as `entries`, or as a `ContextMemory`'s storage) has its profile handled once, by
 * the `ContextMemory` when there is one.
 */
export interface UserDataStores {
  entries?: EntryStore | EntryStore[];
  memory?: ContextMemory | ContextMemory[];
  /** The profile folder in an entry store that holds profiles (default `user-memory`; the rule of `memoryPath`). A `ContextMemory` uses its own `rootFolder`. */
  rootFolder?: string;
  now?: () => TimeInput;
  /** Deadline of each store call in ms (1–3,600,000, default 10,000), profile storage included. */
  storeTimeoutMs?: number;
  /** Who acts: the audit record's actor (behaviour §8.3). */
  principal?: string;
  /** The `userMemoryConfig` whose `history` the audit record follows. */
  config?: UserMemoryConfigInput;
}

/** One store a rights call was given, in the order given. */
export interface RightsStoreReport {
  /** Where it was given: `'options.entries'`, `'options.entries[1]'`, `'options.memory'`, … */
  option: string;
  /** Its class name (`'SqliteStorage'`, `'InMemoryEntryStore'`, `'ContextMemory'`, …), or `'object'`. */
  kind: string;
}

/** What `eraseUserData` did to one store: entries deleted (`null`: not an entry store), its profile (`null`: it holds none, or it was handled through the `ContextMemory` given with it), API keys deleted (`null`: it holds none). */
export interface ErasureStoreReport extends RightsStoreReport {
  entries: number | null;
  /** The versions and audit records removed, and other users' records and versions renamed to the erasure's pseudonym (`null`: not an entry store, or one without history); one record of the erasure itself stays. */
  history: HistoryErasure | null;
  profile: { removed: boolean; folderRemoved: boolean } | null;
  /** The user's API keys deleted from this store (`null`: it holds no keys). */
  keys: number | null;
  /** The user's episodes deleted (`null`: not an entry store, or one that keeps no episodes). */
  episodes: number | null;
}

/** What `eraseUserData` removed: the user's API keys, entries deleted per entry store, each profile erased (in the order of `stores`), and per store given what was done there. */
export interface ErasureReport {
  userId: string;
  /** API keys of the user deleted (every key store given and every entry store that holds keys). */
  keys: number;
  entries: number[];
  /** Per entry store: the versions and audit records removed and renamed (`null`: the store keeps no history). */
  history: (HistoryErasure | null)[];
  /** Per entry store: the episodes deleted (`null`: the store keeps none). */
  episodes: (number | null)[];
  profiles: { removed: boolean; folderRemoved: boolean }[];
  stores: ErasureStoreReport[];
}

/** A store of API keys an erasure deletes the user's keys from: `InMemoryApiKeyStore`, an `apiKeys()` object, a SQL store. */
export interface ApiKeyHolder { deleteApiKeysOf(userId: string, options?: { tenantId?: string | null }): number | Promise<number> }

/**
 * GDPR Art. 17 erasure (behaviour §4.3, §8.3). First the user's access ends: their API keys are
 * deleted from each key store in `keys` and from each entry store that holds keys (the SQL
 * stores), in `tenantId` (default: the entry stores' own tenant). Then every entry (`_gdpr_`
 * ones included) in each entry store with the user's history — other users' audit records and
 * versions that named the user as the one who acted now name the erasure's pseudonym
 * (`sha256:…`), the name its own record gives the user — then the profile `memory.md` with the
 * user's folder (where the storage has folders) in each store that holds profiles — an entry
 * store that is also profile storage, each `ContextMemory`'s storage — once per store.
 * Idempotent. A turn of the user still running in a given `ContextMemory` writes nothing after
 * it; one in another process finds the profile gone and does not re-create it. A JWT the
 * identity provider still issues for the user is the provider's to stop.
 * @example const report = await eraseUserData('u1', { entries: db }); // a SQL store: keys, entries, history and profile
 */
export function eraseUserData(userId: string, options: UserDataStores & { keys?: ApiKeyHolder | ApiKeyHolder[]; tenantId?: string | null }): Promise<ErasureReport>;

/** A user id a store holds data of that the one user-id rule refuses (`checkUserId`), and why. */
export interface InvalidUserId { tenantId: string | null; userId: string; reason: string }

/**
 * The one-off repair of user ids memcore now refuses: every user id `store` holds data of
 * (`storedUserIds()`: the SQL stores, every tenant; an in-memory store lives as long as its process and needs no repair) that
 * `checkUserId` refuses. `memcore doctor` runs it.
 * @example for (const { tenantId, userId } of await findInvalidUserIds(db)) await eraseInvalidUserData(userId, { entries: db, tenantId });
 */
export function findInvalidUserIds(store: EntryStore & { storedUserIds(): { tenantId: string | null; userId: string }[] | Promise<{ tenantId: string | null; userId: string }[]> }): Promise<InvalidUserId[]>;

/** What `eraseInvalidUserData` erased. */
export interface InvalidUserErasure { userId: string; tenantId: string | null; keys: number; entries: number | null; history: HistoryErasure | null; episodes: number | null }

/**
 * Erase the data (entries, history, API keys) stored under a user id memcore refuses, as an
 * erasure does; an id the rule accepts is `E_ARGUMENT` (use `eraseUserData`).
 * @example await eraseInvalidUserData('a/b', { entries: db });
 */
export function eraseInvalidUserData(userId: string, options: { entries: EntryStore; tenantId?: string | null; keys?: ApiKeyHolder | ApiKeyHolder[]; now?: () => TimeInput; storeTimeoutMs?: number } & RightsActor): Promise<InvalidUserErasure>;

/** GDPR Art. 15/20 export document. */
export interface UserDataExport {
  format: 'memcore.user-data';
  version: 1;
  userId: string;
  exportedAt: string;
  restricted: boolean;
  /** Every entry, `_gdpr_` ones included, in id order. */
  entries: Entry[];
  /** The stored profile text byte for byte, `null` without a profile. */
  profile: string | null;
  /** Every version of the user's entries the store kept (by entry id, then `validUntil`, then id); an import restores it. */
  history: EntryVersion[];
  /** How much history the store kept of the user (`null`: it keeps none). Reported, not imported. */
  historySize: HistorySize | null;
  /** The user's episodes (the turns' messages memory learned from), oldest first; an import restores them. */
  episodes: Episode[];
}

/**
 * GDPR Art. 15/20: one JSON document with every entry of the user, the profile text and the
 * restriction state (one entry store and one `ContextMemory`). The profile comes from the
 * `ContextMemory` when given, else from the entry store when it holds profiles.
 * @example const doc = await exportUserData('u1', { entries: db });
 */
export function exportUserData(userId: string, options: { entries?: EntryStore; memory?: ContextMemory; rootFolder?: string; now?: () => TimeInput; storeTimeoutMs?: number } & RightsActor): Promise<UserDataExport>;

/** What `importUserData` wrote to one store (`null`: that part did not go there). */
export interface ImportStoreReport extends RightsStoreReport {
  entries: number | null;
  profile: boolean | null;
}

/**
 * Restore an `exportUserData` document, losslessly, into stores that hold nothing of the user —
 * the profile into the `ContextMemory`'s storage, else into the entry store when it holds
 * profiles. **All or nothing.** Everything is checked before anything is written (`E_ARGUMENT`
 * for a bad document — a version of another user, an id its content does not give it, a version
 * twice, an unknown field — a missing store for a part of it, or a non-empty entry store;
 * `E_CONFLICT` for an id another entry or another user's history holds; `E_VERSION_CONFLICT`
 * when the user already has a profile). The history keeps what `config.history`'s retention
 * keeps (`report.history.dropped` counts the rest). An export carries no vectors: with
 * `embedder` the imported entries are embedded (`report.vectors`), otherwise run
 * `reindexEmbeddings` for hybrid search to find them by meaning (`vectors.reindex`). The entries are written in
 * one transaction by a store with `insertAll` (the SQL stores: SQLite `BEGIN IMMEDIATE`,
 * PostgreSQL one transaction, D1 one batch) — with the profile in the same transaction when that
 * store is also the profile storage (`{ entries: db }`, or a `ContextMemory` over `db`) — else one
 * by one and deleted again — the failing one included — when one fails; a failing profile write
 * deletes the entries again. The rejection is
 * the original error with `details.undo` (`{ entries, profileRemoved, failed }`; when something
 * could not be undone the message says so): after an undone failure the stores hold nothing of
 * the import, and a retry succeeds.
 * @example await importUserData(doc, { entries: otherDb }); // a SQL store: entries and profile
 */
export function importUserData(document: UserDataExport, options: { entries?: EntryStore; memory?: ContextMemory; rootFolder?: string; now?: () => TimeInput; storeTimeoutMs?: number; embedder?: Embedder; embedTimeoutMs?: number; log?: (event: Record<string, unknown>) => void } & RightsActor): Promise<ImportReport>;

/** What `importUserData` restored: entries written, whether a profile was, the credentials it restored, the history, the vectors, and per store given what went there. */
export interface ImportReport { entries: number; profile: boolean; secrets: ImportedSecret[]; history: ImportedHistory; vectors: ImportedVectors; /** Episodes written. */ episodes: number; stores: ImportStoreReport[] }

/** The document's versions restored, and those the retention (`maxVersionsPerEntry`, `retainDays`) dropped. */
export interface ImportedHistory { imported: number; dropped: number }

/**
 * The imported entries' vectors: an export carries none. `dropped`: imported entries (but
 * `_gdpr_` bookkeeping) without their vector; `embedded`: of those, embedded by the `embedder`
 * given; `reindex`: some are still without one — run `reindexEmbeddings`.
 */
export interface ImportedVectors { dropped: number; embedded: number; reindex: boolean }

/**
 * A credential an import restored: the export is the user's own data, so it is written as it
 * was, and named here (by entry id — `null` for the profile — field, path and kind; never by
 * value or key) so the host can decide what to do with it.
 */
export interface ImportedSecret { entryId: string | null; field: 'key' | 'value' | 'body'; path: string; kind: CredentialKind }

/** `details.undo` of an `importUserData` rejection after something was written. */
export interface ImportUndoDetails {
  /** Entry ids deleted again (those written and the one whose write failed). */
  entries: number;
  /** A profile the failed write had stored after all was removed again. */
  profileRemoved: boolean;
  /** What could not be undone: an entry (`entryId`) or the profile (`profile: true`), with the error. */
  failed: { entryId?: string; profile?: true; code: string; message: string }[];
}

// memcore typings: Credentials and the legacy migration (behaviour §4.1, §4.2).
import type { Entry, EntryStore, Json } from './entries.js';
import type { MemcoreErrorCode } from './errors.js';
import type { TimeInput } from './profile.js';

/** Which rule found a credential (stable names; README, "Privacy and data-subject rights"). */
export type CredentialKind =
  | 'field-name'
  | 'authorization-header'
  | 'api-key'
  | 'jwt'
  | 'private-key'
  | 'aws-access-key'
  | 'url-password'
  | 'parameter'
  | 'high-entropy'
  | 'too-deep';

/**
 * What `detectCredential` found. `path` is `""` for the value itself, else like `a.b[2].c`
 * (a name that is empty or holds `.`, `[`, `]` or `"` is written `["…"]`); it is made of field
 * names and indexes only, never of a value.
 */
export type CredentialDetection =
  | { found: true; path: string; kind: CredentialKind }
  | { found: false; path: null; kind: null };

/**
 * Whether a JSON value holds a credential at any depth — objects, arrays, and strings that hold
 * JSON — and where the first one is: credential field names (`password`, `token`, `apiKey`, …,
 * case-insensitive, `-`/`_`/`.` ignored), value shapes (`Bearer …`, `sk-…`, JWTs, PEM private
 * keys, AWS key ids, `user:password@` in URLs, `api_key=` parameters, bot tokens) and
 * high-entropy strings outside structural (id, timestamp) fields. Deliberately cautious.
 * @example
 * detectCredential({ profile: { name: 'Ada', auth: { token: 't0k3n' } } });
 * // { found: true, path: 'profile.auth', kind: 'field-name' }
 */
export function detectCredential(value: Json): CredentialDetection;

/**
 * The value with every credential `detectCredential` would find replaced by `"[REDACTED]"`
 * (a credential field's whole value; only the secret part of a string, so a log line keeps its
 * context; a string holding JSON is redacted inside). A text in, a text out — for logs.
 * @example
 * redactSecrets('GET /v1?api_key=abc123&page=2'); // 'GET /v1?api_key=[REDACTED]&page=2'
 */
export function redactSecrets(value: string): string;
export function redactSecrets(value: Json): Json;

/** Why a legacy key was not inserted (stable names). */
export type LegacyKeySkipReason = 'skip-key' | 'credential' | 'empty-key' | 'reserved-key' | 'exists' | 'duplicate';

/** Why a legacy document was skipped (stable names); none is a failure (`invalid-user-id`: a user id the one user-id rule refuses — `checkUserId` — whose data could never be erased). */
export type LegacyDocumentSkipReason = 'no-user-id' | 'invalid-user-id' | 'not-an-object';

/** Keys left behind for one reason, by name and count — never by value. */
export interface LegacyKeySkip { key: string; reason: LegacyKeySkipReason; kind?: CredentialKind; count: number }

/** What `planPropertiesMigration` decided. */
export interface PropertiesMigrationPlan {
  /** Global entries to insert (category `legacy`). */
  inserts: { userId: string; key: string; value: Json }[];
  skippedKeys: LegacyKeySkip[];
  /** `index` in `legacyDocuments`; `id` the document's `_id` when readable as text. */
  skippedDocuments: { index: number; id: string | null; reason: LegacyDocumentSkipReason }[];
  /** `true` when nothing is left to insert: the legacy collection may be renamed to `properties_migrated_v6`. */
  mayRename: boolean;
}

/** `skipKeys`: exact key names never migrated (default `["userInfo"]`). */
export interface LegacyMigrationOptions { skipKeys?: string[] }

/**
 * Plan the migration of v5 property documents `{ _id, userId, <key>: <value>, … }` into global
 * `legacy` entries (behaviour §4.1). A key in `skipKeys`, holding a credential at any depth, empty or
 * `_gdpr_`-reserved stays behind (not a failure); a key the user already has keeps its value;
 * a document without `userId` is skipped, not failed. Pure and idempotent.
 * @example
 * const plan = planPropertiesMigration(docs, { 'user-1': ['language'] });
 * const report = await applyPropertiesMigration(plan, store);
 * if (report.mayRename) await db.collection('properties').rename('properties_migrated_v6');
 */
export function planPropertiesMigration(
  legacyDocuments: Json[], existingKeysByUser?: Record<string, string[]> | null, options?: LegacyMigrationOptions,
): PropertiesMigrationPlan;

/** What became of one planned insert (stable names). */
export type LegacyInsertOutcome = 'inserted' | 'exists' | 'restricted' | 'refused' | 'failed';

/** What `applyPropertiesMigration` did, per insert and in total. */
export interface PropertiesMigrationReport {
  outcomes: { userId: string; key: string; outcome: LegacyInsertOutcome; id?: string; error?: { code: MemcoreErrorCode | string; message: string } }[];
  inserted: number; existing: number; restricted: number; refused: number; failed: number;
  /** Every insert is in the store (inserted or already there) or was refused by rule: rename the legacy collection. */
  mayRename: boolean;
}

/**
 * Apply a plan through the entry store: per insert, an entry with the key written since the plan
 * wins (`exists`), a user whose processing is restricted is skipped (`restricted`), a store
 * failure is `failed` and the others still run. Ids and times come from `newId` and `now`.
 * Never rejects for a store failure; misuse rejects with `E_ARGUMENT`.
 * @example const report = await applyPropertiesMigration(plan, store, { now: () => new Date() });
 */
export function applyPropertiesMigration(
  plan: PropertiesMigrationPlan, store: EntryStore, options?: { now?: () => TimeInput; newId?: () => string; storeTimeoutMs?: number },
): Promise<PropertiesMigrationReport>;

/**
 * For a store that ran an older migration which copied `userInfo`: the ids of `legacy` entries
 * whose key is in `skipKeys` or whose value holds a credential, and their keys by name and count.
 * @example for (const id of planLegacyCleanup(await store.list(userId)).ids) await store.delete(id);
 */
export function planLegacyCleanup(entries: Entry[], options?: LegacyMigrationOptions): { ids: string[]; keys: LegacyKeySkip[] };

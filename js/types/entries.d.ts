// memcore typings: Entry memory (behaviour §2).
import type { TimeInput } from './profile.js';
import type { EmbeddingOptions, SearchConfigInput, SearchLanguage, SearchMode, VectorStore } from './search.js';

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Who may see an entry (behaviour §2.1). */
export type Visibility = 'self' | 'group' | 'global';

/** The order of recall (behaviour §2.2). */
export type RecallOrder = 'most_recent' | 'most_accessed';

/** What a write at the cap does (behaviour §2.2). */
export type OnCapReached = 'evict_oldest' | 'reject';

/** One memory entry (behaviour §2.1). Timestamps are RFC 3339 UTC. */
export interface Entry {
  id: string;
  userId: string;
  key: string;
  value: Json;
  category: string;
  /** `self`, `group` or `global`; a stored entry may hold another text (then no agent sees it). */
  visibility: Visibility | (string & {});
  sourceAgentId?: string | null;
  groupIds?: string[];
  sourceConversationId?: string | null;
  conflicted?: boolean;
  accessCount?: number;
  createdAt: string;
  updatedAt: string;
  /**
   * The kind of writer of the current state: `'learned'` for a fact learned from a turn
   * (`learnFromTurn`); `'agent'`, `'rest'`, `'mcp'`, `'dream'` or `'migration'` for a written one.
   * Set by every write of memcore (the audit log names the writer's id); absent on an entry
   * written before schema 11 whose writer the audit log no longer named. A store keeps it as given.
   */
  writtenBy?: ChangeAuthor['kind'] | null;
}

/** The entry-store host interface (behaviour §5). Every method may return a Promise. */
export interface EntryStore extends VectorStore {
  list(userId: string): Entry[] | Promise<Entry[]>;
  get(id: string): Entry | null | Promise<Entry | null>;
  upsert(entry: Entry): void | Promise<void>;
  /** `true` (or a non-zero count, or nothing) when deleted; `false`/`0` when there was nothing. */
  delete(id: string): boolean | number | void | Promise<boolean | number | void>;
  incrementAccess(ids: string[]): void | Promise<void>;
  /** Optional pushed-down count of a user's non-`_gdpr_` entries. */
  countUser?(userId: string): number | Promise<number>;
  /** Optional pushed-down search: a superset of the matches (e.g. a SQL prefilter), or `null` to decline. */
  search?(userId: string, query: string): Entry[] | null | Promise<Entry[] | null>;
  /**
   * Optional pushed-down recall: the entries the agent may see (the user's, not `_gdpr_`, and
   * `global`, or `self` of this agent, or `group` with `groupId` in `groupIds`), in `order`
   * (`most_recent`: `updatedAt` descending, ties by id; `most_accessed`: the union of the top
   * `limit` by access count and the top `limit` by recency), at most `limit`; `null` declines.
   * The core re-applies visibility, order and limit to what is returned: over-returning is safe,
   * under-returning loses results.
   */
  recall?(query: RecallQuery): Entry[] | null | Promise<Entry[] | null>;
  /** Optional identity lookup: every entry of the user with exactly this key (any agent or visibility); `null` declines. */
  findByKey?(userId: string, key: string): Entry[] | null | Promise<Entry[] | null>;
  /** Optional eviction candidates: the agent's own non-`_gdpr_` entries, least recently updated first, at most `limit`; `null` declines. */
  oldestOwn?(query: OwnEntriesQuery): Entry[] | null | Promise<Entry[] | null>;
  /**
   * Optional atomic capped insert of a new entry, in one transaction: delete the `evict` ids, then
   * — when an entry already has the new entry's identity (a concurrent writer) — update it in
   * place, else insert unless the user holds `maxEntries` non-`_gdpr_` entries (then change
   * nothing, the deletes included). Without it the core counts, deletes and upserts itself, which
   * is not atomic across processes. `null` declines.
   */
  insertWithinCap?(entry: Entry, options: { maxEntries: number; evict: string[] }): CapWrite | null | Promise<CapWrite | null>;
  /**
   * Optional atomic insert of new entries (`importUserData`): write every entry in one
   * transaction, or none — an id already stored, or any failing row, fails the whole call with
   * nothing written. Resolving means all were written. Without it the core checks that no id is
   * stored yet, upserts one at a time and, when one fails, deletes every id it wrote and the
   * failing one (not atomic across processes). When the same object is also the profile
   * storage of the import, the core passes `{ profile: { path, text } }`: create that profile in
   * the same transaction, create-only (a store that ignores the option still works: the core
   * reads the profile back and writes it the usual way when it is missing).
   */
  insertAll?(entries: Entry[], options?: { profile?: { path: string; text: string } }): void | Promise<void>;
  /**
   * Optional history (every bundled store has it): in one transaction where the store can, append
   * `append.versions` (an id already stored is skipped) and `append.audit` (numbered by the store:
   * `seq`, ascending), then keep the newest `maxVersionsPerEntry` versions of each entry just
   * versioned (by `validUntil`, then id) and drop the user's versions whose `validUntil`, and
   * audit records whose `at`, is before `notBefore` (an `erase` record stays). Called before the
   * change it records. A store without it keeps no history: every write then overwrites as
   * before.
   */
  appendHistory?(append: HistoryAppend): void | Promise<void>;
  /**
   * Optional, with `appendHistory`: `appendHistory(append)` and then `upsert(entry)` as one step,
   * both or neither (the bundled SQL stores: one transaction on SQLite, one batch on D1, one
   * statement on PostgreSQL). Without it the core calls the two in turn.
   */
  writeWithHistory?(entry: Entry, append: HistoryAppend): void | Promise<void>;
  /**
   * Optional, with `appendHistory`: `appendHistory(append)` and then `delete(id)` as one step,
   * both or neither; answers as `delete` does. Without it the core calls the two in turn.
   */
  deleteWithHistory?(id: string, append: HistoryAppend): boolean | Promise<boolean>;
  /**
   * Optional, with `appendHistory`: `insertWithinCap(entry, options)` and, when it writes,
   * `appendHistory(append)` as one step, both or neither — a refused insert (`written: false`)
   * appends nothing; answers as `insertWithinCap` does (the bundled SQLite and PostgreSQL stores:
   * one transaction; D1 stores do not have it). Without it the core appends, then inserts.
   */
  insertWithHistory?(entry: Entry, options: { maxEntries: number; evict: string[] }, append: HistoryAppend): CapWrite | null | Promise<CapWrite | null>;
  /** Optional history: the user's versions (of one entry, or whose key was `key`), any order. */
  versions?(query: VersionQuery): EntryVersion[] | Promise<EntryVersion[]>;
  /** Optional audit log: the records of `userId` (or every user's) at or after `since`, numbered above `afterSeq`, at most `limit`, in `seq` order. */
  auditLog?(query: AuditQuery): AuditRecord[] | Promise<AuditRecord[]>;
  /**
   * Optional (Art. 17), in one transaction: remove every version and audit record of the user;
   * rename the user where it says who acted in the rest of the history — `actor.id` of other
   * users' audit records becomes `renames.pseudonym`, and each of `renames.versions` replaces the
   * version `replaces` (the same state with the pseudonym as `author.id`, under its own content
   * id); append `record` (the erasure's own). Answers what was removed and, with `renamed`, what
   * was renamed (a store that answers no `renamed` is reported as not renaming).
   */
  eraseHistory?(userId: string, record: AuditRecord, renames: HistoryRenames): HistoryErasure | Promise<HistoryErasure>;
  /** Optional: how many versions and audit records the store keeps of the user. */
  historySize?(userId: string): HistorySize | Promise<HistorySize>;
  /** Optional: the versions of any user whose `author.id` is `authorId` (an erasure renames them). */
  versionsByAuthor?(authorId: string): EntryVersion[] | Promise<EntryVersion[]>;
  /**
   * Optional ownership lookup (behaviour §8.3, "Entry ids": an entry id belongs to one user): for
   * each of `ids` the store holds, who holds it — the user of the current entry (`current:
   * true`), and each user whose kept versions carry it (`current: false`). Without it the core
   * asks `get` per id, which sees current entries only.
   */
  idHolders?(ids: string[]): IdHolder[] | Promise<IdHolder[]>;
}

/** Who holds an entry id (`EntryStore.idHolders`). */
export interface IdHolder { id: string; userId: string; current: boolean }

/** What an erasure renames in the rest of the history (`EntryStore.eraseHistory`). */
export interface HistoryRenames {
  /** The erasure's name of the user (`sha256:…`), which replaces the user's id as the actor of other users' audit records. */
  pseudonym: string;
  /** Other users' versions the user ended, each replaced by the same state under the pseudonym. */
  versions: VersionRename[];
}
/** One version an erasure renames: the id it replaces, and the renamed version (its own content id). */
export interface VersionRename { replaces: string; version: EntryVersion }
/** What `EntryStore.eraseHistory` did: the user's versions and audit records removed, and what it renamed in other users' history (`null`: it does not rename). */
export interface HistoryErasure { versions: number; audit: number; renamed: HistoryRenamed | null }
/** Other users' audit records and versions that named the erased user as the one who acted, renamed to the pseudonym. */
export interface HistoryRenamed { audit: number; versions: number }

/** What `EntryStore.recall` is asked. */
export interface RecallQuery { userId: string; agentId: string; groupId: string | null; order: RecallOrder; limit: number }
/** What `EntryStore.oldestOwn` is asked. */
export interface OwnEntriesQuery { userId: string; agentId: string; limit: number }
/** What `EntryStore.insertWithinCap` answers: `written: false` when the user was full (then `count` is what the store counted). */
export interface CapWrite { written: boolean; count: number }

/**
 * The bundled in-memory entry store. Entries live inside the wasm instance, so recall and search
 * over thousands of entries copy only what they return.
 * @example const store = new InMemoryEntryStore(); const tools = createMemoryTools({ store, userId, agentId });
 */
export class InMemoryEntryStore implements EntryStore {
  constructor();
  list(userId: string): Entry[];
  get(id: string): Entry | null;
  upsert(entry: Entry): void;
  delete(id: string): boolean;
  incrementAccess(ids: string[]): void;
  countUser(userId: string): number;
  /**
   * Insert or replace many entries in one call, then store `vectors.rows` as vectors of
   * `vectors.model` on those entries as they now are (a row whose entry is not here is skipped);
   * answers the number of vectors stored. How the SQL stores build their search mirrors.
   * @example store.load(entries, { model: 'text-embedding-3-small', rows: [{ id: 'e1', vector: bytes }] });
   */
  load(entries: Entry[], vectors?: { model: string; rows: { id: string; vector: Uint8Array }[] } | null): number;
  /**
   * Free the store's memory in the core now instead of when the store is garbage-collected (the
   * wasm heap never shrinks; what is freed is reused). Every later call throws `E_ARGUMENT`; a
   * second `free()` does nothing. The SQL stores free the search mirrors they drop this way.
   * @example const scratch = new InMemoryEntryStore(); scratch.load(entries); … ; scratch.free();
   */
  free(): void;
  /** Number of entries of all users. */
  readonly size: number;
  /** The tenant this store holds (`null`: the default tenant). */
  readonly tenantId: string | null;
  /**
   * The store of tenant `tenantId`: a separate InMemoryEntryStore, the same one for the same id
   * (docs/reference/storage.md, "Tenants"). `E_ARGUMENT` for a bad id or from a tenant's store.
   * @example const acme = store.forTenant('acme');
   */
  forTenant(tenantId: string): InMemoryEntryStore;
}

/** The `userMemoryConfig` block (behaviour §2.2), every field optional; defaults filled by `parseUserMemoryConfig`. */
export interface UserMemoryConfigInput {
  maxEntriesPerUser?: number;
  maxRecallEntries?: number;
  recallOrder?: RecallOrder;
  onCapReached?: OnCapReached;
  defaultVisibility?: Visibility;
  guardrails?: { maxKeyLength?: number; maxValueLength?: number; maxWritesPerTurn?: number; allowedCategories?: string[] };
  dream?: Partial<DreamConfig>;
  /**
   * What an entry write that holds a credential does (the detector of `detectCredential`, on the
   * key and on the value read under it): `'refuse'` (default — the tools answer
   * `⚠️ Value looks like a credential (<kind>); it was not stored.`, REST/MCP 400 `E_SECRET`),
   * `'redact'` (each secret stored as `[redacted]`; a secret in the key is still refused) or
   * `'allow'`. Applies to the tools, REST/MCP upserts, properties, `mergeProperties` and Dream.
   */
  secrets?: SecretPolicy;
  /** How `searchMemory` and the search operations find entries (`auto` — the default: `hybrid` with an embedder, `ranked` without — `terms`, `ranked`, `hybrid`). */
  search?: SearchConfigInput;
  /** What an entry's history keeps (see `entryHistory`). With history on, the tools offer `memoryHistory` too. */
  history?: Partial<HistoryConfig>;
  /** What the tool answers show besides each entry: `dates` appends ` (since YYYY-MM-DD)` (default false). */
  answers?: Partial<AnswersConfig>;
  /** What `learnFromTurn` (and `ContextMemory`'s `learn`) learns from a turn. */
  learn?: Partial<LearnConfig>;
}

/** `userMemoryConfig.answers`. */
export interface AnswersConfig {
  /** Append ` (since YYYY-MM-DD)` — the entry's `updatedAt` date, UTC — to each recall/search line (default false). */
  dates: boolean;
}

/** `userMemoryConfig.learn`. */
export interface LearnConfig {
  /** Extract facts into entries (default true). */
  facts: boolean;
  /** Keep the turn's messages as episodes (default true). */
  episodes: boolean;
  /** Stored entries shown to the extraction so a known fact keeps its key (default 20, 0–100). */
  candidates: number;
  /** Facts applied from one turn at most (default 10, 1–100); the rest are counted in `ignored`. */
  maxFactsPerTurn: number;
  /** Episodes kept this many days (default 90). */
  episodeRetainDays: number;
}

/** `userMemoryConfig.history`. */
export interface HistoryConfig {
  /** Keep versions (default `true`); `false`: a change overwrites, as before history existed. */
  enabled: boolean;
  /** Versions that ended more than this many days ago are dropped, on every write and by Dream (default 30, 1–36500). */
  retainDays: number;
  /** At most this many versions of one entry are kept, the newest (default 10, 1–1000). */
  maxVersionsPerEntry: number;
}

/** Who made a change: an agent (its id), Dream (the agent whose schedule ran it), REST or MCP (the principal, when known), the legacy migration. */
export interface ChangeAuthor { kind: 'agent' | 'dream' | 'rest' | 'mcp' | 'migration' | 'learned'; id: string | null }

/** Why a state ended. */
export type ChangeReason = 'updated' | 'overwritten' | 'deleted' | 'deleted_all' | 'evicted' | 'pruned' | 'summarised' | 'rolled_back' | 'restored' | 'migrated';

/**
 * A past state of an entry: its fields then, when it was current (`validFrom` inclusive — the
 * state's `updatedAt` — to `validUntil` exclusive, a millisecond UTC instant), who ended it
 * (`author`) and why (`reason`), and the entry holding the next state (`supersededBy`: the same
 * id after an update, a Dream summary, `null` after a delete). The state's own writer is
 * `sourceAgentId`. `id` is derived from the content: the same version appended twice is one.
 */
export interface EntryVersion {
  id: string; entryId: string; userId: string; key: string; value: Json; category: string; visibility: Visibility;
  sourceAgentId: string | null; groupIds: string[]; sourceConversationId: string | null; createdAt: string;
  validFrom: string; validUntil: string; author: ChangeAuthor; reason: ChangeReason; supersededBy: string | null;
}

/** One append to a user's history (`appendHistory`). */
export interface HistoryAppend { userId: string; versions: EntryVersion[]; audit: AuditRecord[]; maxVersionsPerEntry: number; notBefore: string }

/** What an audit record says happened. */
export type AuditOperation = 'write' | 'delete' | 'restore' | 'erase' | 'restrict' | 'unrestrict' | 'import' | 'export' | 'learn';

/**
 * Where a learned change came from: the conversation, the ids of the turn's episodes (empty when
 * episodes are off or none was kept) and when the turn happened (millisecond UTC).
 */
export interface LearnedSource { conversationId: string; episodeIds: string[]; at: string }

/**
 * One audit record: when (`at`, millisecond UTC), who (`actor`), what (`operation`), whose data
 * (`userId`), which entry and key — never a value; `items` counts what an erasure removed, an
 * import or export carried, or the episodes a learning kept (`learn`). `source`: where a learned
 * change came from (`learn` records and the `write`/`delete` records of learned facts). `seq` is
 * the store's number, ascending in append order.
 */
export interface AuditRecord { seq?: number; at: string; actor: ChangeAuthor; operation: AuditOperation; userId: string; entryId: string | null; key: string | null; items: number | null; source?: LearnedSource }

/** Which audit records `auditLog` answers. */
export interface AuditQuery { userId?: string; since?: string; afterSeq?: number; limit: number }

/** How much history a store keeps of a user. */
export interface HistorySize { versions: number; audit: number }

/** Which versions `versions` answers. */
export interface VersionQuery { userId: string; entryId?: string; key?: string }

/** What a write that holds a credential does (`refuse`, `redact`, `allow`). */
export type SecretPolicy = 'refuse' | 'redact' | 'allow';

/** What Dream does with the originals it prunes or summarises. */
export type DreamMode = 'supersede' | 'delete';

/** Dream settings (behaviour §2.2). */
export interface DreamConfig {
  enabled: boolean; pruneStaleAfterDays: number; detectContradictions: boolean; summarizeInteractions: boolean;
  summarizeMinEntries: number; summarizeTargetEntries: number; summarizeGroupBy: 'category' | 'all';
  preserveAgentProvenance: boolean; crossAgentMaintenance: boolean; maxCostPerRun: number; parameters: Record<string, Json>;
  /** `'supersede'` (default): what Dream prunes or summarises is kept in the history, restorable; `'delete'`: behaviour §3 exactly, nothing kept. */
  mode: DreamMode;
}

/** A parsed config with every default filled. */
export interface UserMemoryConfig {
  maxEntriesPerUser: number; maxRecallEntries: number; recallOrder: RecallOrder;
  onCapReached: OnCapReached; defaultVisibility: Visibility;
  guardrails: { maxKeyLength: number; maxValueLength: number; maxWritesPerTurn: number; allowedCategories: string[] };
  dream: DreamConfig;
  secrets: SecretPolicy;
  search: { mode: SearchMode; language: SearchLanguage; limit: number };
  history: HistoryConfig;
  answers: AnswersConfig;
  learn: LearnConfig;
}

/**
 * Validate a `userMemoryConfig` block: defaults filled; unknown enum values, negative limits,
 * `summarizeTargetEntries < 1` → `E_CONFIG` with `details.path` (e.g. `guardrails.maxKeyLength`).
 * @example parseUserMemoryConfig(agent.userMemoryConfig).maxRecallEntries; // 50
 */
export function parseUserMemoryConfig(config: UserMemoryConfigInput | Json): UserMemoryConfig;

/**
 * Whether the four tools are attached (behaviour §2.3); the warning names the missing parts.
 * @example const { attached, warning } = resolveMemoryTools(agentJson, langchainTaskJson);
 */
export function resolveMemoryTools(agentConfig: Json, llmTaskConfig: Json): ToolAttachment;

/** Whether the tools are attached; `warning` names every missing part (`null` when attached or nothing asked for them). */
export interface ToolAttachment { attached: boolean; warning: string | null }

/**
 * Search terms of a query: split on everything that is not a Unicode letter or digit, lowercased.
 * @example searchTerms('dog-name'); // ['dog', 'name']
 */
export function searchTerms(query: string): string[];

/** An entry as a SQL store writes it: its key, `updatedAt` and the value's JSON text as stored (`JSON.stringify`'s output). */
export interface IndexedEntry { key: string; updatedAt: string; valueJson: string }

/**
 * The derived columns a SQL store keeps next to an entry (docs/reference/storage.md, "Derived columns"):
 * `updatedSort` (byte order = the core's recency order), `reserved` (the `_gdpr_` rule on the
 * stored key) and `searchText` (the search prefilter's text; `null` = a candidate of every search).
 */
export interface IndexColumns { updatedSort: string; reserved: boolean; searchText: string | null }

/**
 * The derived columns of each entry, computed by the core (one call for a whole batch).
 * @example const [{ updatedSort, reserved, searchText }] = indexColumns([{ key: 'dog', updatedAt: now, valueJson: JSON.stringify('Rex') }]);
 */
export function indexColumns(entries: IndexedEntry[]): IndexColumns[];

/** One prefilter test: a row passes when its `search_text` contains any of these patterns. */
export interface PrefilterTest { anyOf: string[] }

/**
 * How a SQL store prefilters a search on `search_text` (a superset of what the core matches; the
 * core re-checks): every test must pass, or `search_text` is NULL. `long` tests (patterns of 3+
 * characters) can use a trigram index; `short` ones are tested on the candidates. No tests: the
 * query has no terms and matches nothing.
 * @example const { long, short } = searchPrefilter('dog name');
 */
export function searchPrefilter(query: string): { long: PrefilterTest[]; short: PrefilterTest[] };

/**
 * Whether every term occurs, case-insensitively, in the entry's key or value.
 * @example matchesQuery('dog name', entry);
 */
export function matchesQuery(query: string, entry: Entry): boolean;

/**
 * The one visibility predicate of recall, search and forget.
 * @example isVisible(entry, 'agent-a', 'group-1');
 */
export function isVisible(entry: Entry, agentId: string, group?: string | null): boolean;

/**
 * A client request context without the reserved keys (`groupId`, `userId`, `agentId`, `conversationId`).
 * @example const ctx = filterClientContext(request.context);
 */
export function filterClientContext(context: Record<string, Json>): Record<string, Json>;

/** The host's confirmation about a discussion named on an earlier step. */
export interface GroupAttestation { discussionRunningHere: boolean; conversationIsMember: boolean; discussionGroupId: string | null }

/**
 * The group of a turn (behaviour §2.4): the injected context's `groupId`; else an earlier step's group
 * only when the host attests it; else `null` (self-scoped).
 * @example resolveGroupContext({ injectedContext: { groupId: 'G1' } }); // 'G1'
 */
export function resolveGroupContext(inputs: {
  injectedContext?: { groupId?: string | null } | null;
  earlierSteps?: { groupId?: string | null }[];
  hostAttestation?: GroupAttestation | null;
}): string | null;

/** One broken write rule. */
export interface Violation { field: string; message: string }

/**
 * REST/MCP write rules (behaviour §2.6): every violation at once; empty when valid.
 * @example const problems = validateMemoryWrite(body, { surface: 'rest' }); if (problems.length) return Response.json(problems, { status: 400 });
 */
export function validateMemoryWrite(request: Json, options?: { surface?: 'rest' | 'mcp' }): Violation[];

/** JSON-schema tool definitions for OpenAI, Anthropic and MCP. */
export interface ToolDefinitions { openai: Json[]; anthropic: Json[]; mcp: Json[] }

/**
 * The four tools' definitions for a config (its categories go into the schema).
 * @example openai.chat.completions.create({ tools: toolDefinitions(config).openai, … });
 */
export function toolDefinitions(config?: UserMemoryConfigInput): ToolDefinitions;

/** The tool names (the four tools, and `memoryHistory` where history is on). */
export type MemoryToolName = 'rememberFact' | 'recallMemories' | 'searchMemory' | 'forgetFact' | 'memoryHistory';

/**
 * A tool name as `call`/`run` take it: one of {@link MemoryToolName} when written as a literal (a
 * misspelt name does not compile), or any `string` from a model's tool call (checked at run time:
 * an unknown name answers `⚠️ Unknown memory tool 'X'. …`).
 */
export type ToolNameArgument<N extends string> = N & (string extends N ? string : MemoryToolName);

/** Options of `createMemoryTools`. With an `embedder`, `rememberFact` stores the vector of what it wrote and a `hybrid` `searchMemory` embeds its query; embedding failures never change an answer (they are logged). */
export interface MemoryToolsOptions extends EmbeddingOptions {
  /** A span and an answer count per tool call (`createTelemetry` of memcore/telemetry). */
  telemetry?: import('../telemetry.js').Telemetry | null;
  store: EntryStore;
  config?: UserMemoryConfigInput;
  userId: string;
  agentId: string;
  /** The turn's group, from `resolveGroupContext` only. */
  group?: string | null;
  conversationId?: string | null;
  /** The host clock (default `Date.now`). */
  now?: () => TimeInput;
  /** The host id source (default: 128 random bits as hex). */
  newId?: () => string;
  /** Deadline of each store call in ms (1–3,600,000, default 10,000): a store that never answers fails that tool call. */
  storeTimeoutMs?: number;
}

/** The tools of one agent turn. */
export interface MemoryTools {
  readonly definitions: ToolDefinitions;
  /** Run a tool with the model's arguments (object or JSON string); resolves to the exact answer. Never rejects. */
  call<N extends string>(name: ToolNameArgument<N>, args?: unknown): Promise<string>;
  /** Like `call`, with whether the store was written. */
  run<N extends string>(name: ToolNameArgument<N>, args?: unknown): Promise<{ text: string; wrote: boolean }>;
  /** Start the next turn (`maxWritesPerTurn` counts from zero). */
  newTurn(): void;
  readonly writesThisTurn: number;
}

/**
 * The four LLM tools with byte-exact answers (behaviour §2.5). Calls run one at a time, in order.
 * @example
 * const tools = createMemoryTools({ store, userId: 'user-123', agentId: 'agent-456' });
 * await tools.call('rememberFact', { key: 'favorite_color', value: 'blue', category: 'preference' });
 * // '✅ Remembered: favorite_color = blue [preference, self]'
 */
export function createMemoryTools(options: MemoryToolsOptions): MemoryTools;

/** A `longTerm` conversation property. */
export interface LongTermProperty { name: string; value: Json; visibility?: Visibility }

/** What `persistLongTermProperties` did; `refused` pairs a key with the reason. */
export interface PersistReport { stored: string[]; unchanged: string[]; refused: [string, string][]; restricted: boolean }

/**
 * Persist `longTerm` properties as entries (category `property`; visibility `property.visibility ?? defaultVisibility`).
 * @example await persistLongTermProperties(store, [{ name: 'language', value: 'de' }], { userId, agentId, config });
 */
export function persistLongTermProperties(
  store: EntryStore, properties: LongTermProperty[],
  options: { config?: UserMemoryConfigInput; userId: string; agentId: string; group?: string | null; conversationId?: string | null; now?: () => TimeInput; newId?: () => string; storeTimeoutMs?: number },
): Promise<PersistReport>;

/**
 * The legacy flat view `{ key: value }` over the user's global entries.
 * @example const props = await readProperties(store, 'user-123');
 */
export function readProperties(store: EntryStore, userId: string, options?: { storeTimeoutMs?: number }): Promise<Record<string, Json>>;

/**
 * Legacy merge into global entries; resolves to the number written. `_gdpr_` keys → `E_ARGUMENT`;
 * a pair holding a credential → `E_SECRET` (`details: { key?, field, kind }`, nothing merged)
 * unless `options.config.secrets` is `'redact'` or `'allow'`.
 * @example await mergeProperties(store, 'user-123', { theme: 'dark' });
 */
export function mergeProperties(store: EntryStore, userId: string, properties: Record<string, Json>, options?: { config?: UserMemoryConfigInput; storeTimeoutMs?: number; now?: () => TimeInput; newId?: () => string; principal?: string }): Promise<number>;

/**
 * Legacy delete of the user's global, non-`_gdpr_` entries; resolves to the number deleted.
 * @example await deleteProperties(store, 'user-123');
 */
export function deleteProperties(store: EntryStore, userId: string, options?: { config?: UserMemoryConfigInput; storeTimeoutMs?: number; now?: () => TimeInput; principal?: string }): Promise<number>;

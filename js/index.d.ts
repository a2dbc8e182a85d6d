// Typings for the `memcore` package (every runtime entry exports the same API).

/** Stable error codes (README, "Errors"). */
export type MemcoreErrorCode =
  | 'E_ARGUMENT'
  | 'E_NOT_INITIALIZED'
  | 'E_INVALID_USER_ID'
  | 'E_TOO_LARGE'
  | 'E_CONFIG'
  | 'E_NO_TOKENIZER'
  | 'E_HOST'
  | 'E_VERSION_CONFLICT'
  | 'E_SECRET'
  | 'E_INTERNAL';

/**
 * The one error class memcore throws.
 * @example
 * try { parseProfile(42 as any) } catch (e) { if (e instanceof MemcoreError) console.log(e.code) } // "E_ARGUMENT"
 */
export class MemcoreError extends Error {
  constructor(code: MemcoreErrorCode, message: string, details?: unknown);
  readonly name: 'MemcoreError';
  /** Stable code; switch on this, not on the message. */
  readonly code: MemcoreErrorCode;
  /** Structured details: `{ function, argument }` for E_ARGUMENT, `{ path }` for E_CONFIG, … */
  readonly details?: Record<string, unknown>;
}

/**
 * The memcore version.
 * @example version() // "0.1.0"
 */
export function version(): string;

// ─── Profile format (SPEC §1.2, §1.3, §1.6) ────────────────────────────────────────────────────

/** One unknown frontmatter key, with its value as YAML text. */
export interface FrontmatterField { key: string; value: string }

/** The YAML frontmatter. The application writes it, never the model. */
export interface Frontmatter {
  userId: string | null;
  schemaVersion: number | null;
  /** As written, normally `YYYY-MM-DDTHH:MM:SS+00:00`. */
  lastUpdated: string | null;
  /** Number of profile rewrites; missing or unparsable reads as 0; at most 2^53 − 1 (saturates). */
  turnCount: number;
  /** Unknown keys, in file order. */
  extra: FrontmatterField[];
}

/** One `##` section: its canonical heading and its content lines (no heading line). */
export interface Section { heading: string; lines: string[] }

/** A profile. From `parseProfile` it always holds the six canonical sections, in order. */
export interface Profile {
  frontmatter: Frontmatter;
  /** The `#` title as read; rendering always writes `# User Memory`. */
  title: string | null;
  sections: Section[];
}

/** Stable diagnostic codes of the lenient parser. */
export type DiagnosticCode =
  | 'missing-frontmatter' | 'unterminated-frontmatter' | 'frontmatter-too-large' | 'invalid-yaml'
  | 'invalid-frontmatter' | 'invalid-user-id' | 'invalid-schema-version' | 'invalid-last-updated'
  | 'invalid-turn-count' | 'turn-count-out-of-range' | 'duplicate-frontmatter-key'
  | 'frontmatter-in-body' | 'missing-title' | 'unexpected-title' | 'stray-content'
  | 'unknown-section' | 'duplicate-section' | 'reordered-sections' | 'heading-variant'
  | 'missing-section' | 'unclosed-code-fence';

/** A finding of the parser: data, never an exception. */
export interface Diagnostic {
  code: DiagnosticCode;
  /** 1-based line in the parsed text. */
  line: number;
  message: string;
  severity: 'info' | 'warning';
}

/** `parseProfile`'s result: the profile fields plus the diagnostics. */
export interface ParsedProfile extends Profile { diagnostics: Diagnostic[] }

/** What the time arguments accept. */
export type TimeInput = Date | string | number;

/** The six profile sections, in order. */
export declare const SECTION_HEADINGS: readonly [
  'Identity', 'Communication Preferences', 'Work Context', 'Skills & Expertise', 'Recent Topics', 'Follow-ups',
];

/**
 * Lenient, total parse: never throws on content (CRLF, BOM, broken frontmatter, unknown or
 * missing sections …); each problem is a diagnostic.
 * @example
 * const p = parseProfile(await readFile('memory.md', 'utf8'));
 * p.sections.find((s) => s.heading === 'Identity')?.lines; // ['- Works as …']
 */
export function parseProfile(text: string): ParsedProfile;

/**
 * The canonical form (frontmatter, `# User Memory`, six sections, `_(empty)_`, one trailing newline).
 * `renderProfile(parseProfile(renderProfile(p))) === renderProfile(p)` always holds.
 * @example renderProfile(parseProfile(text)); // canonical text
 */
export function renderProfile(profile: Profile): string;

/**
 * A new, empty profile (turn_count 0, last_updated = now).
 * @example renderProfile(emptyProfile('user_123', new Date()));
 */
export function emptyProfile(userId: string, now: TimeInput): Profile;

/**
 * The text without its frontmatter.
 * @example profileBody('---\nuser_id: u\n---\n\n# User Memory\n'); // '# User Memory\n'
 */
export function profileBody(text: string): string;

/**
 * SPEC §1.6 normalisation of a model answer: trim, unwrap a code fence, drop frontmatter, add the title.
 * @example normaliseModelBody('```markdown\n## Identity\n…\n```');
 */
export function normaliseModelBody(text: string): string;

/**
 * The strict check for model output: after normalisation, exactly the six `##` headings in order.
 * @example isWellFormedBody(modelAnswer) || console.warn('ignored a malformed rewrite');
 */
export function isWellFormedBody(text: string): boolean;

/** Options of `assembleProfile`: what the application writes into the frontmatter. */
export interface AssembleOptions { userId: string; turnCount: number; now: TimeInput; extra?: FrontmatterField[] }

/**
 * A complete canonical `memory.md` from a body (frontmatter in the body is discarded).
 * @example assembleProfile(body, { userId: 'user_123', turnCount: 13, now: new Date() });
 */
export function assembleProfile(body: string, options: AssembleOptions): string;

// ─── Injection, paths, enablement, editing (SPEC §1.1, §1.7, §1.8, §1.10) ───────────────────────

/**
 * The system-prompt section `# What I know about you` with its preamble and the body, or `''` when
 * there is no profile or every section is empty.
 * @example system += memorySystemPromptSection(profileText);
 */
export function memorySystemPromptSection(text: string | null | undefined): string;

/**
 * `<rootFolder>/<userId>/memory.md`; throws `E_INVALID_USER_ID` for ids that cannot name a folder.
 * @example memoryPath('user_123'); // 'user-memory/user_123/memory.md'
 */
export function memoryPath(userId: string, rootFolder?: string | null): string;

/** A root folder as the host sees it. */
export interface RootInfo { name: string; active: boolean; id?: string | null }

/**
 * A warning naming the duplicates when more than one active root has the configured name, else `null`.
 * @example const warning = checkMemoryRoots(await listRoots()); if (warning) admin.warn(warning);
 */
export function checkMemoryRoots(roots: RootInfo[], configuredName?: string): string | null;

/** Inputs of `resolveEnablement` (SPEC §1.8). Flag values: `'true'`, `'false'` or comma-separated company ids. */
export interface EnablementInputs {
  companyId: string;
  featureFlag?: string | null;
  /** The space's "Context memory" setting; absent counts as on. */
  spaceSetting?: boolean | null;
  webSearchEnabled?: boolean;
  allowWithWebSearch?: { nodeChat?: string | null; adminApp?: string | null };
  /** The user's `allowUserMemory` preference; absent means allowed. */
  userAllowsMemory?: boolean | null;
}

/** Why memory is or is not active: `'enabled'` or the first failed condition (SPEC §1.8). */
export type EnablementReason = 'enabled' | 'feature-flag-off' | 'space-disabled' | 'web-search-enabled' | 'user-opted-out';

/** The decision: `reason` is `'enabled'` or the first failed condition. */
export interface Enablement {
  enabled: boolean;
  reason: EnablementReason;
  /** `WEB_SEARCH_TOOLTIP` when web search is on and not overridden. */
  tooltip: string | null;
  warnings: { code: 'invalid-feature-flag' | 'invalid-web-search-override' | 'web-search-override-mismatch'; message: string }[];
}

/**
 * Effective enablement for a turn; the result is what node-chat sends as `space.allowUserMemory`.
 * @example resolveEnablement({ companyId: 'c1', featureFlag: 'c1,c2', webSearchEnabled: false }).enabled; // true
 */
export function resolveEnablement(inputs: EnablementInputs): Enablement;

/** The exact tooltip of the admin switch while web search is enabled. */
export declare const WEB_SEARCH_TOOLTIP: string;

/**
 * The orchestrator rule: a payload without `allowUserMemory` means disabled.
 * @example orchestratorMemoryEnabled(payload.space.allowUserMemory);
 */
export function orchestratorMemoryEnabled(payloadValue: boolean | null | undefined): boolean;

/**
 * The body the Settings editor shows (frontmatter hidden).
 * @example textarea.value = editableBody(stored);
 */
export function editableBody(text: string): string;

/** What `getMyContextMemory` shows. */
export interface MemoryView { exists: boolean; body: string; lastUpdated: string | null; turnCount: number | null }

/**
 * The read-only view of a stored text (`null` → `{ exists: false, body: '' }`).
 * @example memoryView(await storage.read(path)?.text ?? null);
 */
export function memoryView(stored: string | null): MemoryView;

/** The largest body `applyUserEdit` accepts: 1,048,576 bytes of UTF-8. */
export declare const MAX_EDIT_BODY_BYTES: 1048576;

/**
 * The body of a new profile: `# User Memory` and the six sections, each `_(empty)_` — what an
 * editor offers a user who has none.
 */
export declare const EMPTY_PROFILE_BODY: string;

/**
 * Apply a user's edit: the stored frontmatter is kept byte for byte (a new profile gets a fresh one
 * with turn_count 0); renamed or removed headings are reported, the save still happens.
 * Throws `E_TOO_LARGE` over 1 MiB, `E_INVALID_USER_ID`.
 * @example const { text, diagnostics } = applyUserEdit(stored ?? null, body, { userId, now: new Date() });
 */
export function applyUserEdit(existing: string | null, body: string, options: { userId: string; now: TimeInput }): { text: string; diagnostics: Diagnostic[]; redactedSecrets: number };

// ─── Tokens (SPEC §1.4) ────────────────────────────────────────────────────────────────────────

/** Built-in encodings. */
export type Encoding = 'o200k_base' | 'cl100k_base';

/** A synchronous host token counter. */
export type CountTokensFn = (text: string) => number;

/** Which counter to use: a host callback wins over the built-in tables. */
export interface TokenizerOptions { encoding?: Encoding; countTokens?: CountTokensFn }

/**
 * Exact token count. Without a loaded table for the encoding and without `countTokens`:
 * `E_NO_TOKENIZER` (never an estimate).
 * @example countTokens(profileText); countTokens(text, { encoding: 'cl100k_base' });
 */
export function countTokens(text: string, options?: TokenizerOptions): number;

/**
 * Token ids (built-in tables only), equal to tiktoken's `encode(text, [], [])`.
 * @example encodeTokens('hello world'); // [24912, 2375]
 */
export function encodeTokens(text: string, options?: { encoding?: Encoding }): number[];

/**
 * Load a rank table (the package's `tokenizer/<encoding>.bin`, exported as
 * `memcore/tokenizer/<encoding>.bin`); returns its encoding. The default entries load tables on
 * first use; `memcore/slim` hosts load what they need (or pass `countTokens`).
 * @example loadTokenizer(await (await fetch('/tokenizer/o200k_base.bin')).arrayBuffer());
 */
export function loadTokenizer(bytes: Uint8Array | ArrayBuffer): Encoding;

/**
 * Whether the table of an encoding is loaded — or can be now: the Node entry reads it at this
 * call; in browsers and edge runtimes this starts its download and answers `false` until it is in.
 * @example hasTokenizer('cl100k_base');
 */
export function hasTokenizer(encoding: Encoding): boolean;

/**
 * Wait until the tables of `encodings` (default: {@link DEFAULT_ENCODING}) are loaded. Tables load
 * on first use: the Node entry reads them synchronously; browsers and edge runtimes fetch them, so
 * call this before counting synchronously there (`countTokens`, `enforceTokenCap`, …; async
 * functions — `ContextMemory`, `fitProfile` — wait themselves). In Workers import
 * `memcore/tokenizer/<encoding>` first. `E_NO_TOKENIZER` when this entry cannot load it.
 * @example await ready(); countTokens('hi');
 */
export function ready(encodings?: Encoding | Encoding[]): Promise<void>;

/** The encoding used when none is named: `'o200k_base'`. */
export const DEFAULT_ENCODING: Encoding;

// ─── Budget fitting (SPEC §1.4, §1.5) ──────────────────────────────────────────────────────────

/** A counter for the budget functions: options naming an encoding or a host callback, or the callback itself. */
export type Tokenizer = TokenizerOptions | CountTokensFn;

/** The profile budget `maxTokens` when none is configured: 2000. */
export declare const DEFAULT_MAX_TOKENS: 2000;
/** The smallest accepted `maxTokens`: 500. */
export declare const MIN_MAX_TOKENS: 500;
/** The largest accepted `maxTokens`: 8000. */
export declare const MAX_MAX_TOKENS: 8000;

/** The marker the hard cut appends: `\n\n<!-- truncated to fit memory budget -->`. */
export declare const TRUNCATION_MARKER: '\n\n<!-- truncated to fit memory budget -->';

/**
 * What the hard cut did. `tokensBefore` is `null` when the input is longer than the budget could
 * ever hold (more than `maxTokens × 128 + 64 KiB` bytes): such a text is not counted, so the cost
 * stays bounded by the budget.
 */
export interface TruncateOutcome { text: string; truncated: boolean; tokensBefore: number | null; tokensAfter: number }

/**
 * The deterministic hard cut of SPEC §1.5: whole lines from the top, then the marker; text within
 * budget comes back unchanged; the result never exceeds `maxTokens` and never splits a character.
 * @example enforceTokenCap(text, 2000).text; enforceTokenCap(text, 800, (t) => myCount(t));
 */
export function enforceTokenCap(text: string, maxTokens: number, tokenizer?: Tokenizer): TruncateOutcome;

/** What deterministic condensing did. */
export interface CondenseOutcome {
  text: string; changed: boolean; removedDuplicates: number; removedTopics: number;
  /** `null` when the input is longer than its budget window (not counted). */
  tokensBefore: number | null;
  /** `null` when the result is longer than its budget window (not counted). */
  tokensAfter: number | null;
}

/**
 * Deterministic condensing toward `floor(0.9 × maxTokens)`: duplicate bullets merged (case,
 * whitespace, trailing punctuation), oldest dated Recent Topics dropped. Frontmatter kept byte for byte.
 * @example condenseProfile(text, 2000).removedTopics;
 */
export function condenseProfile(text: string, maxTokens: number, tokenizer?: Tokenizer): CondenseOutcome;

/**
 * A model request (SPEC §5). `signal` is aborted when memcore gives up on the call (its deadline
 * passed): stop the request then. Absent on requests built by `buildGatePrompt` and friends.
 */
export interface ModelRequest { purpose: 'gate' | 'consolidate' | 'condense' | 'dream'; system: string; user: string; maxOutputTokens: number; signal?: AbortSignal }
/** Token usage a model reports. */
export interface ModelUsage { inputTokens: number; outputTokens: number }
/** A model answer: the text, or the text with usage. */
export type ModelAnswer = string | { text: string; usage?: ModelUsage };
/** The language model: an object with `complete`, or the function itself. */
export type LanguageModel = { complete(request: ModelRequest): ModelAnswer | Promise<ModelAnswer> } | ((request: ModelRequest) => ModelAnswer | Promise<ModelAnswer>);

/** Options of `fitProfile`. */
export interface FitOptions extends TokenizerOptions {
  /** 500–8000, default 2000; outside → `E_CONFIG`. */
  maxTokens?: number;
  /** Optional model condensing (step 2); a bad answer or an error is ignored and reported. */
  condense?: LanguageModel;
  /** Shown to the condensing model so it can judge what is stale. */
  now?: TimeInput;
}

/** What fitting did; `text` is always within `maxTokens`. */
export interface FitReport {
  text: string; condensed: boolean; modelCondensed: boolean; truncated: boolean;
  /** `null` when the input is longer than its budget window (`maxTokens × 128 + 64 KiB` bytes): not counted. */
  tokensBefore: number | null;
  tokensAfter: number; removedDuplicates: number; removedTopics: number;
  modelUsage: ModelUsage | null; modelError: string | null;
}

/**
 * Fit a profile to its budget: deterministic condense, optional model condense, hard cut.
 * @example const { text, truncated } = await fitProfile(stored, { maxTokens: 2000, condense: model });
 */
export function fitProfile(text: string, options?: FitOptions): Promise<FitReport>;

// ─── Entry memory (SPEC §2) ───────────────────────────────────────────────────────────────────

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** One memory entry (SPEC §2.1). Timestamps are RFC 3339 UTC. */
export interface Entry {
  id: string;
  userId: string;
  key: string;
  value: Json;
  category: string;
  visibility: 'self' | 'group' | 'global' | string;
  sourceAgentId?: string | null;
  groupIds?: string[];
  sourceConversationId?: string | null;
  conflicted?: boolean;
  accessCount?: number;
  createdAt: string;
  updatedAt: string;
}

/** The entry-store host interface (SPEC §5). Every method may return a Promise. */
export interface EntryStore {
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
}

/** What `EntryStore.recall` is asked. */
export interface RecallQuery { userId: string; agentId: string; groupId: string | null; order: 'most_recent' | 'most_accessed'; limit: number }
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
  /** Number of entries of all users. */
  readonly size: number;
}

/** The `userMemoryConfig` block (SPEC §2.2), every field optional; defaults filled by `parseUserMemoryConfig`. */
export interface UserMemoryConfigInput {
  maxEntriesPerUser?: number;
  maxRecallEntries?: number;
  recallOrder?: 'most_recent' | 'most_accessed';
  onCapReached?: 'evict_oldest' | 'reject';
  defaultVisibility?: 'self' | 'group' | 'global';
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
}

/** What a write that holds a credential does (`refuse`, `redact`, `allow`). */
export type SecretPolicy = 'refuse' | 'redact' | 'allow';

/** Dream settings (SPEC §2.2). */
export interface DreamConfig {
  enabled: boolean; pruneStaleAfterDays: number; detectContradictions: boolean; summarizeInteractions: boolean;
  summarizeMinEntries: number; summarizeTargetEntries: number; summarizeGroupBy: 'category' | 'all';
  preserveAgentProvenance: boolean; crossAgentMaintenance: boolean; maxCostPerRun: number; parameters: Record<string, Json>;
}

/** A parsed config with every default filled. */
export interface UserMemoryConfig {
  maxEntriesPerUser: number; maxRecallEntries: number; recallOrder: 'most_recent' | 'most_accessed';
  onCapReached: 'evict_oldest' | 'reject'; defaultVisibility: 'self' | 'group' | 'global';
  guardrails: { maxKeyLength: number; maxValueLength: number; maxWritesPerTurn: number; allowedCategories: string[] };
  dream: DreamConfig;
  secrets: SecretPolicy;
}

/**
 * Validate a `userMemoryConfig` block: defaults filled; unknown enum values, negative limits,
 * `summarizeTargetEntries < 1` → `E_CONFIG` with `details.path` (e.g. `guardrails.maxKeyLength`).
 * @example parseUserMemoryConfig(agent.userMemoryConfig).maxRecallEntries; // 50
 */
export function parseUserMemoryConfig(config: UserMemoryConfigInput | Json): UserMemoryConfig;

/**
 * Whether the four tools are attached (SPEC §2.3); the warning names the missing parts.
 * @example const { attached, warning } = resolveMemoryTools(agentJson, langchainTaskJson);
 */
export function resolveMemoryTools(agentConfig: Json, llmTaskConfig: Json): { attached: boolean; warning: string | null };

/**
 * Search terms of a query: split on everything that is not a Unicode letter or digit, lowercased.
 * @example searchTerms('dog-name'); // ['dog', 'name']
 */
export function searchTerms(query: string): string[];

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
 * The group of a turn (SPEC §2.4): the injected context's `groupId`; else an earlier step's group
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
 * REST/MCP write rules (SPEC §2.6): every violation at once; empty when valid.
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

/** The four tool names. */
export type MemoryToolName = 'rememberFact' | 'recallMemories' | 'searchMemory' | 'forgetFact';

/** Options of `createMemoryTools`. */
export interface MemoryToolsOptions {
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
  call(name: MemoryToolName | string, args?: unknown): Promise<string>;
  /** Like `call`, with whether the store was written. */
  run(name: MemoryToolName | string, args?: unknown): Promise<{ text: string; wrote: boolean }>;
  /** Start the next turn (`maxWritesPerTurn` counts from zero). */
  newTurn(): void;
  readonly writesThisTurn: number;
}

/**
 * The four LLM tools with byte-exact answers (SPEC §2.5). Calls run one at a time, in order.
 * @example
 * const tools = createMemoryTools({ store, userId: 'user-123', agentId: 'agent-456' });
 * await tools.call('rememberFact', { key: 'favorite_color', value: 'blue', category: 'preference' });
 * // '✅ Remembered: favorite_color = blue [preference, self]'
 */
export function createMemoryTools(options: MemoryToolsOptions): MemoryTools;

/** A `longTerm` conversation property. */
export interface LongTermProperty { name: string; value: Json; visibility?: 'self' | 'group' | 'global' }

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
export function readProperties(store: EntryStore, userId: string): Promise<Record<string, Json>>;

/**
 * Legacy merge into global entries; resolves to the number written. `_gdpr_` keys → `E_ARGUMENT`;
 * a pair holding a credential → `E_SECRET` (`details: { key?, field, kind }`, nothing merged)
 * unless `options.config.secrets` is `'redact'` or `'allow'`.
 * @example await mergeProperties(store, 'user-123', { theme: 'dark' });
 */
export function mergeProperties(store: EntryStore, userId: string, properties: Record<string, Json>, options?: { config?: UserMemoryConfigInput; storeTimeoutMs?: number; now?: () => TimeInput; newId?: () => string }): Promise<number>;

/**
 * Legacy delete of the user's global, non-`_gdpr_` entries; resolves to the number deleted.
 * @example await deleteProperties(store, 'user-123');
 */
export function deleteProperties(store: EntryStore, userId: string): Promise<number>;

/**
 * Set (`true`) or lift (`false`) the user's processing restriction (GDPR Art. 18, SPEC §4.3): the
 * global `_gdpr_processing_restricted` entry. Admin only: without `{ admin: true }` it rejects
 * with `E_ARGUMENT` and touches nothing. While set, the tools refuse writes, properties are not
 * persisted, `afterTurn` (with `hosts.entries`) ends as `restricted` and Dream skips the user.
 * @example await setProcessingRestriction(store, 'u1', true, { admin: true });
 */
export function setProcessingRestriction(store: EntryStore, userId: string, restricted: boolean, options: { admin: boolean; now?: () => TimeInput; newId?: () => string }): Promise<{ restricted: boolean; changed: boolean }>;
/** Whether the user's processing is restricted; rejects when the flag cannot be read (treat that as restricted). */
export function isProcessingRestricted(store: EntryStore, userId: string): Promise<boolean>;

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
}

/** One store a rights call was given, in the order given. */
export interface RightsStoreReport {
  /** Where it was given: `'options.entries'`, `'options.entries[1]'`, `'options.memory'`, … */
  option: string;
  /** Its class name (`'SqliteStorage'`, `'InMemoryEntryStore'`, `'ContextMemory'`, …), or `'object'`. */
  kind: string;
}

/** What `eraseUserData` did to one store: entries deleted (`null`: not an entry store), its profile (`null`: it holds none, or it was handled through the `ContextMemory` given with it). */
export interface ErasureStoreReport extends RightsStoreReport {
  entries: number | null;
  profile: { removed: boolean; folderRemoved: boolean } | null;
}

/** What `eraseUserData` removed: entries deleted per entry store, each profile erased (in the order of `stores`), and per store given what was done there. */
export interface ErasureReport {
  userId: string;
  entries: number[];
  profiles: { removed: boolean; folderRemoved: boolean }[];
  stores: ErasureStoreReport[];
}

/**
 * GDPR Art. 17 erasure (SPEC §4.3): every entry (`_gdpr_` ones included) in each entry store,
 * then the profile `memory.md` with the user's folder (where the storage has folders) in each
 * store that holds profiles — an entry store that is also profile storage, each
 * `ContextMemory`'s storage — once per store. Idempotent. A turn of the user still running in a
 * given `ContextMemory` writes nothing after it; one in another process finds the profile gone
 * and does not re-create it.
 * @example const report = await eraseUserData('u1', { entries: db }); // a SQL store: entries and profile
 */
export function eraseUserData(userId: string, options: UserDataStores): Promise<ErasureReport>;

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
}

/**
 * GDPR Art. 15/20: one JSON document with every entry of the user, the profile text and the
 * restriction state (one entry store and one `ContextMemory`). The profile comes from the
 * `ContextMemory` when given, else from the entry store when it holds profiles.
 * @example const doc = await exportUserData('u1', { entries: db });
 */
export function exportUserData(userId: string, options: { entries?: EntryStore; memory?: ContextMemory; rootFolder?: string; now?: () => TimeInput }): Promise<UserDataExport>;

/** What `importUserData` wrote to one store (`null`: that part did not go there). */
export interface ImportStoreReport extends RightsStoreReport {
  entries: number | null;
  profile: boolean | null;
}

/**
 * Restore an `exportUserData` document, losslessly, into stores that hold nothing of the user —
 * the profile into the `ContextMemory`'s storage, else into the entry store when it holds
 * profiles. **All or nothing.** Everything is checked before anything is written (`E_ARGUMENT`
 * for a bad document, a missing store for a part of it, a non-empty entry store or an id already
 * stored; `E_VERSION_CONFLICT` when the user already has a profile). The entries are written in
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
export function importUserData(document: UserDataExport, options: { entries?: EntryStore; memory?: ContextMemory; rootFolder?: string }): Promise<{ entries: number; profile: boolean; secrets: ImportedSecret[]; stores: ImportStoreReport[] }>;

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
// The memory operations of the HTTP and MCP surfaces (SPEC §2.8); `memcore/server` serves them.

/** Options of the surface operations. */
export interface MemoryOperationOptions {
  /** The `userMemoryConfig` whose `recallOrder`, `maxRecallEntries`, `maxEntriesPerUser` and `onCapReached` apply. */
  config?: UserMemoryConfigInput;
  /** The deadline of each store call, 1 ms – 1 h (default 10 s). */
  storeTimeoutMs?: number;
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
 * The user's entries matching every term of `query` (the search rule), newest first; a query without terms matches nothing.
 * @example const found = await searchUserMemories(store, 'u1', 'dog name');
 */
export function searchUserMemories(store: EntryStore, userId: string, query: string, options?: MemoryOperationOptions): Promise<Entry[]>;

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
  | { outcome: 'secret'; field: string; kind: CredentialKind; message: string };

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
 * Delete every entry of a user except `_gdpr_` ones (SPEC §4.3); resolves to how many were deleted.
 * @example const n = await deleteAllUserMemories(store, 'u1');
 */
export function deleteAllUserMemories(store: EntryStore, userId: string, options?: MemoryOperationOptions): Promise<number>;
// ─── Credentials and the legacy migration (SPEC §4.1, §4.2) ──────────────────────────────────────

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

/** Why a legacy document was skipped (stable names); neither is a failure. */
export type LegacyDocumentSkipReason = 'no-user-id' | 'not-an-object';

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
 * `legacy` entries (SPEC §4.1). A key in `skipKeys`, holding a credential at any depth, empty or
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
  plan: PropertiesMigrationPlan, store: EntryStore, options?: { now?: () => TimeInput; newId?: () => string },
): Promise<PropertiesMigrationReport>;

/**
 * For a store that ran an older migration which copied `userInfo`: the ids of `legacy` entries
 * whose key is in `skipKeys` or whose value holds a credential, and their keys by name and count.
 * @example for (const id of planLegacyCleanup(await store.list(userId)).ids) await store.delete(id);
 */
export function planLegacyCleanup(entries: Entry[], options?: LegacyMigrationOptions): { ids: string[]; keys: LegacyKeySkip[] };

// ─── Dream maintenance (SPEC §3) ────────────────────────────────────────────────────────────────

/** Why a group was not consolidated (stable names). */
export type DreamSkipReason =
  | 'cost-limit'
  | 'model-transient'
  | 'model-error'
  | 'stopped'
  | 'invalid-answer'
  | 'not-smaller'
  | 'key-collision'
  | 'id-collision'
  | 'verbatim'
  | 'write-failed'
  | 'secret';

/** Why a run was refused or did not finish (stable names). */
export type DreamErrorCode = 'no-user' | 'no-agent' | 'disabled' | 'store-failed' | 'model-failed';

/** Entries of one key, held by the firing agent, with distinct values. */
export interface DreamContradiction { key: string; agents: string[]; entryIds: string[] }

/** What one Dream run did. `error` is present only when it was refused or did not finish. */
export interface DreamReport {
  userId: string | null;
  /** Stale entries deleted. */
  pruned: number;
  contradictions: DreamContradiction[];
  /** Net entries removed by consolidation (originals deleted minus new entries inserted). */
  summarized: number;
  groupsSkipped: { group: string; reason: DreamSkipReason }[];
  /** Model calls started. */
  calls: number;
  /** Reported usage × `price`, else the estimate (README, "Dream"). */
  estimatedCostUsd: number;
  durationMs: number;
  /** The user is under a processing restriction (or the flag could not be read): nothing was done. */
  restricted: boolean;
  /** Originals whose delete failed after their group's summary was written: they stayed (the store's error, redacted). */
  originalsKept: { group: string; entryId: string; code: string; message: string }[];
  error?: { code: DreamErrorCode; message: string };
}

/** The model's price in USD per million tokens. */
export interface ModelPrice { inputPerMTok: number; outputPerMTok: number }

/** Options of `dream`. */
export interface DreamOptions {
  store: EntryStore;
  /** Needed when `config.dream.summarizeInteractions` is on (requests have `purpose: 'dream'`). */
  model?: LanguageModel;
  /** The user whose memories are maintained; blank or `system:scheduler` is refused. */
  userId: string | null | undefined;
  /** The firing agent: its `dream` settings apply, its own entries are maintained. */
  agentId: string | null | undefined;
  /** The agent's `userMemoryConfig`. */
  config?: UserMemoryConfigInput;
  /** The instant staleness is measured against and consolidated entries are stamped with. */
  now: TimeInput;
  /** Ids of new consolidated entries (default: 128 random bits as hex). */
  newId?: () => string;
  log?: (event: LogEvent) => void;
  /** Without it, cost is estimated at $10 per million tokens. */
  price?: ModelPrice;
  /** Counters kept across runs. */
  metrics?: DreamMetrics;
  /** Deadline of each store call in ms (1–3,600,000, default 10,000). */
  storeTimeoutMs?: number;
  /** Deadline of each model call in ms (1–3,600,000, default 60,000); a call that misses it is a transient failure. */
  modelTimeoutMs?: number;
}

/**
 * One Dream run (SPEC §3) for one user and one firing agent: stale pruning, contradiction
 * detection (read-only), model-driven summarisation with every safety guarantee. Refusals and
 * failures are data in `report.error`; misuse (an invalid config, price or deadline,
 * summarisation without a model) rejects with `E_CONFIG` or `E_ARGUMENT`.
 * @example
 * const metrics = new DreamMetrics();
 * const report = await dream({ store, model, userId: 'user-123', agentId: 'agent-456', config: agent.userMemoryConfig, now: new Date(), metrics });
 * if (report.error) console.error(report.error.code, report.error.message);
 */
export function dream(options: DreamOptions): Promise<DreamReport>;

/** The counters of a `DreamMetrics`. */
export interface DreamMetricsSnapshot {
  usersProcessed: number; entriesPruned: number; contradictionsFound: number; entriesSummarized: number;
  cyclesFailed: number; summarizationFailed: number; durationCount: number; durationSumSeconds: number; durationMaxSeconds: number;
}

/**
 * Dream's counters and duration summary across runs, in the Prometheus text format
 * (`eddi_dream_entries_pruned_total`, …).
 * @example
 * const metrics = new DreamMetrics();
 * await dream({ store, model, userId, agentId, config, now: new Date(), metrics });
 * return new Response(metrics.prometheus(), { headers: { 'content-type': 'text/plain; version=0.0.4' } });
 */
export class DreamMetrics {
  constructor();
  prometheus(): string;
  snapshot(): DreamMetricsSnapshot;
}

/**
 * Every problem of a Dream schedule (empty → valid): `metadata.dreamType` must be
 * `"dream_consolidation"`, `userId` a real user, `agentId` present; no message is needed.
 * @example
 * const problems = validateDreamSchedule({ cronExpression: '0 3 * * *', agentId, userId, metadata: { dreamType: 'dream_consolidation' } });
 * if (problems.length) return Response.json(problems, { status: 400 });
 */
export function validateDreamSchedule(schedule: Json): Violation[];

// ─── Profile memory: the turn pipeline (SPEC §1.7, §1.9, §1.10) ───────────────────────────────

/** The notice text, byte for byte: `🧠 Updating context memory…`. */
export declare const UPDATING_NOTICE: '🧠 Updating context memory…';

/**
 * Options passed with every profile write. At most one condition is set: `ifVersion` (the stored
 * version must still be this token) or `ifAbsent: true` (nothing may be stored yet: the first write
 * of a new profile). Neither → unconditional (storage without versions).
 */
export interface ProfileWriteOptions { ifVersion: string | null; ifAbsent: boolean; contentType: 'text/markdown'; skipIngestion: true; hideInChat: true }

/**
 * Profile storage (SPEC §5). `read` returns `{ text, version }` (or a string, or `null` when
 * missing); a version is a string or a number, anything else is refused (`E_HOST`). `write` must
 * throw an error with `code: 'E_VERSION_CONFLICT'` when `ifVersion` no longer matches or, with
 * `ifAbsent`, when something is already stored. Every method may be async; each call has a
 * deadline (`ContextMemoryConfig.timeouts.storageMs`). Bundled: `memcore/adapters/memory`,
 * `memcore/adapters/fs`.
 */
export interface ProfileStorage {
  read(path: string): { text: string; version?: string | null } | string | null | Promise<{ text: string; version?: string | null } | string | null>;
  write(path: string, text: string, options: ProfileWriteOptions): { version?: string | null } | string | void | Promise<{ version?: string | null } | string | void>;
  remove(path: string): void | Promise<void>;
  ensureRoot?(rootFolder: string): void | Promise<void>;
  /** Optional: remove a user's folder (`<root>/<userId>`) after its profile was erased; `true` when removed. */
  removeFolder?(folder: string): boolean | Promise<boolean>;
}

/** A notice for the chat UI. */
export type Notice = { kind: 'show'; text: string } | { kind: 'clear' };

/** A structured log event (never carries profile content or messages). */
export interface LogEvent { level: 'debug' | 'info' | 'warn' | 'error'; event: string; userId?: string | null; fields: Record<string, Json> }

/** The host side of a `ContextMemory`. */
export interface ContextMemoryHosts {
  storage: ProfileStorage;
  /**
   * The user's entry store (optional): `afterTurn` reads the Art. 18 processing restriction there
   * and, while it is set (or cannot be read), ends as `restricted` without calling the model or
   * writing. When absent and `storage` is also an entry store (the SQL adapters are), `storage`
   * is used. With no entry store at all no restriction is checked, and the first turn logs one
   * warning event, `memory.restriction.unchecked`.
   */
  entries?: EntryStore;
  /** Needed by `afterTurn` only (gate and consolidation); `load` and the Settings functions never call it. */
  model?: LanguageModel;
  /** A synchronous host counter instead of the built-in tables (same counter at load and after consolidation). */
  countTokens?: CountTokensFn;
  now?: () => TimeInput;
  log?: (event: LogEvent) => void;
  /** Called with `{ kind: 'show', text: UPDATING_NOTICE }` before the rewrite and `{ kind: 'clear' }` after it, always. May be async; its failures are logged and ignored. */
  onNotice?: (notice: Notice) => void | Promise<void>;
}

/** Configuration (every field optional). */
export interface ContextMemoryConfig {
  /** 500–8000, default 2000. */
  maxTokens?: number;
  /** The cheap UPDATE/NOOP call before a rewrite; default true. */
  gateEnabled?: boolean;
  /** Default `user-memory`. */
  rootFolder?: string;
  /** Default `o200k_base`. */
  encoding?: Encoding;
  /** Reasoning models get a 64-token gate budget instead of 4. */
  reasoningModel?: boolean;
  /** Re-reads and re-consolidations after a version conflict, 0–20, default 5 (each one a model call, made only under contention). */
  maxConflictRetries?: number;
  /**
   * The smallest base of the wait before each such retry, in ms (0–10,000, default 100; 0: no
   * wait): retry k waits a random time in [0, base × 2^(k−1)] (at most 30 s), `base` being this
   * or four times the lost attempt's duration when longer, so writers that collided do not collide
   * again in lockstep. Settings edits wait with this base.
   */
  conflictBackoffMs?: number;
  /**
   * Deadlines of the host calls in ms, each 1–3,600,000. A call that misses its deadline is
   * abandoned (a model request's `signal` is aborted) and counts as failed: the gate fails open, a
   * rewrite is `model-failed`, a read `no-memory`, a write `write-failed`, a notice is logged.
   */
  timeouts?: { modelMs?: number; storageMs?: number; noticeMs?: number };
  /**
   * What a profile body that holds a credential does — a consolidation's answer and a Settings
   * edit: `'redact'` (default: each secret becomes `[redacted]`, counted in `redactedSecrets`),
   * `'refuse'` (the turn is `invalid-output`, an edit rejects `E_SECRET`; nothing written) or
   * `'allow'`.
   */
  secrets?: SecretPolicy;
}

/** What `load` found. */
export interface LoadResult {
  /** The fitted profile text (not written back), or null. */
  profile: string | null;
  /** `# What I know about you …`, or `''` when there is nothing to inject. */
  systemPromptSection: string;
  fit: FitReport | null;
  version: string | null;
  outcome: LoadOutcome;
  reason: string | null;
}

/** How a load ended (SPEC §1.7). */
export type LoadOutcome = 'loaded' | 'no-profile' | 'disabled' | 'no-memory';

/** The outcomes of a turn (SPEC §1.7). */
export type TurnOutcome = 'disabled' | 'no-memory' | 'gate-noop' | 'model-noop' | 'unchanged' | 'invalid-output' | 'updated' | 'write-failed' | 'model-failed' | 'restricted';

/** What `afterTurn` did. */
export interface TurnReport {
  outcome: TurnOutcome;
  reason: string | null;
  gate: 'update' | 'noop' | null;
  gateError: string | null;
  usage: { gate: ModelUsage | null; consolidate: ModelUsage | null; condense: ModelUsage | null };
  timings: { totalMs: number; gateMs: number; consolidateMs: number; writeMs: number };
  attempts: number;
  turnCount: number | null;
  tokens: number | null;
  /** Credentials replaced by `[redacted]` in the consolidation's answer (`secrets: 'redact'`). */
  redactedSecrets: number;
}

/**
 * Profile memory for one host setup.
 * @example
 * const memory = new ContextMemory({ storage: new FileSystemProfileStorage({ baseDir: './data' }), model: openAIChatModel({ baseURL, apiKey, model }), onNotice });
 * const { systemPromptSection } = await memory.load({ userId, enabled: space.allowUserMemory });
 * // … answer the user …
 * const report = await memory.afterTurn({ userId, enabled: space.allowUserMemory, userMessage, assistantMessage });
 */
export class ContextMemory {
  constructor(hosts: ContextMemoryHosts, config?: ContextMemoryConfig);
  /** Read and fit the user's profile (never rejects for expected failures). */
  load(input: { userId: string; enabled: boolean }): Promise<LoadResult>;
  /** Gate, consolidate, write if changed; never rejects for expected failures (rejects `E_CONFIG` without `hosts.model`). `enabled` is required (SPEC: a payload without it is off); a call without it is `disabled` with `reason: 'enabled-missing'`. */
  afterTurn(input: { userId: string; enabled: boolean; userMessage?: string; assistantMessage?: string }): Promise<TurnReport>;
  /** Settings → Context Memory (read-only; creates nothing). */
  getMyContextMemory(userId: string): Promise<MemoryView>;
  /** Save the user's edited body (≤ 1 MiB of UTF-8; frontmatter kept). Credentials follow `secrets`: redacted (counted in `redactedSecrets`), or `E_SECRET` under `'refuse'`. */
  updateMyContextMemory(userId: string, body: string): Promise<{ text: string; diagnostics: Diagnostic[]; redactedSecrets: number }>;
  /** Remove the profile; resolves to whether one existed. Never waits behind a running turn, which then writes nothing. */
  deleteContextMemory(userId: string): Promise<boolean>;
}

// ─── Turn prompts and their answers (SPEC §1.7 steps 4–5) ─────────────────────────────────────

/**
 * The gate request: one word, UPDATE or NOOP; output budget 4 tokens (64 for reasoning models).
 * @example const req = buildGatePrompt(profileBody(text), userMessage, assistantMessage); await model.complete(req);
 */
export function buildGatePrompt(profileBody: string, userMessage: string, assistantMessage: string, options?: { reasoningModel?: boolean }): ModelRequest;

/**
 * The consolidation request (every rule of SPEC §1.7 step 5; messages in tag-delimited blocks,
 * `</` sanitised); output cap `maxTokens + 200`.
 * @example buildConsolidationPrompt(body, userMessage, assistantMessage, { now: new Date(), maxTokens: 2000 });
 */
export function buildConsolidationPrompt(currentBody: string, userMessage: string, assistantMessage: string, options: { now: TimeInput; maxTokens?: number }): ModelRequest;

/**
 * The condense request of fitting (toward `floor(0.9 × maxTokens)`); output cap `maxTokens + 200`.
 * @example buildCondensePrompt(body, { maxTokens: 2000 });
 */
export function buildCondensePrompt(body: string, options?: { maxTokens?: number; now?: TimeInput }): ModelRequest;

/**
 * Read a gate answer: starts with NOOP (trimmed, any case) → `'noop'`; anything else → `'update'` (fail open).
 * @example parseGateDecision(' noop.'); // 'noop'
 */
export function parseGateDecision(raw: string): 'update' | 'noop';

/** A read consolidation answer. */
export type Consolidation = { kind: 'noop' } | { kind: 'body'; body: string } | { kind: 'invalid'; reason: string };

/**
 * Read a consolidation answer: NOOP, a well-formed body (normalised, frontmatter dropped), or invalid with a reason.
 * @example const c = parseConsolidation(answer); if (c.kind === 'body') save(c.body);
 */
export function parseConsolidation(raw: string): Consolidation;

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
  /** Number of profile rewrites; missing or unparsable reads as 0. */
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
  | 'missing-frontmatter' | 'missing-title' | 'reordered-sections' | 'heading-variant'
  | 'unterminated-frontmatter' | 'frontmatter-too-large' | 'invalid-yaml' | 'invalid-frontmatter'
  | 'invalid-user-id' | 'invalid-schema-version' | 'invalid-last-updated' | 'invalid-turn-count'
  | 'unexpected-title' | 'stray-content' | 'unknown-section' | 'duplicate-section'
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

/** The decision: `reason` is `'enabled'` or the first failed condition. */
export interface Enablement {
  enabled: boolean;
  reason: 'enabled' | 'feature-flag-off' | 'space-disabled' | 'web-search-enabled' | 'user-opted-out';
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
 * Apply a user's edit: the stored frontmatter is kept byte for byte (a new profile gets a fresh one
 * with turn_count 0); renamed or removed headings are reported, the save still happens.
 * Throws `E_TOO_LARGE` over 1 MiB, `E_INVALID_USER_ID`.
 * @example const { text, diagnostics } = applyUserEdit(stored ?? null, body, { userId, now: new Date() });
 */
export function applyUserEdit(existing: string | null, body: string, options: { userId: string; now: TimeInput }): { text: string; diagnostics: Diagnostic[] };

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
 * Load a rank table (the package's `tokenizer/<encoding>.bin`); returns its encoding. The default
 * entries load both at start; `memcore/slim` hosts load what they need (or pass `countTokens`).
 * @example loadTokenizer(await (await fetch('/tokenizer/o200k_base.bin')).arrayBuffer());
 */
export function loadTokenizer(bytes: Uint8Array | ArrayBuffer): Encoding;

/**
 * Whether the table of an encoding is loaded.
 * @example hasTokenizer('cl100k_base');
 */
export function hasTokenizer(encoding: Encoding): boolean;

// ─── Budget fitting (SPEC §1.4, §1.5) ──────────────────────────────────────────────────────────

/** A counter for the budget functions: options naming an encoding or a host callback, or the callback itself. */
export type Tokenizer = TokenizerOptions | CountTokensFn;

/** The marker the hard cut appends: `\n\n<!-- truncated to fit memory budget -->`. */
export declare const TRUNCATION_MARKER: '\n\n<!-- truncated to fit memory budget -->';

/** What the hard cut did. */
export interface TruncateOutcome { text: string; truncated: boolean; tokensBefore: number; tokensAfter: number }

/**
 * The deterministic hard cut of SPEC §1.5: whole lines from the top, then the marker; text within
 * budget comes back unchanged; the result never exceeds `maxTokens` and never splits a character.
 * @example enforceTokenCap(text, 2000).text; enforceTokenCap(text, 800, (t) => myCount(t));
 */
export function enforceTokenCap(text: string, maxTokens: number, tokenizer?: Tokenizer): TruncateOutcome;

/** What deterministic condensing did. */
export interface CondenseOutcome {
  text: string; changed: boolean; removedDuplicates: number; removedTopics: number; tokensBefore: number; tokensAfter: number;
}

/**
 * Deterministic condensing toward `floor(0.9 × maxTokens)`: duplicate bullets merged (case,
 * whitespace, trailing punctuation), oldest dated Recent Topics dropped. Frontmatter kept byte for byte.
 * @example condenseProfile(text, 2000).removedTopics;
 */
export function condenseProfile(text: string, maxTokens: number, tokenizer?: Tokenizer): CondenseOutcome;

/** A model request (SPEC §5). */
export interface ModelRequest { purpose: 'gate' | 'consolidate' | 'condense' | 'dream'; system: string; user: string; maxOutputTokens: number }
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
  tokensBefore: number; tokensAfter: number; removedDuplicates: number; removedTopics: number;
  modelUsage: ModelUsage | null; modelError: string | null;
}

/**
 * Fit a profile to its budget: deterministic condense, optional model condense, hard cut.
 * @example const { text, truncated } = await fitProfile(stored, { maxTokens: 2000, condense: model });
 */
export function fitProfile(text: string, options?: FitOptions): Promise<FitReport>;

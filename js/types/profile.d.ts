// memcore typings: Profile format (behaviour §1.2, §1.3, §1.6).

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
 *
 * Editing a `parseProfile` result and rendering it is cheap: a section whose `lines` array is
 * the one `parseProfile` returned, holding the same strings, is not sent into WebAssembly or
 * checked again (its lines were canonical when parsed); only edited sections are. Edit in place
 * or replace arrays as you like — the result is the same either way, only the cost differs.
 * @example
 * const p = parseProfile(text);
 * p.sections[2].lines.push('- Started a new job'); // only Work Context crosses
 * renderProfile(p); // canonical text
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
 * behaviour §1.6 normalisation of a model answer: trim, unwrap a code fence, drop frontmatter, add the title.
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

// memcore typings: Injection, paths, enablement, editing (behaviour §1.1, §1.7, §1.8, §1.10).
import type { Diagnostic, TimeInput } from './profile.js';

/**
 * The system-prompt section `# What I know about you` with its preamble and the body, or `''` when
 * there is no profile or every section is empty.
 * @example system += memorySystemPromptSection(profileText);
 */
export function memorySystemPromptSection(text: string | null | undefined): string;

/**
 * The one user-id rule of every write and of erasure: returns `userId` when memcore accepts it,
 * throws `E_INVALID_USER_ID` (saying what is wrong) when not — empty, whitespace at either end,
 * `.` or `..`, `/` or `\`, a control character, over 255 UTF-8 bytes, a Windows device name.
 * @example checkUserId(claims.sub); // before storing anything under it
 */
export function checkUserId(userId: string): string;

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

/**
 * Inputs of `resolveEnablement`, in neutral names a host maps its own settings onto. Flag values:
 * `'true'`, `'false'` or comma-separated company ids.
 */
export interface EnablementInputs {
  companyId: string;
  /** The per-company feature flag that turns memory on, whatever the host calls it. */
  featureFlag?: string | null;
  /** The space's "Context memory" setting; absent counts as on. */
  spaceSetting?: boolean | null;
  webSearchEnabled?: boolean;
  /** The operator's override that allows memory together with web search. */
  allowWithWebSearch?: {
    /** Its value as the chat runtime (the service that runs turns) reads it; this one decides. */
    runtime?: string | null;
    /** Its value as the admin UI reads it, if it reads its own; a disagreement turns the override off with a warning. */
    admin?: string | null;
    /** @deprecated the first name of `runtime`; give one of the two. */
    nodeChat?: string | null;
    /** @deprecated the first name of `admin`; give one of the two. */
    adminApp?: string | null;
  };
  /** The user's `allowUserMemory` preference; absent means allowed. */
  userAllowsMemory?: boolean | null;
}

/** Why memory is or is not active: `'enabled'` or the first failed condition (behaviour §1.8). */
export type EnablementReason = 'enabled' | 'feature-flag-off' | 'space-disabled' | 'web-search-enabled' | 'user-opted-out';

/** The decision: `reason` is `'enabled'` or the first failed condition. */
export interface Enablement {
  enabled: boolean;
  reason: EnablementReason;
  /** `WEB_SEARCH_TOOLTIP` when web search is on and not overridden. */
  tooltip: string | null;
  warnings: EnablementWarning[];
}

/** Which configuration problem an enablement warning reports (stable names). */
export type EnablementWarningCode = 'invalid-feature-flag' | 'invalid-web-search-override' | 'web-search-override-mismatch';

/** A configuration problem `resolveEnablement` noticed (the flag or an override is treated as off). */
export interface EnablementWarning { code: EnablementWarningCode; message: string }

/**
 * Effective enablement for a turn; `enabled` is what the runtime passes on as the turn's `allowUserMemory`.
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
export function applyUserEdit(existing: string | null, body: string, options: { userId: string; now: TimeInput }): EditResult;

/** A saved edit: the stored text, what the heading check found, and how many credentials became `[redacted]`. */
export interface EditResult { text: string; diagnostics: Diagnostic[]; redactedSecrets: number }

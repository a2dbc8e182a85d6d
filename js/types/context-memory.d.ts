// memcore typings: Profile memory: the turn pipeline (behaviour §1.7, §1.9, §1.10).
import type { EntryStore, Json, SecretPolicy, UserMemoryConfigInput } from './entries.js';
import type { LearnReport } from './learn.js';
import type { FitReport, MemoryModel, ModelUsage } from './fit.js';
import type { Diagnostic, TimeInput } from './profile.js';
import type { EditResult, MemoryView } from './settings.js';
import type { CountTokensFn, Encoding } from './tokens.js';
import type { Embedder } from './embeddings.js';
import type { RelevantMemories, SearchMode } from './search.js';

/** The notice text, byte for byte: `🧠 Updating context memory…`. */
export declare const UPDATING_NOTICE: '🧠 Updating context memory…';

/**
 * Options passed with every profile write. At most one condition is set: `ifVersion` (the stored
 * version must still be this token) or `ifAbsent: true` (nothing may be stored yet: the first write
 * of a new profile). Neither → unconditional (storage without versions).
 */
export interface ProfileWriteOptions { ifVersion: string | null; ifAbsent: boolean; contentType: 'text/markdown'; skipIngestion: true; hideInChat: true }

/**
 * Profile storage (behaviour §5). `read` returns `{ text, version }` (or a string, or `null` when
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
  model?: MemoryModel;
  /** A synchronous host counter instead of the built-in tables (same counter at load and after consolidation). */
  countTokens?: CountTokensFn;
  now?: () => TimeInput;
  log?: (event: LogEvent) => void;
  /** Called with `{ kind: 'show', text: UPDATING_NOTICE }` before the rewrite and `{ kind: 'clear' }` after it, always. May be async; its failures are logged and ignored. */
  onNotice?: (notice: Notice) => void | Promise<void>;
  /** The embedding model `load`'s relevant entries rank with (`load({ entries })`). */
  embedder?: Embedder;
  /** The deadline of each embed call in ms (default 10,000). */
  embedTimeoutMs?: number;
  /** Spans and metrics of `load` and `afterTurn` and their model, storage and embedder calls (`createTelemetry` of memcore/telemetry). */
  telemetry?: import('../telemetry.js').Telemetry | null;
}

/** `load`'s `entries`: the entries of `hosts.entries` relevant to this turn's message, injected after the profile. */
export interface LoadEntriesInput {
  /** The message. */
  query: string;
  /** The budget of the relevant-memories section (its own, beside the profile's `maxTokens`). */
  maxTokens: number;
  /** The agent that will see them. */
  agentId: string;
  group?: string | null;
  /** At most this many entries, 1–1000 (default 10; outside the range `load` rejects with `E_ARGUMENT`). */
  limit?: number;
  /** Default `hybrid`. */
  mode?: SearchMode;
  /** Also the most relevant episodes, sharing `maxTokens` (see `relevantMemories`). */
  episodes?: boolean;
}

/** Configuration (every field optional). */
export interface ContextMemoryConfig {
  /** 500–8000, default 2000. */
  maxTokens?: number;
  /** The cheap UPDATE/NOOP call before a rewrite; default true. */
  gateEnabled?: boolean;
  /** Default `user-memory`. */
  rootFolder?: string;
  /**
   * The built-in table counting the budget (default `o200k_base`). With `hosts.countTokens` no
   * table is used or loaded, but the name is still checked (`E_CONFIG` unless `o200k_base` or
   * `cl100k_base`): it is the encoding the host's counter is expected to match.
   */
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
  /**
   * Learn into `hosts.entries` from each turn the gate lets through (one gate for the profile and
   * the facts; a `NOOP` gate makes no extraction call): what `learnFromTurn` does, reported as
   * `TurnReport.learned`. Needs `hosts.entries` (`E_CONFIG` otherwise). `agentId` (default
   * `'assistant'`) is who learned entries are written as; `config` their `userMemoryConfig`.
   */
  learn?: { facts?: boolean; episodes?: boolean; agentId?: string; config?: UserMemoryConfigInput };
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
  /** The relevant entries, when `load` was given `entries` (their section is part of `systemPromptSection`, after the profile's). */
  relevant?: RelevantMemories;
}

/** How a load ended (behaviour §1.7). */
export type LoadOutcome = 'loaded' | 'no-profile' | 'disabled' | 'no-memory';

/** The outcomes of a turn (behaviour §1.7). */
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
  /** What the turn learned into entry memory, when `learn` is configured and the gate let the turn through. */
  learned?: LearnReport;
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
  load(input: { userId: string; enabled: boolean; entries?: LoadEntriesInput }): Promise<LoadResult>;
  /** Gate, consolidate, write if changed; never rejects for expected failures (rejects `E_CONFIG` without `hosts.model`). `enabled` is required (the behaviour reference: a payload without it is off); a call without it is `disabled` with `reason: 'enabled-missing'`. */
  afterTurn(input: { userId: string; enabled: boolean; userMessage?: string; assistantMessage?: string; conversationId?: string; at?: string; groupId?: string }): Promise<TurnReport>;
  /** Settings → Context Memory (read-only; creates nothing). */
  getMyContextMemory(userId: string): Promise<MemoryView>;
  /** Save the user's edited body (≤ 1 MiB of UTF-8; frontmatter kept). Credentials follow `secrets`: redacted (counted in `redactedSecrets`), or `E_SECRET` under `'refuse'`. */
  updateMyContextMemory(userId: string, body: string): Promise<EditResult>;
  /** Remove the profile; resolves to whether one existed. Never waits behind a running turn, which then writes nothing. */
  deleteContextMemory(userId: string): Promise<boolean>;
  /** The tenant this instance serves (`null`: the default tenant). */
  readonly tenantId: string | null;
  /**
   * The same profile memory for tenant `tenantId`: the same hosts and configuration over
   * `storage.forTenant(tenantId)` (and `entries.forTenant`), the same instance for the same id
   * (docs/reference/storage.md, "Tenants"). `E_CONFIG` when the storage has no `forTenant`.
   * @example const report = await memory.forTenant(orgId).afterTurn({ userId, enabled: true, userMessage, assistantMessage });
   */
  forTenant(tenantId: string): ContextMemory;
}

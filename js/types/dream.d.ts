// memcore typings: Dream maintenance (behaviour §3).
import type { LogEvent } from './context-memory.js';
import type { EntryStore, Json, UserMemoryConfigInput, Violation } from './entries.js';
import type { MemoryModel } from './fit.js';
import type { TimeInput } from './profile.js';

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
/**
 * A contradiction Dream found: entries with `key` that disagree now (`overwrittenAt: null`), or a
 * global entry whose value another agent changed at `overwrittenAt` within the history's
 * retention window (`agents`: the two writers).
 */
export interface DreamContradiction { key: string; agents: string[]; entryIds: string[]; overwrittenAt: string | null }

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
  model?: MemoryModel;
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
  /** A span and the run's counts (`createTelemetry` of memcore/telemetry). */
  telemetry?: import('../telemetry.js').Telemetry | null;
  /** Deadline of each store call in ms (1–3,600,000, default 10,000). */
  storeTimeoutMs?: number;
  /** Deadline of each model call in ms (1–3,600,000, default 60,000); a call that misses it is a transient failure. */
  modelTimeoutMs?: number;
}

/**
 * One Dream run (behaviour §3) for one user and one firing agent: stale pruning, contradiction
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
 * (`memcore_dream_entries_pruned_total`, …; `new DreamMetrics({ prefix: 'eddi_' })` gives
 * `eddi_dream_entries_pruned_total`, …). A prefix must match `[a-zA-Z_:][a-zA-Z0-9_:]*`.
 * @example
 * const metrics = new DreamMetrics();
 * await dream({ store, model, userId, agentId, config, now: new Date(), metrics });
 * return new Response(metrics.prometheus(), { headers: { 'content-type': 'text/plain; version=0.0.4' } });
 */
export class DreamMetrics {
  constructor(options?: { prefix?: string });
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

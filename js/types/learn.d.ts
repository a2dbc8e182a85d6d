// memcore typings: learning from conversations (behaviour §8.6).
import type { EntryStore, UserMemoryConfigInput } from './entries.js';
import type { MemoryModel, ModelUsage } from './fit.js';
import type { Embedder } from './embeddings.js';
import type { LogEvent } from './context-memory.js';
import type { TimeInput } from './profile.js';

/** One message of a turn, in OpenAI's chat shape: `content` a string or a list of parts (the `{ type: 'text', text }` ones are read). Only `user` and `assistant` messages are learned from. */
export interface TurnMessage {
  role: 'user' | 'assistant' | 'system' | 'developer' | 'tool' | (string & {});
  content: string | Array<{ type: string; text?: string } | string> | null;
  [field: string]: unknown;
}

/** What happened to one fact of the extraction's answer. */
export type LearnedFactAction = 'added' | 'updated' | 'unchanged' | 'forgotten' | 'refused';

/** One fact of a learning's report. */
export interface LearnedFact {
  key: string;
  action: LearnedFactAction;
  /** The entry written (`added`, `updated`). */
  entryId?: string;
  /** Why: the rule's answer (`refused`; never the value), `nothing to forget` (`unchanged`). */
  reason?: string;
}

/** How a learning ended. */
export type LearnOutcome = 'learned' | 'nothing' | 'failed' | 'restricted' | 'disabled';

/** What `learnFromTurn` did. */
export interface LearnReport {
  outcome: LearnOutcome;
  /** Why it failed, or why there was nothing to learn. */
  reason?: string;
  /** Every fact of the answer that was applied, in answer order. */
  facts: LearnedFact[];
  /** Facts beyond `learn.maxFactsPerTurn`, not applied. */
  ignored: number;
  /** The episodes stored for the turn. */
  episodes: string[];
  /** The extraction call's usage, when the model reports it. */
  usage?: ModelUsage;
}

/** Options of `learnFromTurn`. */
export interface LearnOptions {
  store: EntryStore;
  /** The extraction model (requests have `purpose: 'extract'`). */
  model: MemoryModel;
  /** Ranks the stored facts shown to the extraction by meaning, and embeds what is learned. */
  embedder?: Embedder;
  embedTimeoutMs?: number;
  userId: string;
  /** Learned entries are written as this agent (`sourceAgentId`; author `{ kind: 'learned', id }`). */
  agentId: string;
  /** The turn's group (from the host's context only). */
  groupId?: string;
  /**
   * Stamped on learned entries (`sourceConversationId`); with the episode ids and `at`, it is the
   * `source` of the audit records of every learned fact and of the learning (`operation: 'learn'`).
   */
  conversationId: string;
  messages: TurnMessage[];
  /** When the turn happened (RFC 3339); relative dates are resolved against it. Default: now. */
  at?: string;
  config?: UserMemoryConfigInput;
  now?: () => TimeInput;
  newId?: () => string;
  log?: (event: LogEvent) => void;
  /** Deadline of the extraction call (default 60,000 ms). */
  modelTimeoutMs?: number;
  storeTimeoutMs?: number;
  telemetry?: unknown;
  /**
   * Abandons the extraction call when aborted: the model's request `signal` aborts too, and the
   * learning ends `failed` with no fact written (episodes already kept stay).
   */
  signal?: AbortSignal;
}

/**
 * Learn from one turn: one extraction call over its user and assistant messages, each fact applied
 * through `rememberFact`'s rules (an update keeps the old value as a version; a forget is
 * restorable). Rejects only on misuse; a failed extraction is `outcome: 'failed'` with nothing written.
 * @example
 * const report = await learnFromTurn({ store, model, userId: 'u1', agentId: 'assistant', conversationId: 'c1', messages, at: '2026-05-01T10:00:00Z' });
 */
export function learnFromTurn(options: LearnOptions): Promise<LearnReport>;

/** One message of a turn memory learned from, kept as an episode. */
export interface Episode {
  /** `ep-` and 16 hex digits of its content (user, conversation, role, time, place in the turn, text). */
  id: string;
  userId: string;
  conversationId: string;
  role: 'user' | 'assistant' | (string & {});
  /** The message, secrets handled by the `secrets` policy. */
  text: string;
  /** When the turn happened (millisecond UTC). */
  at: string;
  /** Its embedding of the embedder's model, quantized (i8). */
  vector?: { model: string; values: number[] };
}

/** One episode `searchEpisodes` found. */
export interface EpisodeHit {
  id: string;
  conversationId: string;
  role: string;
  text: string;
  at: string;
  /** BM25 (`ranked`), the fused RRF score (`hybrid`), or 1 (`terms`, newest first). */
  score: number;
}

/** Options of `searchEpisodes`. */
export interface EpisodeSearchOptions {
  /** Default the config's `search.mode` (`auto`: hybrid with an embedder, else ranked). */
  mode?: 'auto' | 'terms' | 'ranked' | 'hybrid';
  /** 1–1000; default the config's `search.limit` (10). */
  limit?: number;
  conversationId?: string;
  /** Only what was said by then (RFC 3339). */
  asOf?: string;
  embedder?: Embedder;
  embedTimeoutMs?: number;
  config?: UserMemoryConfigInput;
  log?: (event: LogEvent) => void;
  storeTimeoutMs?: number;
}

/**
 * The user's episodes most relevant to `query`, best first.
 * @example const hits = await searchEpisodes(store, 'u1', 'when is the wedding', { limit: 5 });
 */
export function searchEpisodes(store: EntryStore, userId: string, query: string, options?: EpisodeSearchOptions): Promise<EpisodeHit[]>;

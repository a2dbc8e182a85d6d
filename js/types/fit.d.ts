// memcore typings: Budget fitting and the language model (behaviour §1.4, §1.5, §5).
import type { TimeInput } from './profile.js';
import type { Tokenizer, TokenizerOptions } from './tokens.js';

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
 * The deterministic hard cut of behaviour §1.5: whole lines from the top, then the marker; text within
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
 * A model request (behaviour §5). `signal` is aborted when memcore gives up on the call (its deadline
 * passed): stop the request then. Absent on requests built by `buildGatePrompt` and friends.
 */
export interface ModelRequest { purpose: 'gate' | 'consolidate' | 'condense' | 'dream' | 'extract'; system: string; user: string; maxOutputTokens: number; signal?: AbortSignal }
/** Token usage a model reports. */
export interface ModelUsage { inputTokens: number; outputTokens: number }
/** A model answer: the text, or the text with usage. */
export type ModelAnswer = string | { text: string; usage?: ModelUsage };
/**
 * memcore's language model: an object with `complete`, or the function itself. From the AI SDK:
 * `aiSdkModel(model)` (`memcore/ai-sdk`); OpenAI-compatible endpoints: `openAIChatModel`.
 */
export type MemoryModel = { complete(request: ModelRequest): ModelAnswer | Promise<ModelAnswer> } | ((request: ModelRequest) => ModelAnswer | Promise<ModelAnswer>);
/** @deprecated Use {@link MemoryModel}: the name is the AI SDK's too, and the two types differ. */
export type LanguageModel = MemoryModel;

/** Options of `fitProfile`. */
export interface FitOptions extends TokenizerOptions {
  /** 500–8000, default 2000; outside → `E_CONFIG`. */
  maxTokens?: number;
  /** Optional model condensing (step 2); a bad answer or an error is ignored and reported. */
  condense?: MemoryModel;
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

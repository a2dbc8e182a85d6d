// memcore typings: the host's embedder (issue 21; docs/reference/embeddings.md).

/** Why texts are embedded: stored entries (`document`) or a search (`query`). */
export type EmbedPurpose = 'document' | 'query';

/** What the core passes to `Embedder.embed`: at most `maxBatch` texts per call. */
export interface EmbedRequest {
  /** The texts to embed (an entry is embedded as `key: value`). */
  texts: string[];
  /** `document` for entries, `query` for a search; models trained with instructions embed them differently. */
  purpose: EmbedPurpose;
  /** Aborted at the call's deadline (`embedTimeoutMs`) or when the operation is cancelled. */
  signal: AbortSignal;
}

/** What `Embedder.embed` resolves to. */
export interface EmbedResult {
  /** One vector per text, in the order of `texts`: finite numbers, not all zero, each of the model's length. */
  vectors: ArrayLike<number>[];
  /** The model id that made them, when the embedder reports it. */
  model?: string;
}

/**
 * The host's embedding model, like the language model: vectors belong to its `model` id and are
 * never compared with another model's. A failure (throw, reject, hang past the deadline, a wrong
 * count or length, a non-finite component, an answer too large) never fails a write: the entry is
 * stored without a vector and the failure is reported. Bundled: `openAIEmbeddings`
 * (`memcore/adapters/openai`) and `workersAIEmbeddings` (`memcore/adapters/workers-ai`).
 * @example
 * import type { Embedder } from 'memcore';
 * const embedder: Embedder = {
 *   model: 'my-model-v1',
 *   dimensions: 3,
 *   maxBatch: 16,
 *   async embed({ texts, signal }) {
 *     signal.throwIfAborted();
 *     return { vectors: texts.map((t) => [t.length, 1, 0]) };
 *   },
 * };
 */
export interface Embedder {
  /** The model id vectors belong to. */
  readonly model: string;
  /** Vector length, when known up front (else learned from the first answer). */
  readonly dimensions?: number;
  /** At most this many texts per call (default 32). */
  readonly maxBatch?: number;
  embed(request: EmbedRequest): Promise<EmbedResult>;
}

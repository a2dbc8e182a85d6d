// Typings for `memcore/adapters/workers-ai` (a Cloudflare Worker with an `AI` binding).
import type { Embedder } from '../index.js';
import type { EmbedderAnswer, EmbedderRequest } from './openai.js';

export type { EmbedderAnswer, EmbedderRequest } from './openai.js';

/**
 * The part of the Workers AI binding (`env.AI`) the embedder uses; the binding's own type (`Ai`
 * from `@cloudflare/workers-types`) fits it.
 */
export interface WorkersAIBinding {
  run(model: string, inputs: { text: string[] }, options?: { signal?: AbortSignal }): Promise<unknown>;
}

/** Options of `workersAIEmbeddings`. */
export interface WorkersAIEmbeddingsOptions {
  /** The binding: `env.AI` (`[ai] binding = "AI"` in wrangler.toml). */
  ai: WorkersAIBinding;
  /** A Workers AI text-embedding model (default `@cf/baai/bge-small-en-v1.5`, 384 dimensions). */
  model?: string;
  /** The length every vector must have (known for `@cf/baai/bge-*`; else learned from the first answer). */
  dimensions?: number;
  /** Texts per `run` call (default 32, at most 1000); longer inputs are sent as consecutive calls, in order. */
  maxBatch?: number;
}

/** `details` of the `E_HOST` errors `embed` rejects with. */
export interface WorkersAIErrorDetails {
  /** The model id. */
  model: string;
  /** Worth retrying later: cancellation, unknown binding failures, Workers AI codes 3007, 3008, 3036, 3040. */
  transient: boolean;
  /** The Workers AI error code the binding's message carried (e.g. 5007: no such model). */
  code?: number;
  /** `true` when `request.signal` was aborted. */
  cancelled?: boolean;
}

/** The embedder `workersAIEmbeddings` returns (an `Embedder`). */
export interface WorkersAIEmbedder extends Embedder {
  readonly model: string;
  /** Known up front for the `@cf/baai/bge-*` models, else set by the first answer. */
  readonly dimensions: number | undefined;
  readonly maxBatch: number;
  embed(request: EmbedderRequest): Promise<EmbedderAnswer>;
}

/**
 * An embedder over Cloudflare Workers AI: `ai.run(model, { text: texts }, { signal })`, the answer
 * (`{ shape, data }`) checked to be one finite vector of one length per text. Rejects `E_HOST`
 * (`details: WorkersAIErrorDetails`, never quoting the input texts) when the binding throws or
 * answers another shape; throws `E_CONFIG` (`details.path`) at creation for bad options.
 * @example
 * import { workersAIEmbeddings } from 'memcore/adapters/workers-ai';
 * export default {
 *   async fetch(request: Request, env: { AI: Ai }) {
 *     const embedder = workersAIEmbeddings({ ai: env.AI });
 *     const { vectors } = await embedder.embed({ texts: ['home_city: Lisbon'], purpose: 'document', signal: request.signal });
 *     return Response.json({ model: embedder.model, length: vectors[0].length });
 *   },
 * };
 */
export function workersAIEmbeddings(options: WorkersAIEmbeddingsOptions): WorkersAIEmbedder;

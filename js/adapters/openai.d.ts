// Typings for `memcore/adapters/openai` (every runtime with `fetch`).
import type { EmbedRequest, Embedder, ModelRequest, ModelUsage } from '../index.js';

/** The `fetch` signature the adapter needs (the global one by default). */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** Options of `openAIChatModel`. */
export interface OpenAIChatModelOptions {
  /**
   * API root such as `https://api.openai.com/v1` (a trailing slash is fine); `/chat/completions` is
   * appended to its path, a query string is kept after it (`?api-version=…` for Azure and gateways)
   * and shown in errors with every value `[REDACTED]`; a `#fragment` is dropped.
   */
  baseURL: string;
  /**
   * Sent as `authorization: Bearer <apiKey>`; omit for endpoints without auth. Never appears in
   * errors: replaced by `[REDACTED]` wherever it stands as a whole token (a key `k1` leaves `k12`
   * alone; one of 16 characters or more is replaced anywhere).
   */
  apiKey?: string | null;
  /** Model name, e.g. `gpt-4o-mini`. */
  model: string;
  /** Abort the whole call (redirect hops and body read included) after this many milliseconds (default 30000). */
  timeoutMs?: number;
  /**
   * Refuse a response body larger than this many bytes, counted as they stream in after
   * decompression, so a gzip bomb is bounded too (default 4194304 = 4 MiB; a positive integer).
   */
  maxResponseBytes?: number;
  /** `true`: send `max_completion_tokens` and no `temperature`; `false` (default): `max_tokens` and `temperature: 0`. */
  reasoningModel?: boolean;
  /** Extra request headers (e.g. an organisation or a gateway header); values of secret-looking ones (`api-key`, `authorization`, `*token*`, …) are redacted from errors like the key. */
  headers?: Record<string, string>;
  /** A custom `fetch` (tests, proxies, runtimes without a global one). */
  fetch?: FetchFunction;
}

/**
 * What `complete` accepts: the core's request plus an optional `signal`. Aborting it cancels the
 * fetch and the body read; the call rejects `E_HOST` with `details.cancelled: true`.
 */
export type ChatModelRequest = ModelRequest & { signal?: AbortSignal };

/** What `complete` resolves to. */
export interface ChatModelAnswer {
  text: string;
  /** Present when the endpoint reports `usage.prompt_tokens` and `usage.completion_tokens`. */
  usage?: ModelUsage;
}

/** `details` of the `E_HOST` errors `complete` rejects with. */
export interface ModelErrorDetails {
  /** HTTP status, or `null` for timeouts, cancellation, network errors and browser opaque redirects. */
  status: number | null;
  /** Worth retrying later: timeouts, cancellation, network errors, HTTP 429 and 5xx. */
  transient: boolean;
  /** First 500 characters of the response body (HTTP errors and unparseable answers). */
  body?: string;
  /** HTTP errors: the `retry-after` header in milliseconds (delta-seconds or HTTP-date), `null` when absent or unparsable. */
  retryAfterMs?: number | null;
  /** `true` when `request.signal` was aborted. */
  cancelled?: boolean;
  /** The `maxResponseBytes` cap a too-large response exceeded. */
  limitBytes?: number;
  /** The origin of a refused cross-origin redirect (never its path or query). */
  redirect?: string;
}

/** The language model the adapter returns (behaviour §5). */
export interface ChatModel {
  complete(request: ChatModelRequest): Promise<ChatModelAnswer>;
}

/**
 * A language model over an OpenAI-compatible `POST /chat/completions` endpoint. Rejects with
 * `MemcoreError` `E_HOST` (`details: ModelErrorDetails`) on HTTP errors, timeouts, cancellation
 * (`request.signal`), network errors, malformed answers, bodies over `maxResponseBytes`,
 * cross-origin redirects (never followed: the prompt is not sent to another origin), 301/302/303
 * redirects and more than 3 same-origin 307/308 hops; throws `E_CONFIG` (`details.path`) at
 * creation for bad options, including credentials in `baseURL` (pass `apiKey`). The API key,
 * secret-looking header values, URL userinfo and URL query values never appear in errors.
 * @example
 * import { openAIChatModel } from 'memcore/adapters/openai';
 * const model = openAIChatModel({ baseURL: 'https://api.openai.com/v1', apiKey: process.env.OPENAI_API_KEY ?? '', model: 'gpt-4o-mini', timeoutMs: 20000 });
 * const answer = await model.complete({ purpose: 'gate', system: 'Answer UPDATE or NOOP.', user: 'I moved to Lyon.', maxOutputTokens: 4, signal: AbortSignal.timeout(10000) });
 * console.log(answer.text, answer.usage?.inputTokens);
 */
export function openAIChatModel(options: OpenAIChatModelOptions): ChatModel;

/** Options of `openAIEmbeddings`: the HTTP options of `openAIChatModel`, and the embedding ones. */
export interface OpenAIEmbeddingsOptions {
  /**
   * API root such as `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1` (Ollama) or an Azure
   * deployment with `?api-version=…`; `/embeddings` is appended to its path, a query string kept.
   */
  baseURL: string;
  /** Sent as `authorization: Bearer <apiKey>`; omit for endpoints without auth. Never appears in errors. */
  apiKey?: string | null;
  /** Model name, e.g. `text-embedding-3-small`, `nomic-embed-text`, `BAAI/bge-small-en-v1.5`. */
  model: string;
  /**
   * Vector length to ask for (models that can shorten their vectors, such as text-embedding-3-*);
   * every answered vector must have it. The embedder's `model` id is then `${model}@${dimensions}`.
   */
  dimensions?: number;
  /** Texts per HTTP request (default 64, at most 2048); longer inputs are sent as consecutive requests, in order. */
  maxBatch?: number;
  /** Prepended to each text of a `query` request (e5: `'query: '`; nomic: `'search_query: '`). Default none. */
  queryPrefix?: string;
  /** Prepended to each text of a `document` request (e5: `'passage: '`; nomic: `'search_document: '`). Default none. */
  documentPrefix?: string;
  /** Abort each HTTP request (redirect hops and body read included) after this many milliseconds (default 30000). */
  timeoutMs?: number;
  /** Refuse a response body larger than this many bytes, counted as it streams in (default 16777216 = 16 MiB). */
  maxResponseBytes?: number;
  /** Extra request headers (Azure's `api-key`, a gateway header); secret-looking values are redacted from errors. */
  headers?: Record<string, string>;
  /** A custom `fetch` (tests, proxies, runtimes without a global one). */
  fetch?: FetchFunction;
}

/** What `embed` of a bundled embedder accepts: the contract's request, with `signal` optional. */
export type EmbedderRequest = Omit<EmbedRequest, 'signal'> & { signal?: AbortSignal };

/** What `embed` of a bundled embedder resolves to: one `Float32Array` per text, in input order. */
export interface EmbedderAnswer {
  vectors: Float32Array[];
  /** The embedder's `model` id. */
  model: string;
}

/** The embedder `openAIEmbeddings` returns (an `Embedder`). */
export interface OpenAIEmbedder extends Embedder {
  /** `model`, or `${model}@${dimensions}` when `dimensions` was given. */
  readonly model: string;
  readonly dimensions: number | undefined;
  readonly maxBatch: number;
  embed(request: EmbedderRequest): Promise<EmbedderAnswer>;
}

/**
 * An embedder over an OpenAI-compatible `POST /embeddings` endpoint (OpenAI, Azure OpenAI, Ollama,
 * vLLM, TEI, LM Studio), with the chat adapter's limits: rejects `E_HOST`
 * (`details: ModelErrorDetails`) on HTTP errors, timeouts, cancellation, bodies over
 * `maxResponseBytes`, refused redirects and answers that are not one finite vector per text
 * (answers in base64 are decoded; `data[i].index` puts them in order). Throws `E_CONFIG`
 * (`details.path`) at creation for bad options. The API key, secret-looking values and the input
 * texts never appear in errors.
 * @example
 * import { openAIEmbeddings } from 'memcore/adapters/openai';
 * const embedder = openAIEmbeddings({ baseURL: 'http://127.0.0.1:11434/v1', model: 'nomic-embed-text', queryPrefix: 'search_query: ', documentPrefix: 'search_document: ' });
 * const { vectors } = await embedder.embed({ texts: ['dog_name: Rex'], purpose: 'document', signal: AbortSignal.timeout(10000) });
 * console.log(embedder.model, vectors[0].length);
 */
export function openAIEmbeddings(options: OpenAIEmbeddingsOptions): OpenAIEmbedder;

// Typings for `memcore/adapters/openai` (every runtime with `fetch`).
import type { ModelRequest, ModelUsage } from '../index.js';

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

/** The language model the adapter returns (SPEC §5). */
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

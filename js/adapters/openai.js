// Language-model adapter for OpenAI-compatible chat completions over `fetch` (behaviour §5). Works in
// every runtime with a global `fetch` (Node ≥ 20, browsers, workerd, Vercel Edge) or with an
// injected one. No `node:` imports: this file is loaded by every runtime.
// The HTTP side (limits, redirects, errors, redaction) is js/adapters/openai-http.js, shared with
// openAIEmbeddings (js/adapters/openai-embeddings.js, re-exported below).
import { MemcoreError } from '../errors.js';
import { endpointURL, excerpt, hostError, isSignal, parseJSONAnswer, postJSON, validateHttpOptions } from './openai-http.js';

export { openAIEmbeddings } from './openai-embeddings.js';

const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
const NOUN = 'model';

/**
 * A language model (`{ complete(request) }`) backed by `POST ${baseURL}/chat/completions`.
 *
 * Options (bad ones throw `E_CONFIG` with `details.path` when the model is created):
 * - `baseURL` (required) — API root such as `https://api.openai.com/v1`; http(s) only, and no
 *   `user:pass@` credentials in it (pass `apiKey` instead). A query string is kept and the path
 *   appended before it (`https://gw/v1?api-version=X` posts to `https://gw/v1/chat/completions?api-version=X`);
 *   a `#fragment` is dropped.
 * - `apiKey` — sent as `authorization: Bearer …`; omit for endpoints without auth.
 * - `model` (required), `reasoningModel` (default `false`), `headers` (default `{}`), `fetch`
 *   (default the global one).
 * - `timeoutMs` (default 30000) — the whole call, redirects and body read included.
 * - `maxResponseBytes` (default 4194304 = 4 MiB) — the body is read as a stream and the call is
 *   refused as soon as more arrives (decompressed bytes count, so a gzip bomb is bounded too).
 *
 * `request.signal` (an `AbortSignal`, optional) cancels the call: the fetch and the body read are
 * aborted and the call rejects `E_HOST` with `details.cancelled: true`. Whichever of the signal and
 * `timeoutMs` fires first wins.
 *
 * Errors are `MemcoreError('E_HOST')` with `details.transient` (worth retrying later: timeouts,
 * cancellation, network errors, 429, 5xx) and `details.status` (HTTP status or `null`); HTTP errors
 * also carry `details.body` (the first 500 characters of the response) and `details.retryAfterMs`
 * (from a `retry-after` header, else `null`). Refused: cross-origin redirects (the prompt is never
 * sent to another origin), method-changing redirects (301/302/303), more than 3 same-origin
 * 307/308 hops, bodies over `maxResponseBytes`. The API key (as a whole token), secret-looking
 * header values, URL userinfo and query values (every URL an error shows reads
 * `?api-version=[REDACTED]&key=[REDACTED]`) never appear in errors.
 *
 * @example
 * const model = openAIChatModel({ baseURL: 'https://api.openai.com/v1', apiKey: process.env.OPENAI_API_KEY, model: 'gpt-4o-mini' });
 * const { text, usage } = await model.complete({ purpose: 'gate', system: 'Answer UPDATE or NOOP.', user: '…', maxOutputTokens: 4, signal: AbortSignal.timeout(10000) });
 */
export function openAIChatModel(options) {
  const config = validateHttpOptions(options, {
    fn: 'openAIChatModel',
    example: '{ baseURL: "https://api.openai.com/v1", apiKey, model: "gpt-4o-mini" }',
    modelExample: 'gpt-4o-mini',
    timeoutMs: 30000,
    maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
    more: ({ reasoningModel = false }, fail) => {
      if (typeof reasoningModel !== 'boolean') throw fail('reasoningModel', 'openAIChatModel: reasoningModel must be true or false');
      return { reasoningModel };
    },
  });
  const url = endpointURL(config.baseURL, 'chat/completions');

  async function complete(request) {
    checkRequest(request);
    const body = {
      model: config.model,
      messages: [
        { role: 'system', content: request.system },
        { role: 'user', content: request.user },
      ],
    };
    if (config.reasoningModel) {
      body.max_completion_tokens = request.maxOutputTokens;
    } else {
      body.max_tokens = request.maxOutputTokens;
      body.temperature = 0;
    }
    const { target, status, text } = await postJSON(config, {
      url,
      payload: JSON.stringify(body),
      signal: request.signal ?? null,
      noun: NOUN,
      badRequestHint: 'check the request options (model, token limits)',
    });
    return parseAnswer(target, status, text, config.secrets);
  }

  return { complete };
}

function checkRequest(request) {
  const bad = (argument, what) =>
    new MemcoreError('E_ARGUMENT', `complete: request.${argument} must be ${what}`, { function: 'complete', argument: `request.${argument}` });
  if (request === null || typeof request !== 'object') {
    throw new MemcoreError('E_ARGUMENT', 'complete: request must be { purpose, system, user, maxOutputTokens, signal? }', {
      function: 'complete',
      argument: 'request',
    });
  }
  if (typeof request.system !== 'string') throw bad('system', 'a string');
  if (typeof request.user !== 'string') throw bad('user', 'a string');
  if (!Number.isInteger(request.maxOutputTokens) || request.maxOutputTokens <= 0) throw bad('maxOutputTokens', 'a positive integer');
  const { signal } = request;
  if (signal !== undefined && signal !== null && !isSignal(signal)) throw bad('signal', 'an AbortSignal (or absent)');
}

function parseAnswer(url, status, raw, secrets) {
  const json = parseJSONAnswer(url, status, raw, NOUN, secrets);
  const content = json?.choices?.[0]?.message?.content;
  if (typeof content !== 'string') {
    throw hostError(
      `model response from ${url} has no choices[0].message.content; check the model name and endpoint`,
      { status, transient: false, body: excerpt(raw, secrets) },
      secrets,
    );
  }
  const answer = { text: content };
  const usage = json.usage;
  if (usage && Number.isFinite(usage.prompt_tokens) && Number.isFinite(usage.completion_tokens)) {
    answer.usage = { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens };
  }
  return answer;
}

// Embedder for OpenAI-compatible `POST /embeddings` endpoints over `fetch` (OpenAI, Azure OpenAI,
// Ollama, vLLM, TEI, LM Studio, llama.cpp, …). Exported from `memcore/adapters/openai`. The HTTP
// side — option rules, deadline, signal, redirects, size cap, errors, redaction — is the chat
// adapter's (js/adapters/openai-http.js). No `node:` imports: this file is loaded by every runtime.
import { endpointURL, excerpt, hostError, parseJSONAnswer, postJSON, validateHttpOptions } from './openai-http.js';
import { batches, checkEmbedRequest, lengthProblem, positiveInteger, toVector, withoutInputs } from './embedder-contract.js';

/**
 * 16 MiB. The largest common answer at the default batch of 64 is 64 × 3072 floats
 * (text-embedding-3-large) ≈ 4.2 MB as compact JSON (~21 bytes a float), ≈ 6.3 MB pretty-printed
 * by some servers: 16 MiB leaves more than twice that, and still bounds what a broken or hostile
 * endpoint can make us hold (the 4 MiB of the chat adapter would refuse real answers).
 */
const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
const DEFAULT_MAX_BATCH = 64;
/** OpenAI's own limit of inputs per request. */
const MAX_BATCH = 2048;
const MAX_DIMENSIONS = 65536;
const NOUN = 'embedding';
const FN = 'openAIEmbeddings';

/**
 * An embedder (`{ model, dimensions, maxBatch, embed(request) }`, the Embedder contract) backed by
 * `POST ${baseURL}/embeddings` with `{ model, input, encoding_format: 'float', dimensions? }`.
 *
 * Options (bad ones throw `E_CONFIG` with `details.path` when the embedder is created):
 * - `baseURL`, `apiKey`, `headers`, `fetch`, `timeoutMs` (default 30000, per HTTP request) — as in
 *   `openAIChatModel`: a query string is kept after the appended path (Azure's `?api-version=`).
 * - `model` (required) — e.g. `text-embedding-3-small`, `nomic-embed-text` (Ollama).
 * - `dimensions` — sent to the endpoint (models that can shorten their vectors), and every answered
 *   vector must have that length. The embedder's `model` id is then `${model}@${dimensions}`, so
 *   vectors of two lengths of one model are never mixed.
 * - `maxBatch` (default 64, at most 2048) — texts per HTTP request; a longer `texts` is sent as
 *   consecutive requests, in order.
 * - `maxResponseBytes` (default 16777216 = 16 MiB) — per HTTP request, counted as the body streams.
 * - `queryPrefix`, `documentPrefix` (default none) — prepended to each text by `purpose`, for models
 *   trained with instructions: e5 (`'query: '`, `'passage: '`), bge v1.5 (a query instruction),
 *   nomic-embed-text (`'search_query: '`, `'search_document: '`). OpenAI's API has no `purpose`.
 *
 * `embed({ texts, purpose, signal })` resolves `{ vectors: Float32Array[], model }` in the order of
 * `texts` (answers are put in order by `data[i].index`, each index checked to appear once; an
 * answer in base64 is decoded as little-endian f32). It rejects `E_HOST` (`details.transient`,
 * `details.status`, and for HTTP errors `details.body` and `details.retryAfterMs`) on HTTP errors,
 * timeouts, `signal` aborts (`details.cancelled`), bodies over `maxResponseBytes`, refused
 * redirects, and answers that are not one finite vector per text. The API key, secret-looking
 * values and the texts themselves never appear in errors.
 *
 * @example
 * const embedder = openAIEmbeddings({ baseURL: 'https://api.openai.com/v1', apiKey: process.env.OPENAI_API_KEY, model: 'text-embedding-3-small' });
 * const { vectors } = await embedder.embed({ texts: ['home_city: Lisbon'], purpose: 'document', signal: AbortSignal.timeout(10000) });
 */
export function openAIEmbeddings(options) {
  const config = validateHttpOptions(options, {
    fn: FN,
    example: '{ baseURL: "https://api.openai.com/v1", apiKey, model: "text-embedding-3-small" }',
    modelExample: 'text-embedding-3-small',
    timeoutMs: 30000,
    maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
    more: embeddingOptions,
  });
  const url = endpointURL(config.baseURL, 'embeddings');
  const id = config.dimensions === undefined ? config.model : `${config.model}@${config.dimensions}`;

  async function embedBatch(texts, purpose, signal) {
    const prefix = purpose === 'query' ? config.queryPrefix : config.documentPrefix;
    const body = { model: config.model, input: prefix ? texts.map((t) => prefix + t) : texts, encoding_format: 'float' };
    if (config.dimensions !== undefined) body.dimensions = config.dimensions;
    const { target, status, text } = await postJSON(config, {
      url,
      payload: JSON.stringify(body),
      signal,
      noun: NOUN,
      badRequestHint: 'check the request options (model, dimensions, input length)',
    });
    return vectorsOf(parseJSONAnswer(target, status, text, NOUN, config.secrets), texts.length, { target, status, raw: text });
  }

  function vectorsOf(json, count, { target, status, raw }) {
    const fail = (problem, body) =>
      hostError(
        `embedding response from ${target} ${problem}; check the model name and that the endpoint speaks OpenAI's /embeddings`,
        body ? { status, transient: false, body: excerpt(raw, config.secrets) } : { status, transient: false },
        config.secrets,
      );
    const data = json?.data;
    if (!Array.isArray(data)) throw fail('has no data array', true);
    if (data.length !== count) throw fail(`answered ${data.length} vectors for ${count} texts`);
    // Every item carries `index` (OpenAI and its clones do); a server that leaves it out of every
    // item is taken in answer order.
    const indexed = data.some((item) => item !== null && typeof item === 'object' && 'index' in item);
    const vectors = new Array(count);
    for (let i = 0; i < count; i++) {
      const item = data[i];
      if (item === null || typeof item !== 'object') throw fail(`has data[${i}] that is not an object`);
      let at = i;
      if (indexed) {
        at = item.index;
        if (!Number.isInteger(at) || at < 0 || at >= count) throw fail(`has data[${i}].index that is not an integer from 0 to ${count - 1}`);
        if (vectors[at] !== undefined) throw fail(`has index ${at} twice`);
      }
      const { vector, problem } = toVector(item.embedding, `data[${i}].embedding`);
      if (problem) throw fail(`has ${problem}`);
      vectors[at] = vector;
    }
    const problem = lengthProblem(vectors, config.dimensions);
    if (problem) throw fail(`has ${problem}`);
    return vectors;
  }

  async function embed(request) {
    checkEmbedRequest(request);
    const { texts, purpose } = request;
    const signal = request.signal ?? null;
    const vectors = [];
    try {
      for (const batch of batches(texts, config.maxBatch)) vectors.push(...(await embedBatch(batch, purpose, signal)));
    } catch (error) {
      throw withoutInputs(error, texts);
    }
    // One length across batches too (the core learns a model's dimension from its first answer).
    const problem = lengthProblem(vectors, config.dimensions);
    if (problem) throw hostError(`embedding responses from ${url} disagree: ${problem}; check the endpoint`, { status: null, transient: false }, config.secrets);
    return { vectors, model: id };
  }

  return Object.freeze({ model: id, dimensions: config.dimensions, maxBatch: config.maxBatch, embed });
}

// The embedder's own options, checked after the shared ones (`fail(path, message)` → E_CONFIG).
function embeddingOptions(options, fail) {
  const { queryPrefix = '', documentPrefix = '' } = options;
  const dimensions = positiveInteger(options.dimensions, { path: 'dimensions', fn: FN, fallback: undefined, max: MAX_DIMENSIONS, fail });
  const maxBatch = positiveInteger(options.maxBatch, { path: 'maxBatch', fn: FN, fallback: DEFAULT_MAX_BATCH, max: MAX_BATCH, fail });
  if (typeof queryPrefix !== 'string') throw fail('queryPrefix', `${FN}: queryPrefix must be a string (default none)`);
  if (typeof documentPrefix !== 'string') throw fail('documentPrefix', `${FN}: documentPrefix must be a string (default none)`);
  return { dimensions, maxBatch, queryPrefix, documentPrefix };
}

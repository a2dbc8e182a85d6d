// Embedder over Cloudflare Workers AI's binding (`env.AI` in a Worker): `ai.run(model, { text })`
// answers `{ shape: [n, dims], data: number[][] }` for the text-embedding models. Exported as
// `memcore/adapters/workers-ai`. No `node:` imports, no fetch: the binding is the transport.
import { MemcoreError } from '../errors.js';
import { batches, checkEmbedRequest, lengthProblem, positiveInteger, quotable, toVector } from './embedder-contract.js';

const DEFAULT_MODEL = '@cf/baai/bge-small-en-v1.5';
/** The vector lengths of Workers AI's text-embedding models, when known up front. */
const KNOWN_DIMENSIONS = {
  '@cf/baai/bge-small-en-v1.5': 384,
  '@cf/baai/bge-base-en-v1.5': 768,
  '@cf/baai/bge-large-en-v1.5': 1024,
  '@cf/baai/bge-m3': 1024,
};
const DEFAULT_MAX_BATCH = 32;
const MAX_BATCH = 1000;
const MAX_DIMENSIONS = 65536;
const FN = 'workersAIEmbeddings';
// Workers AI's internal error codes that are worth retrying later (developers.cloudflare.com,
// workers-ai/platform/errors): timeout, aborted, daily allocation used up, out of capacity.
const TRANSIENT_CODES = new Set([3007, 3008, 3036, 3040]);

/**
 * An embedder (`{ model, dimensions, maxBatch, embed(request) }`, the Embedder contract) over a
 * Workers AI binding.
 *
 * Options (bad ones throw `E_CONFIG` with `details.path`):
 * - `ai` (required) — the binding (`env.AI`; `[ai] binding = "AI"` in wrangler.toml), or any object
 *   with the same `run(model, inputs, options)`.
 * - `model` (default `@cf/baai/bge-small-en-v1.5`, 384 dimensions) — any Workers AI text-embedding
 *   model; `dimensions` is known for the `@cf/baai/bge-*` ones, else learned from the first answer.
 * - `dimensions` — the vector length every answer must have (not sent: the models have one length).
 * - `maxBatch` (default 32, at most 1000) — texts per `run` call; longer `texts` are sent as
 *   consecutive calls, in order.
 *
 * `embed({ texts, purpose, signal })` calls `ai.run(model, { text: texts }, { signal })` (the
 * binding's `AiOptions.signal`; the call is also raced against the signal, so a binding that
 * ignores it cannot hold the caller) and resolves `{ vectors: Float32Array[], model }` in input
 * order. It rejects `E_HOST` with `details.model` and `details.transient` (and `details.code`, the
 * Workers AI error code, when the binding's error carries one) when the binding throws or answers
 * anything but one finite vector of one length per text, and with `details.cancelled` when the
 * signal aborts. The input texts never appear in an error: a binding message that quotes one is
 * left out.
 *
 * @example
 * const embedder = workersAIEmbeddings({ ai: env.AI });
 * const { vectors } = await embedder.embed({ texts: ['home_city: Lisbon'], purpose: 'document', signal: AbortSignal.timeout(10000) });
 */
export function workersAIEmbeddings(options) {
  const config = validate(options);
  const { ai, model } = config;

  async function runBatch(texts, signal) {
    // Aborted between two batches: the 'abort' event has fired already and would not reach us.
    if (signal?.aborted) throw cancelledError(model);
    let rejectAborted;
    const aborted = new Promise((_, reject) => (rejectAborted = reject));
    aborted.catch(() => {});
    const onAbort = () => rejectAborted(cancelledError(model));
    signal?.addEventListener('abort', onAbort, { once: true });
    let answer;
    try {
      // A binding may throw synchronously; `then` turns that into a rejection like an async one.
      const pending = Promise.resolve().then(() => ai.run(model, { text: texts }, signal ? { signal } : {}));
      answer = await Promise.race([pending, aborted]);
    } catch (error) {
      if (error instanceof MemcoreError && error.details?.cancelled) throw error;
      if (signal?.aborted) throw cancelledError(model);
      throw bindingError(model, error, texts);
    } finally {
      signal?.removeEventListener?.('abort', onAbort);
    }
    try {
      return vectorsOf(answer, texts.length, config);
    } catch (error) {
      if (error instanceof MemcoreError) throw error;
      // An answer object whose getters throw (not plain data).
      throw new MemcoreError('E_HOST', `Workers AI model ${model} answered an object that cannot be read; check the binding`, { model, transient: false });
    }
  }

  async function embed(request) {
    checkEmbedRequest(request);
    const signal = request.signal ?? null;
    const vectors = [];
    for (const batch of batches(request.texts, config.maxBatch)) {
      const answered = await runBatch(batch, signal);
      // Learned once, then held: every later answer must have the same length.
      config.dimensions ??= answered[0]?.length;
      vectors.push(...answered);
    }
    return { vectors, model };
  }

  return {
    model,
    get dimensions() {
      return config.dimensions;
    },
    maxBatch: config.maxBatch,
    embed,
  };
}

function validate(options) {
  const fail = (path, message) => new MemcoreError('E_CONFIG', message, { path });
  if (options === null || typeof options !== 'object') throw fail('options', `${FN} needs options like { ai: env.AI }`);
  const { ai, model = DEFAULT_MODEL } = options;
  if (ai === null || (typeof ai !== 'object' && typeof ai !== 'function') || typeof ai.run !== 'function') {
    throw fail('ai', `${FN}: ai must be the Workers AI binding (env.AI, from [ai] binding = "AI" in wrangler.toml) or an object with run(model, inputs)`);
  }
  if (typeof model !== 'string' || model.trim().length === 0) {
    throw fail('model', `${FN}: model must be a Workers AI text-embedding model id, e.g. "${DEFAULT_MODEL}"`);
  }
  const dimensions = positiveInteger(options.dimensions, { path: 'dimensions', fn: FN, fallback: KNOWN_DIMENSIONS[model], max: MAX_DIMENSIONS, fail });
  const maxBatch = positiveInteger(options.maxBatch, { path: 'maxBatch', fn: FN, fallback: DEFAULT_MAX_BATCH, max: MAX_BATCH, fail });
  return { ai, model, dimensions, maxBatch };
}

function vectorsOf(answer, count, config) {
  const fail = (problem) =>
    new MemcoreError('E_HOST', `Workers AI model ${config.model} answered ${problem}; check that it is a text-embedding model`, {
      model: config.model,
      transient: false,
    });
  if (answer === null || typeof answer !== 'object') throw fail(answer === undefined ? 'nothing' : `a ${answer === null ? 'null' : typeof answer}, not { shape, data }`);
  if (typeof answer.request_id === 'string' && !Array.isArray(answer.data)) throw fail('an async request id (queued requests are not supported)');
  const { data, shape } = answer;
  if (!Array.isArray(data)) throw fail('no data array');
  if (data.length !== count) throw fail(`${data.length} vectors for ${count} texts`);
  const vectors = [];
  for (let i = 0; i < count; i++) {
    const { vector, problem } = toVector(data[i], `data[${i}]`);
    if (problem) throw fail(`with ${problem}`);
    vectors.push(vector);
  }
  const problem = lengthProblem(vectors, config.dimensions);
  if (problem) throw fail(`with ${problem}`);
  if (shape !== undefined && !(Array.isArray(shape) && shape.length === 2 && shape[0] === count && shape[1] === vectors[0].length)) {
    throw fail(`a shape that is not [${count}, ${vectors[0].length}] (the data's)`);
  }
  return vectors;
}

function bindingError(model, error, texts) {
  let message = '';
  try {
    message = typeof error === 'string' ? error : typeof error?.message === 'string' ? error.message : '';
  } catch {
    // a thrown object whose `message` getter throws: reported without a message
  }
  const code = /\b([35]\d{3})\b/.exec(message);
  const details = { model, transient: code ? TRANSIENT_CODES.has(Number(code[1])) : true };
  if (code) details.code = Number(code[1]);
  const shown = quotable(message, texts);
  const why = shown === null ? 'its message quoted the texts being embedded and is left out' : shown || 'no message';
  return new MemcoreError('E_HOST', `Workers AI model ${model} failed (${why}); ${details.transient ? 'retry later' : 'check the model id and the inputs'}`, details);
}

function cancelledError(model) {
  return new MemcoreError('E_HOST', `Workers AI model ${model} call was cancelled (request.signal was aborted)`, {
    model,
    transient: true,
    cancelled: true,
  });
}

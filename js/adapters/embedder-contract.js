// What every bundled embedder (openAIEmbeddings, workersAIEmbeddings) checks the same way under
// the Embedder contract (docs/reference/embeddings.md): the request, the batches, each answered vector, and
// that no error ever quotes the texts being embedded (entries hold personal data; errors get
// logged). Internal to the package. No `node:` imports: every runtime loads it.
import { MemcoreError } from '../errors.js';

const PURPOSES = ['document', 'query'];
/** A message or body sharing this many characters in a row with an input text is left out. */
const ECHO_WINDOW = 16;
/** Inputs shorter than this are not treated as quotable ("ok", "no" occur in any message). */
const ECHO_MIN = 4;
/** Longest error text from a host (body excerpt, binding message) kept in an error. */
const MAX_QUOTED = 500;

/** `E_ARGUMENT` unless `request` is `{ texts: string[], purpose: 'document' | 'query', signal? }`. */
export function checkEmbedRequest(request) {
  const bad = (argument, what) =>
    new MemcoreError('E_ARGUMENT', `embed: request.${argument} must be ${what}`, { function: 'embed', argument: `request.${argument}` });
  if (request === null || typeof request !== 'object') {
    throw new MemcoreError('E_ARGUMENT', "embed: request must be { texts: string[], purpose: 'document' | 'query', signal }", {
      function: 'embed',
      argument: 'request',
    });
  }
  const { texts, purpose, signal } = request;
  if (!Array.isArray(texts)) throw bad('texts', 'an array of strings');
  for (let i = 0; i < texts.length; i++) {
    if (typeof texts[i] !== 'string') throw bad(`texts[${i}]`, 'a string');
  }
  if (!PURPOSES.includes(purpose)) throw bad('purpose', '"document" or "query"');
  if (signal !== undefined && signal !== null) {
    if (typeof signal !== 'object' || typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function') {
      throw bad('signal', 'an AbortSignal (or absent)');
    }
  }
}

/** `texts` cut into consecutive slices of at most `size`, in order. */
export function batches(texts, size) {
  const out = [];
  for (let i = 0; i < texts.length; i += size) out.push(texts.slice(i, i + size));
  return out;
}

/**
 * Check a positive-integer option: `undefined` gives `fallback`; anything else must be an integer
 * in 1..max, else `fail(path, message)` is thrown.
 */
export function positiveInteger(value, { path, fn, fallback, max, fail }) {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0 || value > max) {
    throw fail(path, `${fn}: ${path} must be an integer from 1 to ${max}${fallback === undefined ? ' (or absent)' : ` (default ${fallback})`}`);
  }
  return value;
}

/**
 * One answered vector as a `Float32Array`: from an array of numbers, or from a base64 string of
 * little-endian f32 (what `encoding_format: 'base64'` answers). Returns `{ vector }` or
 * `{ problem }` (a phrase naming what is wrong, never a value of the input).
 */
export function toVector(embedding, where) {
  let vector;
  if (typeof embedding === 'string') {
    let bytes;
    try {
      bytes = base64Bytes(embedding);
    } catch {
      return { problem: `${where} is a string that is not base64` };
    }
    if (bytes.byteLength % 4 !== 0) return { problem: `${where} is base64 of ${bytes.byteLength} bytes, not a whole number of f32 values` };
    vector = new Float32Array(bytes.byteLength / 4);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = 0; i < vector.length; i++) vector[i] = view.getFloat32(i * 4, true);
  } else if (Array.isArray(embedding)) {
    vector = new Float32Array(embedding.length);
    for (let i = 0; i < embedding.length; i++) {
      const x = embedding[i];
      if (typeof x !== 'number') return { problem: `${where}[${i}] is ${kind(x)}, not a number` };
      vector[i] = x;
    }
  } else {
    return { problem: `${where} is ${kind(embedding)}, not an array of numbers` };
  }
  if (vector.length === 0) return { problem: `${where} is empty` };
  for (let i = 0; i < vector.length; i++) {
    // A JSON number beyond f32's range becomes ±Infinity here; base64 can carry NaN outright.
    if (!Number.isFinite(vector[i])) return { problem: `${where}[${i}] is not a finite f32 (${vector[i]})` };
  }
  return { vector };
}

/**
 * The problem with a batch's vectors as a whole, or `null`: every vector as long as the first,
 * and as long as `dimensions` when that is known.
 */
export function lengthProblem(vectors, dimensions) {
  const expected = dimensions ?? vectors[0]?.length;
  for (let i = 0; i < vectors.length; i++) {
    if (vectors[i].length !== expected) {
      return dimensions === undefined
        ? `vector ${i} has ${vectors[i].length} components and vector 0 has ${expected}`
        : `vector ${i} has ${vectors[i].length} components, not the ${dimensions} of dimensions`;
    }
  }
  return null;
}

/**
 * Whether `text` (an error message or a response body) quotes one of `inputs`: it shares
 * ${ECHO_WINDOW} characters in a row with one, or contains a shorter one whole. Conservative by
 * design: a false alarm only leaves a provider's message out of an error.
 */
export function quotesInput(text, inputs) {
  if (typeof text !== 'string' || text.length === 0) return false;
  const windows = new Set();
  for (let i = 0; i + ECHO_WINDOW <= text.length; i++) windows.add(text.slice(i, i + ECHO_WINDOW));
  for (const input of inputs) {
    if (input.length < ECHO_MIN) continue;
    if (input.length < ECHO_WINDOW) {
      if (text.includes(input)) return true;
      continue;
    }
    for (let j = 0; j + ECHO_WINDOW <= input.length; j++) if (windows.has(input.slice(j, j + ECHO_WINDOW))) return true;
  }
  return false;
}

/** A host's own error text fit to quote: `null` when it quotes an input, else at most 500 characters. */
export function quotable(text, inputs) {
  if (typeof text !== 'string' || quotesInput(text, inputs)) return null;
  return text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED)}…` : text;
}

/**
 * `error` with every string detail that quotes an input replaced by a note (a provider may echo
 * the input in an error body). Messages built by the adapters never hold input texts.
 */
export function withoutInputs(error, inputs) {
  if (!(error instanceof MemcoreError) || !error.details) return error;
  let changed = false;
  const details = {};
  for (const [name, value] of Object.entries(error.details)) {
    if (typeof value === 'string' && quotesInput(value, inputs)) {
      details[name] = '[left out: it quoted the texts being embedded]';
      changed = true;
    } else {
      details[name] = value;
    }
  }
  if (!changed) return error;
  const copy = new MemcoreError(error.code, error.message, details);
  copy.stack = error.stack;
  return copy;
}

// What a JSON value is, for a message (never the value itself: it may be anything).
function kind(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'missing';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

// `atob` is in every runtime memcore supports (Node ≥ 16, browsers, workerd); no Buffer here.
function base64Bytes(text) {
  const binary = atob(text.replace(/\s+/g, ''));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

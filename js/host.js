// Adapters between the user's host objects and the core (not exported publicly).
//
// The core never calls user code directly: it calls these adapters, which call the user's
// callback inside `try`, await a returned Promise (or thenable), and report the outcome to the
// core as JSON text (src/wasm/task.rs: host calls). A callback that throws, rejects, answers
// something that cannot be written as JSON, or has a getter that throws becomes an E_HOST error
// carrying the host's own message — so a tool answers `❌ Failed to … memory: <reason>` and the
// next call works. Deadlines are the core's: when one passes, the core cancels the call, which
// aborts a model request's AbortSignal and clears timers.
import { REQUIRED_STORE_METHODS, OPTIONAL_STORE_METHODS } from './store-protocol.js';
import { argumentError, onCancel, reason, settle } from './wire.js';

/** How a store lent as a search index (the SQL stores' mirrors) hears that its answer reached the core. */
const SEARCH_INDEX_ANSWERED = Symbol.for('memcore.searchIndexAnswered');

function safely(read, fallback) {
  try {
    const value = read();
    return value === undefined ? fallback : value;
  } catch {
    return fallback;
  }
}

/**
 * The wire form of a failure thrown or rejected by a host callback. With `classify: false`
 * (Dream's model), `details.transient` is sent only when the host said so (or the error is an
 * AbortError/TimeoutError), and an error's own numeric `status` (HTTP clients set one) goes
 * into `details.status`: the core then reads the status, else the message.
 */
export function hostFailure(operation, thrown, { classify = true } = {}) {
  const code = safely(() => (typeof thrown?.code === 'string' ? thrown.code : undefined), undefined);
  const message = safely(
    () => (thrown instanceof Error ? String(thrown.message) : typeof thrown === 'string' ? thrown : undefined),
    'it failed without a message',
  );
  const name = safely(() => (typeof thrown?.name === 'string' ? thrown.name : undefined), null);
  let details = safely(() => {
    const d = thrown?.details;
    return d && typeof d === 'object' && !Array.isArray(d) ? JSON.parse(JSON.stringify(d)) : undefined;
  }, {});
  if (typeof details !== 'object' || details === null) details = {};
  const explicit = typeof details.transient === 'boolean';
  const transient = explicit ? details.transient : name === 'AbortError' || name === 'TimeoutError';
  const out = { ...details, operation, name };
  if (classify || explicit || transient) out.transient = transient;
  if (!classify && out.status === undefined) {
    const status = safely(() => (typeof thrown?.status === 'number' ? thrown.status : undefined), undefined);
    if (status !== undefined) out.status = status;
  }
  return JSON.stringify({ code: code === 'E_VERSION_CONFLICT' ? code : 'E_HOST', message, details: out });
}

function unusable(operation, error) {
  return JSON.stringify({
    code: 'E_HOST',
    message: `${operation} returned a value that cannot be read as JSON: ${reason(error)}`,
    details: { operation, transient: false },
  });
}

/**
 * Run a host callback for host call `id`: `run()` may return a value or a Promise/thenable;
 * `encode(value)` turns the outcome into JSON text for the core.
 */
function start(id, operation, run, encode, cancel, fail = hostFailure, attributes = undefined) {
  // memcore/telemetry: inside a traced operation the call becomes its child span (null: no
  // telemetry with an OTel API was ever made in this process — one comparison per host call).
  if (hostTracing !== null) run = hostTracing(operation, attributes, run);
  let result;
  try {
    result = run();
  } catch (error) {
    settle(id, false, fail(operation, error));
    return;
  }
  let then;
  try {
    then = result !== null && (typeof result === 'object' || typeof result === 'function') ? result.then : undefined;
  } catch (error) {
    settle(id, false, fail(operation, error));
    return;
  }
  if (typeof then !== 'function') {
    deliver(id, operation, result, encode);
    return;
  }
  if (cancel) onCancel(id, cancel);
  new Promise((resolve, reject) => then.call(result, resolve, reject)).then(
    (value) => deliver(id, operation, value, encode),
    (error) => settle(id, false, fail(operation, error)),
  );
}

function deliver(id, operation, value, encode) {
  let payload;
  try {
    payload = encode(value);
    if (typeof payload !== 'string') throw new TypeError(`it is ${typeof value === 'symbol' ? 'a symbol' : `a ${typeof value}`}, not JSON data`);
  } catch (error) {
    settle(id, false, unusable(operation, error));
    return;
  }
  settle(id, true, payload);
}

// Host data is read with plain JSON.stringify (fast for large lists): a function or symbol inside
// it is dropped and NaN becomes null, as JSON does; a top-level value JSON cannot hold is refused.
const asJson = (value) => JSON.stringify(value ?? null);
const nothing = () => 'null';

/** A method of a host object, read once (a getter that throws is E_ARGUMENT). */
function method(fn, argument, object, name, required) {
  let value;
  try {
    value = object[name];
  } catch (error) {
    throw argumentError(fn, argument, `could not be read (\`${name}\`: ${reason(error)})`);
  }
  if (value === undefined || value === null) {
    if (required) throw argumentError(fn, argument, `must have a \`${name}\` method`);
    return undefined;
  }
  if (typeof value !== 'function') throw argumentError(fn, argument, `\`${name}\` must be a function`);
  return value;
}

function objectArgument(fn, argument, value, what) {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
    throw argumentError(fn, argument, `must be ${what}`);
  }
}

/** Timers for the core's deadlines. */
function sleep(id, ms) {
  const timer = setTimeout(() => settle(id, true, 'null'), ms);
  onCancel(id, () => clearTimeout(timer));
}

/** The host clock as JSON of what `now()` returned (Date → ISO string), or undefined. */
function clock(now) {
  if (!now) return () => undefined;
  return () => {
    try {
      const value = now();
      return JSON.stringify(value instanceof Date ? (Number.isNaN(value.getTime()) ? null : value.toISOString()) : value);
    } catch {
      return undefined;
    }
  };
}

function ids(newId) {
  // Absent: the core makes 128-bit random ids itself (and need not check them against the store).
  if (!newId) return undefined;
  return () => {
    try {
      const id = newId();
      return typeof id === 'string' ? id : undefined;
    } catch {
      return undefined;
    }
  };
}

/** `{ now, newId, sleep, log, embed? }` for the entry functions. */
export function entryHosts(fn, options) {
  const hosts = { now: clock(options.now), sleep, log: logAdapter(options.log) };
  if (options.newId) hosts.newId = ids(options.newId);
  if (options.embed) hosts.embed = options.embed;
  return hosts;
}

/**
 * An embedder (behaviour §8.2) as `{ spec, embed }`: `spec` is its configuration for the core
 * (`{ model, dimensions?, maxBatch?, timeoutMs? }`, checked there), `embed` the adapter method;
 * `undefined` when absent.
 */
export function embedderOf(fn, argument, embedder, timeoutMs) {
  if (embedder === undefined || embedder === null) return undefined;
  objectArgument(fn, argument, embedder, 'an embedder like { model, dimensions?, embed({ texts, purpose, signal }) }');
  const embed = method(fn, argument, embedder, 'embed', true);
  let model, dimensions, maxBatch;
  try {
    ({ model, dimensions, maxBatch } = embedder);
  } catch (error) {
    throw argumentError(fn, argument, `could not be read: ${reason(error)}`);
  }
  if (typeof model !== 'string') throw argumentError(fn, `${argument}.model`, 'must be the model id the vectors belong to (a string)');
  const spec = { model };
  if (dimensions !== undefined && dimensions !== null) spec.dimensions = dimensions;
  if (maxBatch !== undefined && maxBatch !== null) spec.maxBatch = maxBatch;
  if (timeoutMs !== undefined && timeoutMs !== null) spec.timeoutMs = timeoutMs;
  return { spec, embed: embedAdapter((request) => embed.call(embedder, request), model) };
}

/** The adapter method for an embedder: the request gets an AbortSignal the core aborts on timeout. */
function embedAdapter(embed, model) {
  // A traced call names the embedding model (GenAI conventions); ids longer than 128 are cut.
  const attributes = { 'gen_ai.request.model': model.slice(0, 128) };
  return (id, request) => {
    const controller = typeof AbortController === 'function' ? new AbortController() : null;
    start(id, 'embedder.embed', () => embed({ ...JSON.parse(request), signal: controller?.signal }), encodeEmbedding, () => controller?.abort(), hostFailure, hostTracing === null ? undefined : attributes);
  };
}

/**
 * The wire form of an embed answer: `{ f32: string[] }` (each vector the base64 of its
 * little-endian f32 bytes) when every component of every vector is a finite f32 — no number is
 * printed and parsed again — else `{ vectors: number[][] }` (typed arrays as arrays), which the
 * core reads and checks, reporting each bad component the one way.
 */
function encodeEmbedding(value) {
  const vectors = Array.isArray(value) ? value : value?.vectors;
  if (!Array.isArray(vectors)) throw new TypeError('it is not `{ vectors }` with an array of vectors');
  const packed = packedVectors(vectors);
  if (packed) return JSON.stringify({ f32: packed });
  return JSON.stringify({ vectors: vectors.map((v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)) });
}

/** Whether this engine stores a Float32Array's bytes little-endian (every engine in use does). */
const LITTLE_ENDIAN = new Uint8Array(new Float32Array([1]).buffer)[3] === 0x3f;
const F32_MAX = 3.4028234663852886e38;

/**
 * The vectors as base64 of little-endian f32 bytes, or null when one of them is not a
 * Float32Array, Float64Array or array of numbers whose every component is a finite f32 (a number
 * is rounded to f32 as the core would: `Math.fround`, refused past ±F32_MAX).
 */
function packedVectors(vectors) {
  if (!LITTLE_ENDIAN) return null;
  const out = [];
  for (const v of vectors) {
    let f;
    if (v instanceof Float32Array) {
      f = v;
    } else if (v instanceof Float64Array || Array.isArray(v)) {
      f = new Float32Array(v.length);
      for (let i = 0; i < v.length; i++) {
        const x = v[i];
        if (typeof x !== 'number' || !(Math.abs(x) <= F32_MAX)) return null;
        f[i] = x;
      }
    } else {
      return null;
    }
    for (let i = 0; i < f.length; i++) if (!Number.isFinite(f[i])) return null;
    out.push(toBase64(new Uint8Array(f.buffer, f.byteOffset, f.byteLength)));
  }
  return out;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_INDEX = new Map([...BASE64].map((c, i) => [c, i]));

/** Standard base64 (with padding) of bytes. */
export function toBase64(bytes) {
  if (typeof Buffer === 'function' && typeof Buffer.from === 'function') return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += BASE64[(n >> 18) & 63] + BASE64[(n >> 12) & 63] + (i + 1 < bytes.length ? BASE64[(n >> 6) & 63] : '=') + (i + 2 < bytes.length ? BASE64[n & 63] : '=');
  }
  return out;
}

/** The bytes of standard base64 text the core wrote. */
function fromBase64(text) {
  if (typeof Buffer === 'function' && typeof Buffer.from === 'function') {
    const b = Buffer.from(text, 'base64');
    return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  }
  const clean = text.replace(/=+$/, '');
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0, acc = 0, at = 0;
  for (const c of clean) {
    acc = (acc << 6) | (BASE64_INDEX.get(c) ?? 0);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[at++] = (acc >> bits) & 255;
    }
  }
  return out;
}

/** A stored vector as bytes: a Uint8Array (a Buffer is one), another typed array's bytes, an ArrayBuffer or an array of bytes. */
function vectorBytes(vector) {
  if (vector instanceof Uint8Array) return vector;
  if (ArrayBuffer.isView(vector)) return new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
  if (vector instanceof ArrayBuffer) return new Uint8Array(vector);
  if (Array.isArray(vector)) return Uint8Array.from(vector);
  throw new TypeError('a vector is not bytes (a Uint8Array)');
}

/** The wire form of `store.vectors`: `[{ id, vector: base64 }]`. */
function encodeVectors(rows) {
  if (rows === null || rows === undefined) return 'null';
  if (!Array.isArray(rows)) throw new TypeError('it is not an array of { id, vector }');
  return JSON.stringify(rows.map((row) => ({ id: row?.id, vector: toBase64(vectorBytes(row?.vector)) })));
}

/** `store.putVectors` rows from the core's JSON: the base64 vectors as Uint8Arrays. */
function decodeVectorRows(json) {
  return JSON.parse(json).map((row) => ({ ...row, vector: fromBase64(row.vector) }));
}

/**
 * How each entry-store method travels between the core and the store: its arguments (`t` text as
 * sent, `j` JSON text, `J` JSON text or absent, `r` vector rows with base64 vectors) and how its
 * answer goes back. The method names themselves are the core's (`store-protocol.js`, generated
 * from the protocol's one table); `tests/js/store-protocol.test.mjs` checks the two agree.
 */
export const STORE_WIRE = {
  list: ['t', asJson],
  get: ['t', asJson],
  upsert: ['j', nothing],
  delete: ['t', asJson],
  incrementAccess: ['j', nothing],
  countUser: ['t', asJson],
  search: ['tt', asJson],
  recall: ['j', asJson],
  findByKey: ['tt', asJson],
  oldestOwn: ['j', asJson],
  insertWithinCap: ['jj', asJson],
  insertAll: ['jJ', nothing],
  vectors: ['tt', encodeVectors],
  putVectors: ['r', asJson],
  unembedded: ['j', asJson],
  appendHistory: ['j', nothing],
  writeWithHistory: ['jj', nothing],
  deleteWithHistory: ['tj', asJson],
  insertWithHistory: ['jjj', asJson],
  versions: ['j', asJson],
  auditLog: ['j', asJson],
  eraseHistory: ['tjj', asJson],
  versionsByAuthor: ['t', asJson],
  historySize: ['t', asJson],
  idHolders: ['j', asJson],
  putEpisodes: ['j', asJson],
  episodes: ['j', asJson],
  deleteEpisodes: ['tj', asJson],
  // Answered by the mirror's handle (the adapter's `indexHandle`).
  searchIndex: ['tj', null],
};

/** The store's arguments from the core's wire form (`STORE_WIRE`). */
function storeArguments(kinds, wire) {
  const out = [];
  for (let i = 0; i < kinds.length; i += 1) {
    const kind = kinds[i];
    if (kind === 't') out.push(wire[i]);
    else if (kind === 'j') out.push(JSON.parse(wire[i]));
    else if (kind === 'J') {
      if (wire[i] !== undefined) out.push(JSON.parse(wire[i]));
    } else out.push(decodeVectorRows(wire[i]));
  }
  return out;
}

/**
 * An adapter over a host entry store: the five methods every store has (list, get, upsert,
 * delete, incrementAccess) and any of the optional ones the core names (behaviour §5): pushed
 * down countUser, search, recall, findByKey, oldestOwn, insertWithinCap, insertAll; vectors
 * (behaviour §8.2) vectors, putVectors, unembedded (vectors travel as base64 to the core and as
 * Uint8Arrays to the store); searchIndex(userId, model) → an InMemoryEntryStore mirror of the
 * user's entries, sent as its handle (`indexHandle`; anything else is E_HOST); history
 * (behaviour §8.3) appendHistory, versions, auditLog, eraseHistory, historySize,
 * versionsByAuthor, idHolders; episodes (behaviour §8.6) putEpisodes, episodes, deleteEpisodes.
 */
export function entryStoreAdapter(fn, argument, store, indexHandle) {
  objectArgument(fn, argument, store, 'an entry store (list, get, upsert, delete, incrementAccess)');
  const handle = (index) => {
    if (index === null || index === undefined) return 'null';
    const json = JSON.stringify(indexHandle(index));
    // A store lent for this answer (the SQL stores' search mirrors) learns when the core has used
    // it: this microtask is queued before the answer is settled, its inner one after the core's
    // poll that the settle schedules (microtasks run in order).
    const answered = index[SEARCH_INDEX_ANSWERED];
    if (typeof answered === 'function') queueMicrotask(() => queueMicrotask(() => answered.call(index)));
    return json;
  };
  const adapter = {};
  for (const [names, required] of [[REQUIRED_STORE_METHODS, true], [OPTIONAL_STORE_METHODS, false]]) {
    for (const name of names) {
      const f = method(fn, argument, store, name, required);
      if (!f) continue;
      const [kinds, encode] = STORE_WIRE[name];
      const operation = `store.${name}`;
      adapter[name] = (id, ...wire) => start(id, operation, () => f.apply(store, storeArguments(kinds, wire)), encode ?? handle);
    }
  }
  return adapter;
}

/** Whether `value` has the required entry-store methods (a getter that throws: no). */
export function isEntryStore(value) {
  try {
    return REQUIRED_STORE_METHODS.every((name) => typeof value[name] === 'function');
  } catch {
    return false;
  }
}

/**
 * An adapter over the profile side of a store given to the data-subject rights (an entry store
 * that is also profile storage, as the SQL adapters are): read, write, remove, optional
 * ensureRoot and removeFolder. `undefined` when the store lacks read, write or remove (it holds
 * no profiles).
 */
export function profileStorageAdapter(fn, argument, store) {
  const read = method(fn, argument, store, 'read', false);
  const write = method(fn, argument, store, 'write', false);
  const remove = method(fn, argument, store, 'remove', false);
  if (!read || !write || !remove) return undefined;
  const ensureRoot = method(fn, argument, store, 'ensureRoot', false);
  const removeFolder = method(fn, argument, store, 'removeFolder', false);
  const adapter = {
    read: (id, path) => start(id, 'storage.read', () => read.call(store, path), encodeRead),
    write: (id, path, text, options) => start(id, 'storage.write', () => write.call(store, path, text, JSON.parse(options)), encodeWrite),
    remove: (id, path) => start(id, 'storage.remove', () => remove.call(store, path), nothing),
    ensureRoot: (id, root) => start(id, 'storage.ensureRoot', () => (ensureRoot ? ensureRoot.call(store, root) : undefined), nothing),
  };
  if (removeFolder) adapter.removeFolder = (id, folder) => start(id, 'storage.removeFolder', () => removeFolder.call(store, folder), asJson);
  return adapter;
}

// A text answer as a frame: '\u0001' + the other fields as JSON + '\u0001' + the text as it is,
// so a profile or a model answer is not escaped into JSON here and unescaped in the core
// (src/boundary/adapter/mod.rs, `framed`). Only a string text is framed; anything else goes as
// JSON and is reported by the core as before.
const FRAME = '\u0001';
const frame = (fields, text) => `${FRAME}${JSON.stringify(fields)}${FRAME}${text}`;

/** The wire form of `storage.read`: `null` or `{ text, version }` (framed when `text` is a string). */
function encodeRead(value) {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return frame({}, value);
  const { text } = value;
  const version = versionOf(value.version);
  if (typeof text === 'string') return frame({ version }, text);
  return JSON.stringify({ text, version });
}

/**
 * A version token for the core, which reads absent/`null` (unversioned), a string or a finite
 * number and refuses other types. `NaN` and `±Infinity` would silently become `null` in JSON and
 * turn a conditional write into an unconditional one: they are refused here (E_HOST).
 */
function versionOf(version) {
  if (typeof version === 'number' && !Number.isFinite(version)) {
    throw new TypeError(`it holds \`version: ${version}\`; a version must be a string or a finite number (or absent)`);
  }
  return version ?? null;
}

function encodeWrite(value) {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  return JSON.stringify({ version: versionOf(value.version) });
}

function encodeAnswer(value) {
  if (typeof value === 'string') return frame({}, value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  const { text, usage } = value;
  const fields = { usage: usage && typeof usage === 'object' ? { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens } : null };
  if (typeof text === 'string') return frame(fields, text);
  return JSON.stringify({ text, ...fields });
}

/** A model given as `{ complete(request) }` or a bare function; `undefined` when absent. */
export function modelOf(fn, argument, model) {
  if (model === undefined || model === null) return undefined;
  if (typeof model === 'function') return (request) => model(request);
  objectArgument(fn, argument, model, 'a function or an object with complete(request)');
  const complete = method(fn, argument, model, 'complete', true);
  return (request) => complete.call(model, request);
}

/**
 * The adapter method for a model: the request gets an AbortSignal the core aborts on timeout. The
 * core sends `{ purpose, maxOutputTokens }` as JSON and the two prompts as texts of their own
 * (src/boundary/adapter/mod.rs, `complete`), so a profile in a prompt is not escaped and parsed.
 */
function completeAdapter(complete, fail = hostFailure) {
  return (id, fields, system, user) => {
    const controller = typeof AbortController === 'function' ? new AbortController() : null;
    let parsed;
    try {
      parsed = JSON.parse(fields);
    } catch (error) {
      settle(id, false, fail('model.complete', error));
      return;
    }
    start(
      id,
      'model.complete',
      () => complete({ purpose: parsed.purpose, system, user, maxOutputTokens: parsed.maxOutputTokens, signal: controller?.signal }),
      encodeAnswer,
      () => controller?.abort(),
      fail,
      hostTracing === null ? undefined : { 'memcore.purpose': typeof parsed?.purpose === 'string' ? parsed.purpose : undefined, 'gen_ai.request.max_tokens': Number.isFinite(parsed?.maxOutputTokens) ? parsed.maxOutputTokens : undefined },
    );
  };
}

/**
 * A `log(event)` adapter: the event as an object; a throwing logger is ignored. Without a `log`
 * the adapter has none, and the core builds no event (logging costs nothing).
 */
function logAdapter(log) {
  if (!log) return undefined;
  return (event) => {
    try {
      log(JSON.parse(event));
    } catch {
      // Logging never breaks a run.
    }
  };
}

let hostTracing = null;

/** Set by memcore/telemetry: `(operation, attributes, run) => run` wrapping host calls of a traced operation. */
export function setHostTracing(trace) {
  hostTracing = trace;
}

/**
 * The adapter for a Dream run: the model (optional; its failures keep the host's own
 * transient/status so the core can classify them), `newId`, `log` and the timer. No `now`:
 * the run's instant is an option, and the core times the run with the wall clock.
 */
export function dreamHosts(fn, { complete, newId, log }) {
  const adapter = { log: logAdapter(log), sleep };
  if (newId) adapter.newId = ids(newId);
  if (complete) adapter.complete = completeAdapter(complete, (operation, thrown) => hostFailure(operation, thrown, { classify: false }));
  return adapter;
}

/** The hosts of `learnFromTurn`: the entry hosts plus the extraction model's `complete`. */
export function learnHosts(hosts, complete) {
  return { ...hosts, complete: completeAdapter(complete) };
}

/** A model adapter for fitProfile's condensing step. */
export function modelAdapter(complete) {
  return { complete: completeAdapter(complete) };
}

/** A synchronous host token counter: the count, or the error as wire JSON text. */
export function counterAdapter(count) {
  const refuse = (message) => JSON.stringify({ code: 'E_HOST', message, details: { operation: 'countTokens', transient: false } });
  return {
    countTokens(text) {
      let n;
      try {
        n = count(text);
      } catch (error) {
        return hostFailure('countTokens', error);
      }
      if (typeof n === 'number' && Number.isInteger(n) && n >= 0) return n;
      const promise = safely(() => n !== null && typeof n === 'object' && typeof n.then === 'function', false);
      return refuse(
        promise
          ? 'countTokens returned a Promise; the token counter must be synchronous'
          : 'countTokens must return a non-negative integer',
      );
    },
  };
}

/** The adapter for a ContextMemory's hosts. */
export function contextMemoryAdapter(fn, hosts) {
  objectArgument(fn, 'hosts', hosts, 'an object like { storage, model, entries?, embedder?, onNotice?, log?, now?, countTokens? }');
  let picked;
  try {
    picked = {
      storage: hosts.storage,
      model: hosts.model,
      countTokens: hosts.countTokens,
      now: hosts.now,
      log: hosts.log,
      onNotice: hosts.onNotice,
      entries: hosts.entries,
      embedder: hosts.embedder,
      embedTimeoutMs: hosts.embedTimeoutMs,
    };
  } catch (error) {
    throw argumentError(fn, 'hosts', `could not be read: ${reason(error)}`);
  }
  const { storage } = picked;
  objectArgument(fn, 'hosts.storage', storage, 'a profile storage (read, write, remove, ensureRoot?)');
  const read = method(fn, 'hosts.storage', storage, 'read', true);
  const write = method(fn, 'hosts.storage', storage, 'write', true);
  const remove = method(fn, 'hosts.storage', storage, 'remove', true);
  const ensureRoot = method(fn, 'hosts.storage', storage, 'ensureRoot', false);
  const removeFolder = method(fn, 'hosts.storage', storage, 'removeFolder', false);
  const complete = modelOf(fn, 'hosts.model', picked.model);
  const countTokens = picked.countTokens === undefined || picked.countTokens === null ? undefined : picked.countTokens;
  if (countTokens !== undefined && typeof countTokens !== 'function') {
    throw argumentError(fn, 'hosts.countTokens', 'must be a function');
  }
  for (const name of ['now', 'log', 'onNotice']) {
    const value = picked[name];
    if (value !== undefined && value !== null && typeof value !== 'function') throw argumentError(fn, `hosts.${name}`, 'must be a function');
  }
  const { onNotice } = picked;
  const adapter = {
    read: (id, path) => start(id, 'storage.read', () => read.call(storage, path), encodeRead),
    write: (id, path, text, options) => start(id, 'storage.write', () => write.call(storage, path, text, JSON.parse(options)), encodeWrite),
    remove: (id, path) => start(id, 'storage.remove', () => remove.call(storage, path), nothing),
    ensureRoot: (id, root) => start(id, 'storage.ensureRoot', () => (ensureRoot ? ensureRoot.call(storage, root) : undefined), nothing),
    notice: (id, notice) => start(id, 'onNotice', () => (onNotice ? onNotice(JSON.parse(notice)) : undefined), nothing),
    log: logAdapter(picked.log),
    now: clock(picked.now),
    sleep,
  };
  if (complete) adapter.complete = completeAdapter(complete);
  const embedding = embedderOf(fn, 'hosts.embedder', picked.embedder, picked.embedTimeoutMs);
  if (embedding) adapter.embed = embedding.embed;
  if (countTokens) adapter.countTokens = counterAdapter(countTokens).countTokens;
  if (removeFolder) adapter.removeFolder = (id, folder) => start(id, 'storage.removeFolder', () => removeFolder.call(storage, folder), asJson);
  // A storage that is also an entry store (the SQL adapters are one object) serves the
  // restriction check unless `entries` names another store.
  const given = picked.entries !== undefined && picked.entries !== null;
  const entries = given ? picked.entries : isEntryStore(storage) ? storage : undefined;
  return { adapter, entries, entriesArgument: given ? 'hosts.entries' : 'hosts.storage', storage, embedder: embedding?.spec };
}

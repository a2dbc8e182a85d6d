// What the API's sections share and never export: the decoding of the core's JSON answers, the
// checks of option objects, the store argument (our in-memory store by its handle, any other
// through the host adapter), the entry options and the tokenizer option. Conversion only.
import { argumentError, callback, fields, json, jsonWithout, live } from '../wire.js';
import { counterAdapter, embedderOf, entryHosts, entryStoreAdapter } from '../host.js';
import { DEFAULT_ENCODING } from '../constants.js';

export const parsed = (out) => JSON.parse(out);

export const STORE = Symbol('memcore.inMemoryEntryStore');
// Our stores, recognised by identity (a WeakSet never runs a Proxy trap, `instanceof` may).
export const stores = new WeakSet();

// A ContextMemory's handle and the storage object it was given (the rights handle a profile
// once per store).
export const MEMORY = Symbol('memcore.contextMemory');
export const STORAGE = Symbol('memcore.contextMemory.storage');

/** Whether a value is an object that is not an array (a revoked Proxy is neither). */
export function isPlainObjectLike(value) {
  if (value === null || typeof value !== 'object') return false;
  try {
    return !Array.isArray(value);
  } catch {
    return false;
  }
}

/** A search index a host store answered (`searchIndex`): one of our in-memory stores, as its handle. */
function indexHandle(index) {
  if (!stores.has(index)) throw new TypeError('it is not an InMemoryEntryStore (or null)');
  return live(index[STORE]);
}

/** The store argument: the in-memory store's handle, or an adapter over a host store. */
export function storeArg(fn, argument, store) {
  if (stores.has(store)) return live(store[STORE]);
  return entryStoreAdapter(fn, argument, store, indexHandle);
}

/**
 * The options of the entry functions: `store`, `now`, `newId`, `log` and the `embedder` go as
 * callbacks (the embedder's `model`, `dimensions`, `maxBatch` and `embedTimeoutMs` as its
 * configuration, `embedder` in the JSON), the rest as JSON; `extra` names more fields to leave
 * out of the JSON.
 */
export function entryOptions(fn, options, required, extra = []) {
  if (options === undefined || options === null) {
    if (required) throw argumentError(fn, 'options', 'must be an object like { userId, agentId }');
    return [undefined, entryHosts(fn, {})];
  }
  if (!isPlainObjectLike(options)) throw argumentError(fn, 'options', 'must be an object');
  const { now, newId, log, embedder, embedTimeoutMs } = fields(fn, 'options', options, ['now', 'newId', 'log', 'embedder', 'embedTimeoutMs']);
  const embedding = embedderOf(fn, 'options.embedder', embedder, embedTimeoutMs);
  const hosts = entryHosts(fn, {
    now: callback(fn, 'options.now', now),
    newId: callback(fn, 'options.newId', newId),
    log: callback(fn, 'options.log', log),
    embed: embedding?.embed,
  });
  let o = jsonWithout(fn, 'options', options, ['store', 'now', 'newId', 'log', 'embedder', 'embedTimeoutMs', ...extra]);
  if (embedding) o = JSON.stringify({ ...JSON.parse(o), embedder: embedding.spec });
  return [o, hosts];
}

/** `options` of the counting functions: `{ encoding?, countTokens? }` or the counting function. */
export function tokenizer(fn, argument, options) {
  if (typeof options === 'function') return [undefined, counterAdapter(options)];
  if (options === undefined || options === null) return [undefined, undefined];
  if (!isPlainObjectLike(options)) {
    throw argumentError(fn, argument, 'must be { encoding?, countTokens? } or a counting function');
  }
  const { countTokens: count } = fields(fn, argument, options, ['countTokens']);
  const cb = callback(fn, `${argument}.countTokens`, count);
  return [jsonWithout(fn, argument, options, ['countTokens']), cb ? counterAdapter(cb) : undefined];
}

/** The encoding an options JSON names (for preloading; the core validates it). */
export function encodingIn(json) {
  try {
    const e = json === undefined ? undefined : JSON.parse(json)?.encoding;
    return typeof e === 'string' ? e : DEFAULT_ENCODING;
  } catch {
    return DEFAULT_ENCODING;
  }
}

/** `{ storeTimeoutMs }` of an options object as JSON (the deadline of each store call; the core decodes it). */
export function storeTimeout(fn, options) {
  return json(fn, 'options', fields(fn, 'options', options, ['storeTimeoutMs']));
}

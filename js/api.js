// The public API: each function encodes its JavaScript arguments for the core (js/wire.js), calls
// the wasm export, and decodes the result. Every rule lives in the Rust core; this file only
// converts.
import {
  argumentError,
  callback,
  fields,
  handle,
  invoke,
  json,
  jsonWithout,
  live,
  loadTable,
  preload,
  whenTables,
  remakeable,
  optionalText,
  piecesFromWire,
  reason,
  profileFromWire,
  profileToWire,
  runTask,
  text,
} from './wire.js';
import { contextMemoryAdapter, counterAdapter, dreamHosts, entryHosts, entryStoreAdapter, modelAdapter, modelOf, profileStorageAdapter } from './host.js';

import { MemcoreError } from './errors.js';

export { MemcoreError };

const parsed = (out) => JSON.parse(out);

// The core's constants (the tooltip, the six headings, the edit limit, the truncation marker, the
// updating notice), written into constants.js from the core itself when the package is built
// (scripts/package.mjs), so they exist once: in Rust.
import { DEFAULT_ENCODING } from './constants.js';

export {
  DEFAULT_ENCODING,
  WEB_SEARCH_TOOLTIP,
  SECTION_HEADINGS,
  MAX_EDIT_BODY_BYTES,
  TRUNCATION_MARKER,
  UPDATING_NOTICE,
} from './constants.js';

export function version() {
  return invoke((g) => g.version());
}

// Profile format (SPEC §1.2, §1.3, §1.6)

export function parseProfile(input) {
  const t = text('parseProfile', 'text', input);
  return profileFromWire(t, invoke((g) => g.parseProfile(t)));
}
export function renderProfile(profile) {
  const wire = profileToWire(profile);
  if (wire !== undefined) {
    const out = invoke((g) => g.renderProfileLines(wire.head, wire.text, wire.counts));
    if (out !== '') return piecesFromWire(wire, out);
  }
  const p = json('renderProfile', 'profile', profile);
  return invoke((g) => g.renderProfile(p ?? 'null'));
}
export function emptyProfile(userId, now) {
  const u = text('emptyProfile', 'userId', userId);
  const n = json('emptyProfile', 'now', now);
  return parsed(invoke((g) => g.emptyProfile(u, n ?? 'null')));
}
export function profileBody(input) {
  const t = text('profileBody', 'text', input);
  return invoke((g) => g.profileBody(t));
}
export function normaliseModelBody(input) {
  const t = text('normaliseModelBody', 'text', input);
  return invoke((g) => g.normaliseModelBody(t));
}
export function isWellFormedBody(input) {
  const t = text('isWellFormedBody', 'text', input);
  return invoke((g) => g.isWellFormedBody(t));
}
export function assembleProfile(body, options) {
  const b = text('assembleProfile', 'body', body);
  const o = json('assembleProfile', 'options', options);
  return invoke((g) => g.assembleProfile(b, o ?? 'null'));
}

// Injection, paths, enablement, editing (SPEC §1.1, §1.7, §1.8, §1.10)

export function memorySystemPromptSection(input) {
  const t = optionalText('memorySystemPromptSection', 'text', input);
  return invoke((g) => g.memorySystemPromptSection(t));
}
export function memoryPath(userId, rootFolder) {
  const u = text('memoryPath', 'userId', userId);
  const r = optionalText('memoryPath', 'rootFolder', rootFolder);
  return invoke((g) => g.memoryPath(u, r));
}
export function checkMemoryRoots(roots, configuredName) {
  const r = json('checkMemoryRoots', 'roots', roots);
  const n = optionalText('checkMemoryRoots', 'configuredName', configuredName);
  return invoke((g) => g.checkMemoryRoots(r ?? 'null', n)) ?? null;
}
export function resolveEnablement(inputs) {
  const i = json('resolveEnablement', 'inputs', inputs);
  return parsed(invoke((g) => g.resolveEnablement(i ?? 'null')));
}
export function orchestratorMemoryEnabled(payloadValue) {
  const v = json('orchestratorMemoryEnabled', 'payloadValue', payloadValue);
  return invoke((g) => g.orchestratorMemoryEnabled(v));
}
export function editableBody(input) {
  const t = text('editableBody', 'text', input);
  return invoke((g) => g.editableBody(t));
}
export function memoryView(stored) {
  const s = optionalText('memoryView', 'stored', stored);
  return parsed(invoke((g) => g.memoryView(s)));
}
export function applyUserEdit(existing, body, options) {
  const e = optionalText('applyUserEdit', 'existing', existing);
  const b = text('applyUserEdit', 'body', body);
  const o = json('applyUserEdit', 'options', options);
  return parsed(invoke((g) => g.applyUserEdit(e, b, o ?? 'null')));
}

// Tokens (SPEC §1.4)

function bytesOf(fn, value) {
  try {
    if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    if (value instanceof ArrayBuffer) return new Uint8Array(value);
  } catch {
    // a Proxy or another object that cannot be read as bytes
  }
  throw argumentError(fn, 'bytes', 'must be a Uint8Array or ArrayBuffer with a tokenizer table');
}

/** `options` of the counting functions: `{ encoding?, countTokens? }` or the counting function. */
function tokenizer(fn, argument, options) {
  if (typeof options === 'function') return [undefined, counterAdapter(options)];
  if (options === undefined || options === null) return [undefined, undefined];
  if (!isPlainObjectLike(options)) {
    throw argumentError(fn, argument, 'must be { encoding?, countTokens? } or a counting function');
  }
  const { countTokens: count } = fields(fn, argument, options, ['countTokens']);
  const cb = callback(fn, `${argument}.countTokens`, count);
  return [jsonWithout(fn, argument, options, ['countTokens']), cb ? counterAdapter(cb) : undefined];
}

export function loadTokenizer(bytes) {
  return loadTable(bytesOf('loadTokenizer', bytes));
}
/**
 * Wait until the tables of `encodings` (default: the default encoding) are loaded. Tables load on
 * first use; where the runtime cannot read them synchronously (browsers, edge runtimes) call this
 * before counting synchronously. Async functions load what they need themselves.
 * @example await ready(); countTokens('hi');
 */
export async function ready(encodings) {
  let names;
  try {
    // Read inside `try`: a revoked Proxy throws from Array.isArray, a hostile array from its items.
    const many = encodings !== undefined && Array.isArray(encodings);
    const list = encodings === undefined ? [DEFAULT_ENCODING] : many ? Array.from(encodings) : [encodings];
    names = list.map((e, i) => text('ready', many ? `encodings[${i}]` : 'encoding', e));
  } catch (error) {
    if (error instanceof MemcoreError) throw error;
    throw argumentError('ready', 'encodings', `must be an encoding name or an array of them (${reason(error)})`);
  }
  await whenTables('ready', names);
}

/** The encoding an options JSON names (for preloading; the core validates it). */
function encodingIn(json) {
  try {
    const e = json === undefined ? undefined : JSON.parse(json)?.encoding;
    return typeof e === 'string' ? e : DEFAULT_ENCODING;
  } catch {
    return DEFAULT_ENCODING;
  }
}

export function hasTokenizer(encoding) {
  const e = text('hasTokenizer', 'encoding', encoding);
  return invoke((g) => g.hasTokenizer(e));
}
export function countTokens(input, options) {
  const t = text('countTokens', 'text', input);
  const [o, counter] = tokenizer('countTokens', 'options', options);
  return invoke((g) => g.countTokens(t, o, counter));
}
export function encodeTokens(input, options) {
  const t = text('encodeTokens', 'text', input);
  const [o, counter] = tokenizer('encodeTokens', 'options', options);
  if (counter) throw argumentError('encodeTokens', 'options.countTokens', 'must be absent: token ids need a built-in table');
  return Array.from(invoke((g) => g.encodeTokens(t, o)));
}

// Budget fitting (SPEC §1.4, §1.5)

export function enforceTokenCap(input, maxTokens, options) {
  const t = text('enforceTokenCap', 'text', input);
  const m = json('enforceTokenCap', 'maxTokens', maxTokens);
  const [o, counter] = tokenizer('enforceTokenCap', 'tokenizer', options);
  return parsed(invoke((g) => g.enforceTokenCap(t, m ?? 'null', o, counter)));
}
export function condenseProfile(input, maxTokens, options) {
  const t = text('condenseProfile', 'text', input);
  const m = json('condenseProfile', 'maxTokens', maxTokens);
  const [o, counter] = tokenizer('condenseProfile', 'tokenizer', options);
  return parsed(invoke((g) => g.condenseProfile(t, m ?? 'null', o, counter)));
}
export async function fitProfile(input, options) {
  const t = text('fitProfile', 'text', input);
  if (options !== undefined && options !== null && !isPlainObjectLike(options)) {
    throw argumentError('fitProfile', 'options', 'must be an object like { maxTokens, condense?, now? }');
  }
  const { countTokens: count, condense } = fields('fitProfile', 'options', options, ['countTokens', 'condense']);
  const cb = callback('fitProfile', 'options.countTokens', count);
  const model = modelOf('fitProfile', 'options.condense', condense);
  const o = jsonWithout('fitProfile', 'options', options, ['countTokens', 'condense']);
  const counter = cb ? counterAdapter(cb) : undefined;
  const condenser = model ? modelAdapter(model) : undefined;
  if (!counter) await preload(encodingIn(o));
  return runTask((g) => g.fitProfile(t, o, counter, condenser));
}

// Entry memory (SPEC §2)

const STORE = Symbol('memcore.inMemoryEntryStore');
// Our stores, recognised by identity (a WeakSet never runs a Proxy trap, `instanceof` may).
const stores = new WeakSet();

/**
 * The bundled in-memory entry store. Its entries live inside the wasm instance, so the tools
 * recall and search without copying entries across the boundary. It implements the host
 * interface itself (synchronously): list, get, upsert, delete, incrementAccess, countUser.
 */
export class InMemoryEntryStore {
  constructor() {
    // Not remade after a failed instance: its entries lived there.
    this[STORE] = handle(this, () => invoke((g) => g.entryStoreNew()), (g, id) => g.entryStoreFree(id), 'InMemoryEntryStore');
    stores.add(this);
  }
  #id() {
    return live(this[STORE]);
  }
  list(userId) {
    const u = text('InMemoryEntryStore.list', 'userId', userId);
    const store = this.#id();
    return parsed(invoke((g) => g.entryStoreList(store, u)));
  }
  get(id) {
    const i = text('InMemoryEntryStore.get', 'id', id);
    const store = this.#id();
    return parsed(invoke((g) => g.entryStoreGet(store, i)));
  }
  upsert(entry) {
    const e = json('InMemoryEntryStore.upsert', 'entry', entry);
    const store = this.#id();
    invoke((g) => g.entryStoreUpsert(store, e ?? 'null'));
  }
  delete(id) {
    const i = text('InMemoryEntryStore.delete', 'id', id);
    const store = this.#id();
    return invoke((g) => g.entryStoreDelete(store, i));
  }
  incrementAccess(ids) {
    const i = json('InMemoryEntryStore.incrementAccess', 'ids', ids);
    const store = this.#id();
    invoke((g) => g.entryStoreIncrementAccess(store, i ?? 'null'));
  }
  countUser(userId) {
    const u = text('InMemoryEntryStore.countUser', 'userId', userId);
    const store = this.#id();
    return invoke((g) => g.entryStoreCountUser(store, u));
  }
  /** Number of entries of all users. */
  get size() {
    const store = this.#id();
    return invoke((g) => g.entryStoreSize(store));
  }
}

/** Whether a value is an object that is not an array (a revoked Proxy is neither). */
function isPlainObjectLike(value) {
  if (value === null || typeof value !== 'object') return false;
  try {
    return !Array.isArray(value);
  } catch {
    return false;
  }
}

/** The store argument: the in-memory store's handle, or an adapter over a host store. */
function storeArg(fn, argument, store) {
  if (stores.has(store)) return live(store[STORE]);
  return entryStoreAdapter(fn, argument, store);
}

export function parseUserMemoryConfig(config) {
  const c = json('parseUserMemoryConfig', 'config', config);
  return parsed(invoke((g) => g.parseUserMemoryConfig(c)));
}
export function resolveMemoryTools(agentConfig, llmTaskConfig) {
  const a = json('resolveMemoryTools', 'agentConfig', agentConfig);
  const t = json('resolveMemoryTools', 'llmTaskConfig', llmTaskConfig);
  return parsed(invoke((g) => g.resolveMemoryTools(a, t)));
}
export function searchTerms(query) {
  const q = text('searchTerms', 'query', query);
  return parsed(invoke((g) => g.searchTerms(q)));
}
export function indexColumns(entries) {
  const e = json('indexColumns', 'entries', entries);
  return parsed(invoke((g) => g.indexColumns(e ?? 'null')));
}
export function searchPrefilter(query) {
  const q = text('searchPrefilter', 'query', query);
  return parsed(invoke((g) => g.searchPrefilter(q)));
}
export function matchesQuery(query, entry) {
  const q = text('matchesQuery', 'query', query);
  const e = json('matchesQuery', 'entry', entry);
  return invoke((g) => g.matchesQuery(q, e ?? 'null'));
}
export function isVisible(entry, agentId, group) {
  const e = json('isVisible', 'entry', entry);
  const a = text('isVisible', 'agentId', agentId);
  const gr = optionalText('isVisible', 'group', group);
  return invoke((g) => g.isVisible(e ?? 'null', a, gr));
}
export function filterClientContext(context) {
  const c = json('filterClientContext', 'context', context);
  return parsed(invoke((g) => g.filterClientContext(c ?? 'null')));
}
export function resolveGroupContext(inputs) {
  const i = json('resolveGroupContext', 'inputs', inputs);
  return invoke((g) => g.resolveGroupContext(i ?? 'null')) ?? null;
}
export function validateMemoryWrite(request, options) {
  const r = json('validateMemoryWrite', 'request', request);
  const o = json('validateMemoryWrite', 'options', options);
  return parsed(invoke((g) => g.validateMemoryWrite(r, o)));
}
export function toolDefinitions(config) {
  const c = json('toolDefinitions', 'config', config);
  return parsed(invoke((g) => g.toolDefinitions(c)));
}

/** The options of the entry functions: `store`, `now` and `newId` go as callbacks, the rest as JSON. */
function entryOptions(fn, options, required) {
  if (options === undefined || options === null) {
    if (required) throw argumentError(fn, 'options', 'must be an object like { userId, agentId }');
    return [undefined, entryHosts(fn, {})];
  }
  if (!isPlainObjectLike(options)) throw argumentError(fn, 'options', 'must be an object');
  const { now, newId } = fields(fn, 'options', options, ['now', 'newId']);
  const hosts = entryHosts(fn, { now: callback(fn, 'options.now', now), newId: callback(fn, 'options.newId', newId) });
  return [jsonWithout(fn, 'options', options, ['store', 'now', 'newId']), hosts];
}

/**
 * The four LLM tools for one user, agent and turn. Calls run one at a time (in order, in the
 * core), so `maxWritesPerTurn` holds even when a model loop fires them in parallel.
 */
export function createMemoryTools(options) {
  const fn = 'createMemoryTools';
  if (options === undefined || options === null) throw argumentError(fn, 'options', 'must be an object like { store, userId, agentId }');
  const { store } = fields(fn, 'options', options, ['store']);
  storeArg(fn, 'store', store);
  const [o, hosts] = entryOptions(fn, options, true);
  const owner = {};
  // Made again after a failed instance (the count of writes starts over; an InMemoryEntryStore of
  // the failed instance answers E_INTERNAL through the tools' failure answers).
  const make = () => {
    const s = storeArg(fn, 'store', store);
    return invoke((g) => g.createMemoryTools(s, o, hosts));
  };
  const h = remakeable(handle(owner, make, (g, id) => g.toolsFree(id), 'MemoryTools'));
  const id = () => live(h);
  const first = id();
  const definitions = parsed(invoke((g) => g.toolsDefinitions(first)));
  const run = (name, args) => {
    let shown;
    try {
      shown = typeof name === 'string' ? name : String(name);
    } catch {
      shown = typeof name;
    }
    let a;
    try {
      a = json(fn, 'args', args) ?? 'null';
    } catch {
      a = undefined; // cannot be read as JSON: the tools answer "Invalid arguments"
    }
    let tools;
    try {
      tools = id();
    } catch (error) {
      return Promise.resolve(failure(shown, error));
    }
    return runTask((g) => g.toolsCall(tools, shown, a)).catch((error) => failure(shown, error));
  };
  // Only a failed instance gets here (the core answers every other problem itself).
  const failure = (shown, error) => {
    let answer;
    try {
      answer = invoke((g) => g.toolFailure(shown, error.message));
    } catch {
      answer = `❌ Failed to store memory: ${error.message}`;
    }
    return { text: answer, wrote: false };
  };
  return Object.freeze({
    // Keeps the handle alive as long as the tools object: it is freed when both are collected.
    [Symbol.for('memcore.handle')]: owner,
    definitions,
    /** Run a tool; resolves to the exact answer text for the model. Never rejects. */
    call: async (name, args) => (await run(name, args)).text,
    /** Run a tool; resolves to `{ text, wrote }`. Never rejects. */
    run,
    /** Start the next turn: `maxWritesPerTurn` counts from zero again. */
    newTurn: () => {
      const tools = id();
      invoke((g) => g.toolsNewTurn(tools));
    },
    get writesThisTurn() {
      const tools = id();
      return invoke((g) => g.toolsWritesThisTurn(tools));
    },
  });
}

// The async functions prepare every argument (which may run the user's getters) before the call
// into wasm; as `async` functions they reject instead of throwing.
export async function persistLongTermProperties(store, properties, options) {
  const fn = 'persistLongTermProperties';
  const s = storeArg(fn, 'store', store);
  const p = json(fn, 'properties', properties);
  const [o, hosts] = entryOptions(fn, options, true);
  return runTask((g) => g.persistLongTermProperties(s, p ?? 'null', o, hosts));
}
export async function readProperties(store, userId) {
  const fn = 'readProperties';
  const s = storeArg(fn, 'store', store);
  const u = text(fn, 'userId', userId);
  return runTask((g) => g.readProperties(s, u, entryHosts(fn, {})));
}
export async function mergeProperties(store, userId, properties, options) {
  const fn = 'mergeProperties';
  const s = storeArg(fn, 'store', store);
  const u = text(fn, 'userId', userId);
  const p = json(fn, 'properties', properties);
  const [o, hosts] = entryOptions(fn, options, false);
  return runTask((g) => g.mergeProperties(s, u, p ?? 'null', o, hosts));
}
export async function deleteProperties(store, userId) {
  const fn = 'deleteProperties';
  const s = storeArg(fn, 'store', store);
  const u = text(fn, 'userId', userId);
  return runTask((g) => g.deleteProperties(s, u, entryHosts(fn, {})));
}

// Data-subject rights (SPEC §4.3): restriction (Art. 18), erasure (Art. 17), export and import
// (Art. 15/20). The rules are in the core (src/rights/); these functions prepare the stores.

/** Set (`true`) or lift (`false`) the user's processing restriction; admin only (`{ admin: true }`). */
export async function setProcessingRestriction(store, userId, restricted, options) {
  const fn = 'setProcessingRestriction';
  const s = storeArg(fn, 'store', store);
  const u = text(fn, 'userId', userId);
  if (typeof restricted !== 'boolean') throw argumentError(fn, 'restricted', `must be true or false, got ${typeof restricted}`);
  const { admin, now, newId } = fields(fn, 'options', options, ['admin', 'now', 'newId']);
  if (admin !== undefined && admin !== null && typeof admin !== 'boolean') throw argumentError(fn, 'options.admin', 'must be a boolean');
  const hosts = entryHosts(fn, { now: callback(fn, 'options.now', now), newId: callback(fn, 'options.newId', newId) });
  return runTask((g) => g.setProcessingRestriction(s, u, restricted, admin === true, hosts));
}

/** Whether the user's processing is restricted (a store failure rejects: callers that must fail safe treat it as restricted). */
export async function isProcessingRestricted(store, userId) {
  const fn = 'isProcessingRestricted';
  const s = storeArg(fn, 'store', store);
  const u = text(fn, 'userId', userId);
  return runTask((g) => g.isProcessingRestricted(s, u, entryHosts(fn, {})));
}

/** The name a report gives a store: its class, or 'object'. */
function storeKind(store) {
  try {
    const name = Object.getPrototypeOf(store)?.constructor?.name;
    return typeof name === 'string' && name !== '' && name !== 'Object' ? name : 'object';
  } catch {
    return 'object';
  }
}

/**
 * `{ entries, memory, rootFolder }` of a rights call, each one store or a list of them. An entry
 * store that is also profile storage (read, write, remove: the SQL stores) serves the profile
 * side too, at `<rootFolder>/<userId>/memory.md`; a store given again (as another entry store or
 * as a ContextMemory's storage) has its profile handled once, by the ContextMemory when there is one.
 */
function rightsStores(fn, options) {
  if (!isPlainObjectLike(options)) throw argumentError(fn, 'options', 'must be an object like { entries, memory }');
  const picked = fields(fn, 'options', options, ['entries', 'memory', 'now', 'rootFolder']);
  const rootFolder = optionalText(fn, 'options.rootFolder', picked.rootFolder);
  const list = (name, value) => (value === undefined || value === null ? [] : Array.isArray(value) ? value : [value]).map((v, i) => [`options.${name}${Array.isArray(value) ? `[${i}]` : ''}`, v]);
  const memories = list('memory', picked.memory).map(([option, memory]) => {
    if (!(memory instanceof ContextMemory)) throw argumentError(fn, option, 'must be a ContextMemory');
    return { option, kind: 'ContextMemory', memory, storage: memory[STORAGE] };
  });
  const seen = new Set(memories.map((m) => m.storage));
  const entries = list('entries', picked.entries).map(([option, store]) => {
    const arg = storeArg(fn, option, store);
    const profiles = stores.has(store) || seen.has(store) ? undefined : profileStorageAdapter(fn, option, store);
    seen.add(store);
    return { option, kind: storeKind(store), arg, profiles, store };
  });
  if (entries.length === 0 && memories.length === 0) throw argumentError(fn, 'options', 'names no store: pass { entries } and/or { memory }');
  const hosts = entryHosts(fn, { now: callback(fn, 'options.now', picked.now) });
  return { entries, memories, rootFolder, hosts };
}

/** The profile side of a rights call: a ContextMemory's handle, or a store's profile adapter. */
const profileSide = (side) => (side?.memory ? live(side.memory[MEMORY]) : side?.profiles);

/**
 * Art. 17 erasure: every entry (`_gdpr_` ones included) in each entry store, then the profile
 * with the user's folder in each store that holds profiles — an entry store that is also profile
 * storage, and each `ContextMemory`'s storage — once per store. Resolves to
 * `{ userId, entries: [n per entry store], profiles: [{ removed, folderRemoved } per profile
 * erased], stores: [{ option, kind, entries, profile } per store given] }`.
 */
export async function eraseUserData(userId, options) {
  const fn = 'eraseUserData';
  const u = text(fn, 'userId', userId);
  const { entries, memories, rootFolder, hosts } = rightsStores(fn, options);
  const byStore = [...entries, ...memories].map(({ option, kind }) => ({ option, kind, entries: null, profile: null }));
  // Every entry store first: a failure there leaves the profiles, so a retry's report is complete.
  for (const [i, s] of entries.entries()) byStore[i].entries = (await runTask((g) => g.eraseUserData(u, s.arg, undefined, undefined, hosts))).entries;
  for (const [i, s] of [...entries, ...memories].entries()) {
    const side = profileSide(s);
    if (side !== undefined) byStore[i].profile = (await runTask((g) => g.eraseUserData(u, undefined, side, s.memory ? undefined : rootFolder, hosts))).profile;
  }
  return { userId: u, entries: byStore.slice(0, entries.length).map((s) => s.entries), profiles: byStore.filter((s) => s.profile).map((s) => s.profile), stores: byStore };
}

/** One entry store and one profile side at a time (export and import). */
function oneOfEach(fn, what, options) {
  const picked = rightsStores(fn, options);
  if (picked.entries.length > 1 || picked.memories.length > 1) throw argumentError(fn, 'options', `${what} one entry store and one ContextMemory at a time`);
  const [entry] = picked.entries;
  const [memory] = picked.memories;
  // The profile: the ContextMemory's when given, else the entry store's when it holds profiles.
  const profiles = memory ?? (entry?.profiles ? entry : undefined);
  return { ...picked, entry, memory, profiles };
}

/**
 * Art. 15/20 export: one JSON document (entries, profile text, restriction state) of one entry
 * store and/or one ContextMemory; the profile comes from the ContextMemory, else from the entry
 * store when it holds profiles.
 */
export async function exportUserData(userId, options) {
  const fn = 'exportUserData';
  const u = text(fn, 'userId', userId);
  const { entry, profiles, rootFolder, hosts } = oneOfEach(fn, 'exports', options);
  return runTask((g) => g.exportUserData(u, entry?.arg, profileSide(profiles), profiles?.memory ? undefined : rootFolder, hosts));
}

/**
 * Restore an `exportUserData` document into an empty entry store and profile storage (a
 * ContextMemory's, else the entry store's when it holds profiles), all or nothing. Resolves to
 * `{ entries, profile, stores: [{ option, kind, entries, profile } per store given] }`.
 */
export async function importUserData(document, options) {
  const fn = 'importUserData';
  const d = json(fn, 'document', document);
  const { entry, memory, profiles, rootFolder, hosts } = oneOfEach(fn, 'imports into', options);
  // One store holding both sides (a SQL store, also as a ContextMemory's storage) writes both in one transaction.
  const together = entry !== undefined && profiles !== undefined && (profiles === entry || profiles.storage === entry.store);
  const report = await runTask((g) => g.importUserData(d ?? 'null', entry?.arg, profileSide(profiles), profiles?.memory ? undefined : rootFolder, together, hosts));
  const byStore = [entry, memory].filter(Boolean).map((s) => ({
    option: s.option,
    kind: s.kind,
    entries: s === entry ? report.entries : null,
    profile: s === profiles ? report.profile : null,
  }));
  return { ...report, stores: byStore };
}

// The memory operations of the HTTP and MCP surfaces (SPEC §2.8). Every rule is the core's:
// `memcore/server` and any host route call these, so REST and MCP cannot drift apart.

/** `{ config?, storeTimeoutMs?, surface? }` as JSON, with `now`/`newId` as host callbacks. */
function memoryOptions(fn, options, extra = []) {
  if (options !== undefined && options !== null && !isPlainObjectLike(options)) throw argumentError(fn, 'options', 'must be an object');
  const [o, hosts] = entryOptions(fn, options, false);
  if (o === undefined || extra.length === 0) return [o, hosts];
  return [jsonWithout(fn, 'options', options, ['store', 'now', 'newId', ...extra]), hosts];
}

/**
 * Every entry of a user, all visibilities, most recently updated first (`_gdpr_` entries are
 * not shown).
 * @example const entries = await listUserMemories(store, 'user-1');
 */
export async function listUserMemories(store, userId, options) {
  const fn = 'listUserMemories';
  const s = storeArg(fn, 'store', store);
  const u = text(fn, 'userId', userId);
  const [o, hosts] = memoryOptions(fn, options);
  return runTask((g) => g.listUserMemories(s, u, o, hosts));
}
/**
 * What one agent sees (the recall rule): `{ entries }`, or `{ violations }` for a bad query.
 * @example const { entries } = await getVisibleMemories(store, { userId: 'u1', agentId: 'a1', limit: 10 });
 */
export async function getVisibleMemories(store, query, options) {
  const fn = 'getVisibleMemories';
  const s = storeArg(fn, 'store', store);
  const q = json(fn, 'query', query);
  const [o, hosts] = memoryOptions(fn, options);
  return runTask((g) => g.getVisibleMemories(s, q ?? 'null', o, hosts));
}
/**
 * The user's entries matching every term of `query` (the search rule), newest first.
 * @example const found = await searchUserMemories(store, 'u1', 'dog name');
 */
export async function searchUserMemories(store, userId, query, options) {
  const fn = 'searchUserMemories';
  const s = storeArg(fn, 'store', store);
  const u = text(fn, 'userId', userId);
  const q = text(fn, 'query', query);
  const [o, hosts] = memoryOptions(fn, options);
  return runTask((g) => g.searchUserMemories(s, u, q, o, hosts));
}
/**
 * The entry with `key`: the agent's own self/group entry when `options.agentId` is given and has
 * one, else the global entry; `null` when there is none.
 * @example const entry = await getMemoryByKey(store, 'u1', 'city', { agentId: 'a1' });
 */
export async function getMemoryByKey(store, userId, key, options) {
  const fn = 'getMemoryByKey';
  const s = storeArg(fn, 'store', store);
  const u = text(fn, 'userId', userId);
  const k = text(fn, 'key', key);
  const { agentId } = fields(fn, 'options', options ?? {}, ['agentId']);
  const a = optionalText(fn, 'options.agentId', agentId);
  const [o, hosts] = memoryOptions(fn, options, ['agentId']);
  return runTask((g) => g.getMemoryByKey(s, u, k, a, o, hosts));
}
/**
 * How many entries count toward `maxEntriesPerUser` (all but `_gdpr_` ones).
 * @example const n = await countUserMemories(store, 'u1');
 */
export async function countUserMemories(store, userId, options) {
  const fn = 'countUserMemories';
  const s = storeArg(fn, 'store', store);
  const u = text(fn, 'userId', userId);
  const [o, hosts] = memoryOptions(fn, options);
  return runTask((g) => g.countUserMemories(s, u, o, hosts));
}
/**
 * Insert or update one entry: `validateMemoryWrite`, then the identity rule, then the cap.
 * Resolves to `{ outcome: 'stored' | 'unchanged' | 'invalid' | 'full' | 'restricted', … }`.
 * @example const r = await upsertUserMemory(store, { userId: 'u1', key: 'city', value: 'Oslo', visibility: 'global' });
 */
export async function upsertUserMemory(store, request, options) {
  const fn = 'upsertUserMemory';
  const s = storeArg(fn, 'store', store);
  const r = json(fn, 'request', request);
  const [o, hosts] = memoryOptions(fn, options);
  return runTask((g) => g.upsertUserMemory(s, r ?? 'null', o, hosts));
}
/**
 * Delete one entry by id; with `options.userId`, only that user's. Resolves to
 * `{ outcome: 'deleted' | 'notFound' | 'reserved' | 'foreign', entry? }`.
 * @example const r = await deleteUserMemory(store, entryId, { userId: 'u1' });
 */
export async function deleteUserMemory(store, entryId, options) {
  const fn = 'deleteUserMemory';
  const s = storeArg(fn, 'store', store);
  const i = text(fn, 'entryId', entryId);
  const { userId } = fields(fn, 'options', options ?? {}, ['userId']);
  const u = optionalText(fn, 'options.userId', userId);
  const [o, hosts] = memoryOptions(fn, options, ['userId']);
  return runTask((g) => g.deleteUserMemory(s, i, u, o, hosts));
}
/**
 * Delete every entry of a user except `_gdpr_` ones; resolves to how many were deleted.
 * @example const n = await deleteAllUserMemories(store, 'u1');
 */
export async function deleteAllUserMemories(store, userId, options) {
  const fn = 'deleteAllUserMemories';
  const s = storeArg(fn, 'store', store);
  const u = text(fn, 'userId', userId);
  const [o, hosts] = memoryOptions(fn, options);
  return runTask((g) => g.deleteAllUserMemories(s, u, o, hosts));
}

// Credentials and the legacy migration (SPEC §4.1, §4.2)

export function detectCredential(value) {
  const v = json('detectCredential', 'value', value);
  return parsed(invoke((g) => g.detectCredential(v ?? 'null')));
}
export function redactSecrets(value) {
  const v = json('redactSecrets', 'value', value);
  return parsed(invoke((g) => g.redactSecrets(v ?? 'null')));
}
export function planPropertiesMigration(legacyDocuments, existingKeysByUser, options) {
  const fn = 'planPropertiesMigration';
  const d = json(fn, 'legacyDocuments', legacyDocuments);
  const e = json(fn, 'existingKeysByUser', existingKeysByUser);
  const o = json(fn, 'options', options);
  return parsed(invoke((g) => g.planPropertiesMigration(d ?? 'null', e, o)));
}
export function planLegacyCleanup(entries, options) {
  const fn = 'planLegacyCleanup';
  const e = json(fn, 'entries', entries);
  const o = json(fn, 'options', options);
  return parsed(invoke((g) => g.planLegacyCleanup(e ?? 'null', o)));
}
export async function applyPropertiesMigration(plan, store, options) {
  const fn = 'applyPropertiesMigration';
  const p = json(fn, 'plan', plan);
  const s = storeArg(fn, 'store', store);
  const [, hosts] = entryOptions(fn, options, false);
  return runTask((g) => g.applyPropertiesMigration(p ?? 'null', s, hosts));
}

// Dream maintenance (SPEC §3)

const METRICS = Symbol('memcore.dreamMetrics');
const metricsObjects = new WeakSet();

/**
 * Dream's counters and duration summary, kept by the host across runs and passed to `dream` as
 * `metrics`; `prometheus()` writes them in the Prometheus text format. After a failed
 * WebAssembly instance the counters start again from zero (as after a process restart).
 */
export class DreamMetrics {
  constructor() {
    this[METRICS] = remakeable(handle(this, () => invoke((g) => g.dreamMetricsNew()), (g, id) => g.dreamMetricsFree(id), 'DreamMetrics'));
    metricsObjects.add(this);
  }
  /** The Prometheus text exposition (`eddi_dream_*`). */
  prometheus() {
    const id = live(this[METRICS]);
    return invoke((g) => g.dreamMetricsPrometheus(id));
  }
  /** The counters as an object. */
  snapshot() {
    const id = live(this[METRICS]);
    return parsed(invoke((g) => g.dreamMetricsSnapshot(id)));
  }
}

/**
 * One Dream run for one user and one firing agent: prune, detect contradictions, summarise.
 * Resolves to the report; refusals and failures are in `report.error`, misuse rejects.
 */
export async function dream(options) {
  const fn = 'dream';
  if (!isPlainObjectLike(options)) throw argumentError(fn, 'options', 'must be an object like { store, model, userId, agentId, config, now }');
  const callbacks = ['store', 'model', 'newId', 'log', 'metrics'];
  const { store, model, newId, log, metrics } = fields(fn, 'options', options, callbacks);
  const s = storeArg(fn, 'store', store);
  const complete = modelOf(fn, 'options.model', model);
  const hosts = dreamHosts(fn, { complete, newId: callback(fn, 'options.newId', newId), log: callback(fn, 'options.log', log) });
  let m;
  if (metrics !== undefined && metrics !== null) {
    if (!metricsObjects.has(metrics)) throw argumentError(fn, 'options.metrics', 'must be a DreamMetrics (new DreamMetrics())');
    m = live(metrics[METRICS]);
  }
  const o = jsonWithout(fn, 'options', options, callbacks);
  return runTask((g) => g.dream(s, o, hosts, m));
}

/** Every problem of a Dream schedule as `{ field, message }` (empty → valid). */
export function validateDreamSchedule(schedule) {
  const s = json('validateDreamSchedule', 'schedule', schedule);
  return parsed(invoke((g) => g.validateDreamSchedule(s)));
}

// Profile memory: the turn pipeline (SPEC §1.7, §1.9, §1.10)

const MEMORY = Symbol('memcore.contextMemory');
const TABLE = Symbol('memcore.contextMemory.table');
// The storage object the ContextMemory was given (the rights handle a profile once per store).
const STORAGE = Symbol('memcore.contextMemory.storage');

/**
 * Profile memory for one host setup: `load` before a turn, `afterTurn` after the answer, and the
 * Settings functions. Turns of the same user run one after the other inside one instance;
 * versioned storage (`ifVersion`, `ifAbsent`) protects across processes. Every host call has a
 * deadline (`config.timeouts`).
 */
export class ContextMemory {
  constructor(hosts, config) {
    const { adapter, entries, entriesArgument, storage } = contextMemoryAdapter('ContextMemory', hosts);
    this[STORAGE] = storage;
    // The entry store the restriction flag is read from (optional): checked now, like createMemoryTools does.
    if (entries !== undefined) storeArg('ContextMemory', entriesArgument, entries);
    const c = json('ContextMemory', 'config', config);
    // The table the turn counts with, downloaded before load/afterTurn where it is fetched.
    this[TABLE] = typeof adapter.countTokens === 'function' ? undefined : encodingIn(c);
    // Made again after a failed instance: its state is the configuration and the per-user locks.
    this[MEMORY] = remakeable(
      handle(this, () => invoke((g) => g.contextMemoryNew(adapter, entries === undefined ? undefined : storeArg('ContextMemory', entriesArgument, entries), c, Math.floor(Math.random() * 2 ** 53))), (g, id) => g.contextMemoryFree(id), 'ContextMemory'),
    );
  }
  #id() {
    return live(this[MEMORY]);
  }
  async load(input) {
    const i = json('ContextMemory.load', 'input', input) ?? 'null';
    if (this[TABLE]) await preload(this[TABLE]);
    const id = this.#id();
    return runTask((g) => g.contextMemoryLoad(id, i));
  }
  async afterTurn(input) {
    const i = json('ContextMemory.afterTurn', 'input', input) ?? 'null';
    if (this[TABLE]) await preload(this[TABLE]);
    const id = this.#id();
    return runTask((g) => g.contextMemoryAfterTurn(id, i));
  }
  async getMyContextMemory(userId) {
    const u = text('getMyContextMemory', 'userId', userId);
    const id = this.#id();
    return runTask((g) => g.contextMemoryGet(id, u));
  }
  async updateMyContextMemory(userId, body) {
    const u = text('updateMyContextMemory', 'userId', userId);
    const b = text('updateMyContextMemory', 'body', body);
    const id = this.#id();
    return runTask((g) => g.contextMemoryUpdate(id, u, b));
  }
  async deleteContextMemory(userId) {
    const u = text('deleteContextMemory', 'userId', userId);
    const id = this.#id();
    return runTask((g) => g.contextMemoryDelete(id, u));
  }
}

// Turn prompts and their answers (SPEC §1.7 steps 4–5)

export function buildGatePrompt(profileBody, userMessage, assistantMessage, options) {
  const fn = 'buildGatePrompt';
  const [b, u, a] = [text(fn, 'profileBody', profileBody), text(fn, 'userMessage', userMessage), text(fn, 'assistantMessage', assistantMessage)];
  const o = json(fn, 'options', options);
  return parsed(invoke((g) => g.buildGatePrompt(b, u, a, o)));
}
export function buildConsolidationPrompt(currentBody, userMessage, assistantMessage, options) {
  const fn = 'buildConsolidationPrompt';
  const [b, u, a] = [text(fn, 'currentBody', currentBody), text(fn, 'userMessage', userMessage), text(fn, 'assistantMessage', assistantMessage)];
  const o = json(fn, 'options', options);
  return parsed(invoke((g) => g.buildConsolidationPrompt(b, u, a, o ?? 'null')));
}
export function buildCondensePrompt(body, options) {
  const b = text('buildCondensePrompt', 'body', body);
  const o = json('buildCondensePrompt', 'options', options);
  return parsed(invoke((g) => g.buildCondensePrompt(b, o)));
}
export function parseGateDecision(raw) {
  const r = text('parseGateDecision', 'raw', raw);
  return parsed(invoke((g) => g.parseGateDecision(r)));
}
export function parseConsolidation(raw) {
  const r = text('parseConsolidation', 'raw', raw);
  return parsed(invoke((g) => g.parseConsolidation(r)));
}

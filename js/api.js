// The public API: thin wrappers over the wasm bindings that check initialisation and turn thrown
// values into MemcoreError. Argument checking happens in Rust (one place for every runtime).
import * as wasm from './wasm/memcore.js';
import { toMemcoreError } from './errors.js';
import { ensureInitialized } from './state.js';

export { MemcoreError } from './errors.js';

function call(fn, ...args) {
  ensureInitialized();
  try {
    return fn(...args);
  } catch (error) {
    throw toMemcoreError(error);
  }
}

async function callAsync(fn, ...args) {
  ensureInitialized();
  try {
    return await fn(...args);
  } catch (error) {
    throw toMemcoreError(error);
  }
}

/** The exact tooltip of the admin UI switch while web search is on (SPEC §1.8). */
export const WEB_SEARCH_TOOLTIP =
  'Context memory is unavailable while web search is enabled, to keep user data out of external search queries.';

/** The six profile sections, in order. */
export const SECTION_HEADINGS = Object.freeze([
  'Identity',
  'Communication Preferences',
  'Work Context',
  'Skills & Expertise',
  'Recent Topics',
  'Follow-ups',
]);

/** The largest profile body `applyUserEdit` accepts, in UTF-8 bytes. */
export const MAX_EDIT_BODY_BYTES = 1048576;

export function version() {
  return call(wasm.version);
}

// Profile format (SPEC §1.2, §1.3, §1.6)
export function parseProfile(text) {
  return call(wasm.parseProfile, text);
}
export function renderProfile(profile) {
  return call(wasm.renderProfile, profile);
}
export function emptyProfile(userId, now) {
  return call(wasm.emptyProfile, userId, now);
}
export function profileBody(text) {
  return call(wasm.profileBody, text);
}
export function normaliseModelBody(text) {
  return call(wasm.normaliseModelBody, text);
}
export function isWellFormedBody(text) {
  return call(wasm.isWellFormedBody, text);
}
export function assembleProfile(body, options) {
  return call(wasm.assembleProfile, body, options);
}

// Injection, paths, enablement, editing (SPEC §1.1, §1.7, §1.8, §1.10)
export function memorySystemPromptSection(text) {
  return call(wasm.memorySystemPromptSection, text);
}
export function memoryPath(userId, rootFolder) {
  return call(wasm.memoryPath, userId, rootFolder);
}
export function checkMemoryRoots(roots, configuredName) {
  return call(wasm.checkMemoryRoots, roots, configuredName) ?? null;
}
export function resolveEnablement(inputs) {
  return call(wasm.resolveEnablement, inputs);
}
export function orchestratorMemoryEnabled(payloadValue) {
  return call(wasm.orchestratorMemoryEnabled, payloadValue);
}
export function editableBody(text) {
  return call(wasm.editableBody, text);
}
export function memoryView(stored) {
  return call(wasm.memoryView, stored);
}
export function applyUserEdit(existing, body, options) {
  return call(wasm.applyUserEdit, existing, body, options);
}

// Tokens (SPEC §1.4)
export function loadTokenizer(bytes) {
  return call(wasm.loadTokenizer, bytes);
}
export function hasTokenizer(encoding) {
  return call(wasm.hasTokenizer, encoding);
}
export function countTokens(text, options) {
  return call(wasm.countTokens, text, options);
}
export function encodeTokens(text, options) {
  return Array.from(call(wasm.encodeTokens, text, options));
}

// Budget fitting (SPEC §1.4, §1.5)
export function enforceTokenCap(text, maxTokens, tokenizer) {
  return call(wasm.enforceTokenCap, text, maxTokens, tokenizer);
}
export function condenseProfile(text, maxTokens, tokenizer) {
  return call(wasm.condenseProfile, text, maxTokens, tokenizer);
}
export function fitProfile(text, options) {
  return callAsync(wasm.fitProfile, text, options);
}

/** The marker appended by the hard cut (SPEC §1.5), byte for byte. */
export const TRUNCATION_MARKER = '\n\n<!-- truncated to fit memory budget -->';

// Entry memory (SPEC §2)

const NATIVE = Symbol('memcore.nativeStore');

/**
 * The bundled in-memory entry store. Its entries live inside the wasm instance, so the tools
 * recall and search without copying entries across the boundary. It implements the host
 * interface itself (synchronously): list, get, upsert, delete, incrementAccess, countUser.
 */
export class InMemoryEntryStore {
  constructor() {
    this[NATIVE] = call(() => new wasm.InMemoryEntryStore());
  }
  list(userId) {
    return call((u) => this[NATIVE].list(u), userId);
  }
  get(id) {
    return call((i) => this[NATIVE].get(i), id);
  }
  upsert(entry) {
    call((e) => this[NATIVE].upsert(e), entry);
  }
  delete(id) {
    return call((i) => this[NATIVE].delete(i), id);
  }
  incrementAccess(ids) {
    call((i) => this[NATIVE].incrementAccess(i), ids);
  }
  countUser(userId) {
    return call((u) => this[NATIVE].countUser(u), userId);
  }
  /** Number of entries of all users. */
  get size() {
    return this[NATIVE].size;
  }
}

function storeRef(store, fn) {
  if (store instanceof InMemoryEntryStore) return wasm.EntryStoreRef.native(store[NATIVE]);
  return wasm.EntryStoreRef.host(store, fn);
}

export function parseUserMemoryConfig(config) {
  return call(wasm.parseUserMemoryConfig, config);
}
export function resolveMemoryTools(agentConfig, llmTaskConfig) {
  return call(wasm.resolveMemoryTools, agentConfig, llmTaskConfig);
}
export function searchTerms(query) {
  return call(wasm.searchTerms, query);
}
export function matchesQuery(query, entry) {
  return call(wasm.matchesQuery, query, entry);
}
export function isVisible(entry, agentId, group) {
  return call(wasm.isVisible, entry, agentId, group);
}
export function filterClientContext(context) {
  return call(wasm.filterClientContext, context);
}
export function resolveGroupContext(inputs) {
  return call(wasm.resolveGroupContext, inputs) ?? null;
}
export function validateMemoryWrite(request, options) {
  return call(wasm.validateMemoryWrite, request, options);
}
export function toolDefinitions(config) {
  return call(wasm.toolDefinitions, config);
}

/**
 * The four LLM tools for one user, agent and turn. Calls run one at a time (in order), so
 * `maxWritesPerTurn` holds even when a model loop fires them in parallel.
 */
export function createMemoryTools(options) {
  const tools = call(() => {
    if (options === null || typeof options !== 'object') {
      return wasm.createMemoryTools(wasm.EntryStoreRef.host(undefined, 'createMemoryTools'), options);
    }
    return wasm.createMemoryTools(storeRef(options.store, 'createMemoryTools'), options);
  });
  let queue = Promise.resolve();
  const run = (name, args) => {
    const result = queue.then(() => tools.call(name, args));
    queue = result.catch(() => {});
    return result;
  };
  return Object.freeze({
    definitions: tools.definitions,
    /** Run a tool; resolves to the exact answer text for the model. Never rejects. */
    call: async (name, args) => (await run(name, args)).text,
    /** Run a tool; resolves to `{ text, wrote }`. */
    run,
    /** Start the next turn: `maxWritesPerTurn` counts from zero again. */
    newTurn: () => tools.newTurn(),
    get writesThisTurn() {
      return tools.writesThisTurn;
    },
  });
}

export function persistLongTermProperties(store, properties, options) {
  return callAsync(() => wasm.persistLongTermProperties(storeRef(store, 'persistLongTermProperties'), properties, options));
}
export function readProperties(store, userId) {
  return callAsync(() => wasm.readProperties(storeRef(store, 'readProperties'), userId));
}
export function mergeProperties(store, userId, properties, options) {
  return callAsync(() => wasm.mergeProperties(storeRef(store, 'mergeProperties'), userId, properties, options));
}
export function deleteProperties(store, userId) {
  return callAsync(() => wasm.deleteProperties(storeRef(store, 'deleteProperties'), userId));
}

// Profile memory: the turn pipeline (SPEC §1.7, §1.9, §1.10)

/** The notice shown while a profile is rewritten (SPEC §1.7 step 6), byte for byte. */
export const UPDATING_NOTICE = '🧠 Updating context memory…';

const PIPELINE = Symbol('memcore.contextMemory');

/**
 * Profile memory for one host setup: `load` before a turn, `afterTurn` after the answer, and the
 * Settings functions. Turns of the same user run one after the other inside one instance;
 * versioned storage (`ifVersion`) protects across processes.
 */
export class ContextMemory {
  constructor(hosts, config) {
    this[PIPELINE] = call(() => new wasm.ContextMemory(hosts, config));
  }
  load(input) {
    return callAsync(() => this[PIPELINE].load(input));
  }
  afterTurn(input) {
    return callAsync(() => this[PIPELINE].afterTurn(input));
  }
  getMyContextMemory(userId) {
    return callAsync(() => this[PIPELINE].getMyContextMemory(userId));
  }
  updateMyContextMemory(userId, body) {
    return callAsync(() => this[PIPELINE].updateMyContextMemory(userId, body));
  }
  deleteContextMemory(userId) {
    return callAsync(() => this[PIPELINE].deleteContextMemory(userId));
  }
}

// Turn prompts and their answers (SPEC §1.7 steps 4–5)
export function buildGatePrompt(profileBody, userMessage, assistantMessage, options) {
  return call(wasm.buildGatePrompt, profileBody, userMessage, assistantMessage, options);
}
export function buildConsolidationPrompt(currentBody, userMessage, assistantMessage, options) {
  return call(wasm.buildConsolidationPrompt, currentBody, userMessage, assistantMessage, options);
}
export function buildCondensePrompt(body, options) {
  return call(wasm.buildCondensePrompt, body, options);
}
export function parseGateDecision(raw) {
  return call(wasm.parseGateDecision, raw);
}
export function parseConsolidation(raw) {
  return call(wasm.parseConsolidation, raw);
}

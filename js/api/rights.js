// Data-subject rights (behaviour §4.3): restriction (Art. 18), erasure (Art. 17), export and import
// (Art. 15/20). The rules are in the core (src/rights/); these functions prepare the stores.
import { argumentError, callback, fields, json, live, optionalText, runTask, text } from '../wire.js';
import { entryHosts, profileStorageAdapter } from '../host.js';
import { isPlainObjectLike, MEMORY, STORAGE, storeArg, storeTimeout, stores } from './arguments.js';
import { ContextMemory } from './context-memory.js';

/** Set (`true`) or lift (`false`) the user's processing restriction; admin only (`{ admin: true }`). */
export async function setProcessingRestriction(store, userId, restricted, options) {
  const fn = 'setProcessingRestriction';
  const s = storeArg(fn, 'store', store);
  const u = text(fn, 'userId', userId);
  if (typeof restricted !== 'boolean') throw argumentError(fn, 'restricted', `must be true or false, got ${typeof restricted}`);
  const { admin, now, newId, storeTimeoutMs, principal, config } = fields(fn, 'options', options, ['admin', 'now', 'newId', 'storeTimeoutMs', 'principal', 'config']);
  if (admin !== undefined && admin !== null && typeof admin !== 'boolean') throw argumentError(fn, 'options.admin', 'must be a boolean');
  const hosts = entryHosts(fn, { now: callback(fn, 'options.now', now), newId: callback(fn, 'options.newId', newId) });
  const o = json(fn, 'options', { storeTimeoutMs, principal, config });
  return runTask((g) => g.setProcessingRestriction(s, u, restricted, admin === true, o, hosts));
}

/** Whether the user's processing is restricted (a store failure rejects: callers that must fail safe treat it as restricted). */
export async function isProcessingRestricted(store, userId, options) {
  const fn = 'isProcessingRestricted';
  const s = storeArg(fn, 'store', store);
  const u = text(fn, 'userId', userId);
  const o = storeTimeout(fn, options);
  return runTask((g) => g.isProcessingRestricted(s, u, o, entryHosts(fn, {})));
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
  const picked = fields(fn, 'options', options, ['entries', 'memory', 'now', 'rootFolder', 'storeTimeoutMs', 'principal', 'config']);
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
  const o = json(fn, 'options', { storeTimeoutMs: picked.storeTimeoutMs, principal: picked.principal, config: picked.config });
  return { entries, memories, rootFolder, o, hosts };
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
  const { entries, memories, rootFolder, o, hosts } = rightsStores(fn, options);
  const byStore = [...entries, ...memories].map(({ option, kind }) => ({ option, kind, entries: null, history: null, profile: null }));
  // Every entry store first: a failure there leaves the profiles, so a retry's report is complete.
  for (const [i, s] of entries.entries()) {
    const erased = await runTask((g) => g.eraseUserData(u, s.arg, undefined, undefined, o, hosts));
    byStore[i].entries = erased.entries;
    byStore[i].history = erased.history;
  }
  for (const [i, s] of [...entries, ...memories].entries()) {
    const side = profileSide(s);
    if (side !== undefined) byStore[i].profile = (await runTask((g) => g.eraseUserData(u, undefined, side, s.memory ? undefined : rootFolder, o, hosts))).profile;
  }
  return {
    userId: u,
    entries: byStore.slice(0, entries.length).map((s) => s.entries),
    history: byStore.slice(0, entries.length).map((s) => s.history),
    profiles: byStore.filter((s) => s.profile).map((s) => s.profile),
    stores: byStore,
  };
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
  const { entry, profiles, rootFolder, o, hosts } = oneOfEach(fn, 'exports', options);
  return runTask((g) => g.exportUserData(u, entry?.arg, profileSide(profiles), profiles?.memory ? undefined : rootFolder, o, hosts));
}

/**
 * Restore an `exportUserData` document into an empty entry store and profile storage (a
 * ContextMemory's, else the entry store's when it holds profiles), all or nothing. Resolves to
 * `{ entries, profile, stores: [{ option, kind, entries, profile } per store given] }`.
 */
export async function importUserData(document, options) {
  const fn = 'importUserData';
  const d = json(fn, 'document', document);
  const { entry, memory, profiles, rootFolder, o, hosts } = oneOfEach(fn, 'imports into', options);
  // One store holding both sides (a SQL store, also as a ContextMemory's storage) writes both in one transaction.
  const together = entry !== undefined && profiles !== undefined && (profiles === entry || profiles.storage === entry.store);
  const report = await runTask((g) => g.importUserData(d ?? 'null', entry?.arg, profileSide(profiles), profiles?.memory ? undefined : rootFolder, together, o, hosts));
  const byStore = [entry, memory].filter(Boolean).map((s) => ({
    option: s.option,
    kind: s.kind,
    entries: s === entry ? report.entries : null,
    profile: s === profiles ? report.profile : null,
  }));
  return { ...report, stores: byStore };
}

// Data-subject rights (behaviour §4.3): restriction (Art. 18), erasure (Art. 17), export and import
// (Art. 15/20). The rules are in the core (src/rights/); these functions prepare the stores.
import { argumentError, callback, fields, invoke, json, live, optionalText, runTask, text } from '../wire.js';
import { MemcoreError } from '../errors.js';
import { checkTenantId, forTenant } from '../tenants.js';
import { embedderOf, entryHosts, profileStorageAdapter } from '../host.js';
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
function rightsStores(fn, options, extra = []) {
  if (!isPlainObjectLike(options)) throw argumentError(fn, 'options', 'must be an object like { entries, memory }');
  const picked = fields(fn, 'options', options, ['entries', 'memory', 'now', 'rootFolder', 'storeTimeoutMs', 'principal', 'config', ...extra]);
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
  // The import's embedder (its `embed` a host call, its settings for the core).
  const embedding = extra.includes('embedder') ? embedderOf(fn, 'options.embedder', picked.embedder, picked.embedTimeoutMs) : undefined;
  const hosts = entryHosts(fn, { now: callback(fn, 'options.now', picked.now), embed: embedding?.embed, log: callback(fn, 'options.log', picked.log) });
  const o = json(fn, 'options', { storeTimeoutMs: picked.storeTimeoutMs, principal: picked.principal, config: picked.config, embedder: embedding?.spec });
  return { entries, memories, rootFolder, o, hosts, keys: picked.keys, tenantId: picked.tenantId };
}

/** The profile side of a rights call: a ContextMemory's handle, or a store's profile adapter. */
const profileSide = (side) => (side?.memory ? live(side.memory[MEMORY]) : side?.profiles);

/** Whether `value` has a method `name` (a getter that throws: no). */
function hasMethod(value, name) {
  try {
    return typeof value?.[name] === 'function';
  } catch {
    return false;
  }
}

/**
 * The key stores an erasure deletes the user's API keys from: each entry store that holds keys
 * (the SQL stores: `deleteApiKeysOf`, in their own tenant), and each of `options.keys` (a key store
 * such as `InMemoryApiKeyStore`, or the `apiKeys()` object — `deleteApiKeysOf(userId, { tenantId })`).
 */
function keyStores(fn, entries, keys, tenantId) {
  const given = (keys === undefined || keys === null ? [] : Array.isArray(keys) ? keys : [keys]).map((store, i) => {
    const option = `options.keys${Array.isArray(keys) ? `[${i}]` : ''}`;
    if (!hasMethod(store, 'deleteApiKeysOf')) throw argumentError(fn, option, 'must be a key store with deleteApiKeysOf(userId, { tenantId }) (InMemoryApiKeyStore, an apiKeys() object, or a SQL store)');
    return { option, kind: storeKind(store), store, remove: (u) => store.deleteApiKeysOf(u, { tenantId }) };
  });
  const own = entries.filter((s) => !stores.has(s.store) && hasMethod(s.store, 'deleteApiKeysOf') && !given.some((g) => g.store === s.store))
    .map((s) => ({ option: s.option, kind: s.kind, remove: (u) => s.store.deleteApiKeysOf(u) }));
  return [...own, ...given];
}

/** The tenant an erasure's key stores are asked about: `options.tenantId`, else the entry stores' own. */
function erasureTenant(fn, tenantId, entries) {
  if (tenantId !== undefined && tenantId !== null) return checkTenantId(tenantId, fn);
  for (const { store } of entries) {
    try {
      if (typeof store.tenantId === 'string') return store.tenantId;
    } catch {}
  }
  return null;
}

/**
 * Art. 17 erasure. First the user's access ends: their API keys are deleted from every key store
 * given (`options.keys`) and from each entry store that holds keys (the SQL stores), so nothing
 * can write for the user while the rest goes. Then every entry (`_gdpr_` ones included) in each
 * entry store with its history — other users' audit records and versions that named the user as
 * the one who acted are renamed to the erasure's pseudonym — then the profile with the user's
 * folder in each store that holds profiles (an entry store that is also profile storage, and each
 * `ContextMemory`'s storage), once per store. Resolves to `{ userId, keys, entries: [n per entry
 * store], history: [per entry store], profiles: [{ removed, folderRemoved } per profile erased],
 * stores: [{ option, kind, entries, history, profile, keys } per store given] }`.
 */
export async function eraseUserData(userId, options) {
  const fn = 'eraseUserData';
  const u = text(fn, 'userId', userId);
  const { entries, memories, rootFolder, o, hosts, keys, tenantId } = rightsStores(fn, options, ['keys', 'tenantId']);
  // The user id first (the core's rule, E_INVALID_USER_ID): nothing is touched for an id the erasure refuses.
  invoke((g) => g.checkUserId(u));
  const holders = keyStores(fn, entries, keys, erasureTenant(fn, tenantId, entries));
  const byStore = [...entries, ...memories].map(({ option, kind }) => ({ option, kind, entries: null, history: null, profile: null, keys: null, episodes: null }));
  let keysDeleted = 0;
  for (const holder of holders) {
    let n;
    try {
      n = await holder.remove(u);
    } catch (error) {
      throw new MemcoreError('E_HOST', `${fn}: deleting the user's API keys failed in ${holder.option}: ${error?.message ?? error}; nothing else was erased`, { function: fn, option: holder.option, transient: false });
    }
    keysDeleted += Number.isSafeInteger(n) && n > 0 ? n : 0;
    const at = byStore.find((s) => s.option === holder.option);
    if (at) at.keys = (at.keys ?? 0) + (Number.isSafeInteger(n) && n > 0 ? n : 0);
    else byStore.push({ option: holder.option, kind: holder.kind, entries: null, history: null, profile: null, keys: Number.isSafeInteger(n) && n > 0 ? n : 0, episodes: null });
  }
  // Every entry store first: a failure there leaves the profiles, so a retry's report is complete.
  for (const [i, s] of entries.entries()) {
    const erased = await runTask((g) => g.eraseUserData(u, s.arg, undefined, undefined, o, hosts));
    byStore[i].entries = erased.entries;
    byStore[i].history = erased.history;
    byStore[i].episodes = erased.episodes;
  }
  for (const [i, s] of [...entries, ...memories].entries()) {
    const side = profileSide(s);
    if (side !== undefined) byStore[i].profile = (await runTask((g) => g.eraseUserData(u, undefined, side, s.memory ? undefined : rootFolder, o, hosts))).profile;
  }
  return {
    userId: u,
    keys: keysDeleted,
    entries: byStore.slice(0, entries.length).map((s) => s.entries),
    history: byStore.slice(0, entries.length).map((s) => s.history),
    episodes: byStore.slice(0, entries.length).map((s) => s.episodes),
    profiles: byStore.filter((s) => s.profile).map((s) => s.profile),
    stores: byStore,
  };
}

/** One entry store and one profile side at a time (export and import). */
function oneOfEach(fn, what, options, extra) {
  const picked = rightsStores(fn, options, extra);
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
  const { entry, memory, profiles, rootFolder, o, hosts } = oneOfEach(fn, 'imports into', options, ['embedder', 'embedTimeoutMs', 'log']);
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

/**
 * The one-off repair of user ids memcore now refuses (behaviour §1.1): every user id `store` holds
 * data of (`storedUserIds()`: the SQL stores, every tenant; an in-memory store lives as long as its process and needs no repair) that
 * `checkUserId` refuses, with why: `[{ tenantId, userId, reason }]`. Data stored under such an
 * id before every write checked it cannot be erased by `eraseUserData`; `eraseInvalidUserData`
 * (or `memcore doctor --fix`) erases it.
 * @example for (const { tenantId, userId } of await findInvalidUserIds(db)) await eraseInvalidUserData(userId, { entries: db, tenantId });
 */
export async function findInvalidUserIds(store) {
  const fn = 'findInvalidUserIds';
  if (!hasMethod(store, 'storedUserIds')) throw argumentError(fn, 'store', 'must be a store with storedUserIds() (a SQL store of this package: SQLite, PostgreSQL, D1)');
  const found = await store.storedUserIds();
  if (!Array.isArray(found)) throw new MemcoreError('E_HOST', `${fn}: storedUserIds() must answer an array of { tenantId, userId }`, { function: fn, transient: false });
  const out = [];
  for (const { tenantId = null, userId } of found) {
    if (typeof userId !== 'string') continue;
    try {
      invoke((g) => g.checkUserId(userId));
    } catch (error) {
      if (error?.code !== 'E_INVALID_USER_ID') throw error;
      out.push({ tenantId, userId, reason: error.message });
    }
  }
  // The default tenant first, then by tenant and user id (code-unit order): a stable listing.
  const order = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  return out.sort((a, b) => order(a.tenantId ?? '', b.tenantId ?? '') || order(a.userId, b.userId));
}

/**
 * Erase the data stored under a user id memcore refuses (found by `findInvalidUserIds`): its
 * entries and history in `options.entries` (the tenant's view when `options.tenantId` is given),
 * with the erasure's record and renames, and its API keys there and in `options.keys` — as
 * `eraseUserData` does for an id it accepts. An id the rule accepts is `E_ARGUMENT` (use
 * `eraseUserData`). Resolves to `{ userId, tenantId, keys, entries, history }`.
 * @example await eraseInvalidUserData('a/b', { entries: db });
 */
export async function eraseInvalidUserData(userId, options) {
  const fn = 'eraseInvalidUserData';
  const u = text(fn, 'userId', userId);
  if (!isPlainObjectLike(options)) throw argumentError(fn, 'options', 'must be an object like { entries, tenantId? }');
  const picked = fields(fn, 'options', options, ['entries', 'tenantId', 'keys', 'now', 'storeTimeoutMs', 'principal', 'config']);
  const tenantId = picked.tenantId === undefined || picked.tenantId === null ? null : checkTenantId(picked.tenantId, fn);
  const root = picked.entries;
  const view = tenantId === null ? root : forTenant(root, tenantId, 'entries', fn);
  const s = storeArg(fn, 'options.entries', view);
  const hosts = entryHosts(fn, { now: callback(fn, 'options.now', picked.now) });
  const o = json(fn, 'options', { storeTimeoutMs: picked.storeTimeoutMs, principal: picked.principal, config: picked.config, repair: true });
  // The id first: an id the rule accepts is refused before anything is touched.
  let accepted = true;
  try {
    invoke((g) => g.checkUserId(u));
  } catch (error) {
    if (error?.code !== 'E_INVALID_USER_ID') throw error;
    accepted = false;
  }
  if (accepted) throw argumentError(fn, 'userId', 'names an id memcore accepts: erase it with eraseUserData');
  const holders = keyStores(fn, [{ option: 'options.entries', kind: storeKind(view), store: view }], picked.keys, tenantId);
  let keys = 0;
  for (const holder of holders) {
    const n = await holder.remove(u);
    keys += Number.isSafeInteger(n) && n > 0 ? n : 0;
  }
  const report = await runTask((g) => g.eraseUserData(u, s, undefined, undefined, o, hosts));
  return { userId: u, tenantId, keys, entries: report.entries, history: report.history, episodes: report.episodes };
}

// The memory operations as REST and MCP both call them: js/api.js's functions bound to the
// handler's store and options. The principal decides only *whose* memory, never a rule.

import {
  countUserMemories,
  deleteAllUserMemories,
  deleteUserMemory,
  eraseUserData,
  exportUserData,
  getMemoryByKey,
  isProcessingRestricted,
  setProcessingRestriction,
  getVisibleMemories,
  listUserMemories,
  mergeProperties,
  searchUserMemories,
  upsertUserMemory,
} from '../api.js';

export function memoryOperations({ entries, memory, config, now, newId, storeTimeoutMs, embedder }) {
  const base = {};
  if (config !== undefined && config !== null) base.config = config;
  if (storeTimeoutMs !== undefined && storeTimeoutMs !== null) base.storeTimeoutMs = storeTimeoutMs;
  // The rights calls take only the deadline of `base` (they refuse a `config`).
  const deadline = base.storeTimeoutMs === undefined ? {} : { storeTimeoutMs: base.storeTimeoutMs };
  const hostOptions = {};
  if (now) hostOptions.now = now;
  if (newId) hostOptions.newId = newId;
  // The embedder (SPEC §8.2): searches embed their query, upserts the entry they wrote.
  const embedding = embedder === undefined || embedder === null ? {} : { embedder };
  return Object.freeze({
    hostOptions,
    list: (userId) => listUserMemories(entries, userId, base),
    visible: (query) => getVisibleMemories(entries, query, base),
    /** `mode` and `limit` as the request gave them (absent: the configuration's). */
    search: (userId, query, { mode, limit } = {}) =>
      searchUserMemories(entries, userId, query, { ...base, ...embedding, ...(mode === undefined || mode === null ? {} : { mode }), ...(limit === undefined || limit === null ? {} : { limit }) }),
    byKey: (userId, key, agentId) => getMemoryByKey(entries, userId, key, { ...base, agentId: agentId ?? undefined }),
    count: (userId) => countUserMemories(entries, userId, base),
    upsert: (request, surface) => upsertUserMemory(entries, request, { ...base, ...hostOptions, ...embedding, surface }),
    /** An admin deletes any user's entry; anyone else only their own. */
    deleteEntry: (entryId, principal) => deleteUserMemory(entries, entryId, { ...base, userId: principal.admin ? undefined : principal.userId }),
    deleteAll: (userId) => deleteAllUserMemories(entries, userId, base),
    merge: (userId, properties) => mergeProperties(entries, userId, properties, { ...base, ...hostOptions }),
    // SPEC §4.3, admin only (the routes and the tool check the principal): the entries and, with a
    // ContextMemory, the profile.
    erase: (userId) => eraseUserData(userId, memory ? { entries, memory, ...deadline } : { entries, ...deadline }),
    exportData: (userId) => exportUserData(userId, memory ? { entries, memory, ...hostOptions, ...deadline } : { entries, ...hostOptions, ...deadline }),
    restricted: (userId) => isProcessingRestricted(entries, userId, deadline),
    setRestricted: (userId, restricted) => setProcessingRestriction(entries, userId, restricted, { admin: true, ...hostOptions, ...deadline }),
  });
}

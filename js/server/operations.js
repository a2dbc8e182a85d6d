// The memory operations as REST and MCP both call them: js/api.js's functions bound to the
// handler's store and options. The principal decides only *whose* memory, never a rule.

import {
  auditLog,
  countUserMemories,
  deleteAllUserMemories,
  deleteProperties,
  deleteUserMemory,
  entryHistory,
  restoreVersion,
  eraseUserData,
  exportUserData,
  getMemoryByKey,
  isProcessingRestricted,
  setProcessingRestriction,
  getVisibleMemories,
  listUserMemories,
  mergeProperties,
  searchEpisodes,
  searchUserMemories,
  upsertUserMemory,
} from '../api.js';

export function memoryOperations({ entries, memory, config, now, newId, storeTimeoutMs, embedder, apiKeys, tenantId }) {
  const base = {};
  if (config !== undefined && config !== null) base.config = config;
  if (storeTimeoutMs !== undefined && storeTimeoutMs !== null) base.storeTimeoutMs = storeTimeoutMs;
  // `isProcessingRestricted` takes only the deadline of `base`; the other rights calls also the
  // configuration (its `history` settings).
  const deadline = base.storeTimeoutMs === undefined ? {} : { storeTimeoutMs: base.storeTimeoutMs };
  const rights = base;
  const hostOptions = {};
  if (now) hostOptions.now = now;
  if (newId) hostOptions.newId = newId;
  // The embedder (behaviour §8.2): searches embed their query, upserts the entry they wrote.
  const embedding = embedder === undefined || embedder === null ? {} : { embedder };
  // A read of the past (behaviour §8.3): `asOf` as the request gave it (absent: now).
  const past = (asOf) => (asOf === undefined || asOf === null ? {} : { asOf });
  // Who writes: the principal is the author of the change in the entries' history.
  const by = (principal) => (principal ? { principal: principal.userId } : {});
  return Object.freeze({
    hostOptions,
    list: (userId, asOf) => listUserMemories(entries, userId, { ...base, ...past(asOf) }),
    /** `query.asOf`: the state then. */
    visible: ({ asOf, ...query }) => getVisibleMemories(entries, query, { ...base, ...past(asOf) }),
    /** `mode`, `limit` and `asOf` as the request gave them (absent: the configuration's, now). */
    search: (userId, query, { mode, limit, asOf } = {}) =>
      searchUserMemories(entries, userId, query, { ...base, ...embedding, ...(mode === undefined || mode === null ? {} : { mode }), ...(limit === undefined || limit === null ? {} : { limit }), ...past(asOf) }),
    /** The user's episodes for a query (behaviour §8.6): `mode`, `limit`, `conversationId`, `asOf` as given. */
    episodes: (userId, query, { mode, limit, conversationId, asOf } = {}) => {
      const given = Object.entries({ mode, limit, conversationId, asOf }).filter(([, v]) => v !== undefined && v !== null);
      return searchEpisodes(entries, userId, query, { ...base, ...embedding, ...Object.fromEntries(given) });
    },
    byKey: (userId, key, agentId, asOf) => getMemoryByKey(entries, userId, key, { ...base, agentId: agentId ?? undefined, ...past(asOf) }),
    count: (userId, asOf) => countUserMemories(entries, userId, { ...base, ...past(asOf) }),
    /** The history of an entry or a key: `{ key }` or `{ entryId }`. */
    history: (userId, { key, entryId }) =>
      entryHistory({ store: entries, userId, ...(key === undefined || key === null ? {} : { key }), ...(entryId === undefined || entryId === null ? {} : { entryId }), ...base }),
    /** Restore a version (REST `POST …/{userId}/versions/{versionId}/restore`). */
    restore: (userId, versionId, principal) => restoreVersion({ store: entries, userId, versionId, ...base, ...hostOptions, ...by(principal) }),
    upsert: (request, surface, principal) => upsertUserMemory(entries, request, { ...base, ...hostOptions, ...embedding, surface, ...by(principal) }),
    /** An admin deletes any user's entry; anyone else only their own. */
    deleteEntry: (entryId, principal) => deleteUserMemory(entries, entryId, { ...base, ...hostOptions, ...by(principal), userId: principal.admin ? undefined : principal.userId }),
    deleteAll: (userId, principal) => deleteAllUserMemories(entries, userId, { ...base, ...hostOptions, ...by(principal) }),
    deleteProperties: (userId, principal) => deleteProperties(entries, userId, { ...base, ...hostOptions, ...by(principal) }),
    merge: (userId, properties, principal) => mergeProperties(entries, userId, properties, { ...base, ...hostOptions, ...by(principal) }),
    // behaviour §4.3, admin only (the routes and the tool check the principal): the entries and, with a
    // ContextMemory, the profile.
    // The principal is the audit record's actor; the configuration's `history` applies.
    // Erasure ends access (behaviour §8.3): the user's API keys of this tenant go first.
    erase: (userId, principal) => eraseUserData(userId, { ...(memory ? { entries, memory } : { entries }), ...rights, ...(now ? { now } : {}), ...by(principal), ...(apiKeys ? { keys: apiKeys, tenantId: tenantId ?? null } : {}) }),
    exportData: (userId, principal) => exportUserData(userId, { ...(memory ? { entries, memory } : { entries }), ...rights, ...(now ? { now } : {}), ...by(principal) }),
    restricted: (userId) => isProcessingRestricted(entries, userId, deadline),
    setRestricted: (userId, restricted, principal) => setProcessingRestriction(entries, userId, restricted, { admin: true, ...hostOptions, ...rights, ...by(principal) }),
    /** The audit log (admin routes only): `{ userId?, since?, afterSeq?, limit? }`. */
    audit: (query) => auditLog({ store: entries, ...query, ...deadline }),
  });
}

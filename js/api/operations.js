// The memory operations of the HTTP and MCP surfaces (behaviour §2.8). Every rule is the core's:
// `memcore/server` and any host route call these, so REST and MCP cannot drift apart.
import { argumentError, fields, json, optionalText, runTask, text } from '../wire.js';
import { entryOptions, isPlainObjectLike, storeArg } from './arguments.js';

/**
 * `{ config?, storeTimeoutMs?, surface?, mode?, limit?, embedder? }` as JSON, with `now`,
 * `newId`, `log` and the embedder as host callbacks.
 */
function memoryOptions(fn, options, extra = []) {
  if (options !== undefined && options !== null && !isPlainObjectLike(options)) throw argumentError(fn, 'options', 'must be an object');
  return entryOptions(fn, options, false, extra);
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
/**
 * The history of one of the user's entries (`entryId`) or of a key (`key`): `{ current, versions }`,
 * the versions newest first.
 * @example const { current, versions } = await entryHistory({ store, userId: 'u1', key: 'city' });
 */
export async function entryHistory(request) {
  const fn = 'entryHistory';
  if (!isPlainObjectLike(request)) throw argumentError(fn, 'request', 'must be an object like { store, userId, key }');
  const { store, userId, entryId, key } = fields(fn, 'request', request, ['store', 'userId', 'entryId', 'key']);
  const s = storeArg(fn, 'request.store', store);
  const u = text(fn, 'request.userId', userId);
  const e = optionalText(fn, 'request.entryId', entryId);
  const k = optionalText(fn, 'request.key', key);
  const [o, hosts] = memoryOptions(fn, request, ['store', 'userId', 'entryId', 'key']);
  const r = JSON.stringify({ userId: u, ...(e === undefined || e === null ? {} : { entryId: e }), ...(k === undefined || k === null ? {} : { key: k }) });
  return runTask((g) => g.entryHistory(s, r, o, hosts));
}
/**
 * The audit log (administrators): the records of `userId` (or every user) from `since`, after
 * `afterSeq`, at most `limit`, in `seq` order.
 * @example const records = await auditLog({ store, userId: 'u1', limit: 50 });
 */
export async function auditLog(request) {
  const fn = 'auditLog';
  if (!isPlainObjectLike(request)) throw argumentError(fn, 'request', 'must be an object like { store, userId?, since?, limit? }');
  const { store, userId, since, afterSeq, limit } = fields(fn, 'request', request, ['store', 'userId', 'since', 'afterSeq', 'limit']);
  const s = storeArg(fn, 'request.store', store);
  const u = optionalText(fn, 'request.userId', userId);
  const r = json(fn, 'request', { userId: u, since, afterSeq, limit });
  const [o, hosts] = memoryOptions(fn, request, ['store', 'userId', 'since', 'afterSeq', 'limit']);
  return runTask((g) => g.auditLog(s, r, o, hosts));
}
/**
 * Give an entry one of its past states again: `{ store, userId, versionId }` (a version's `id`
 * from `entryHistory`). The replaced state is kept as a version (reason `restored`) and the
 * restore is an audit record. Resolves to `{ outcome: 'restored' | 'unchanged' | 'notFound' |
 * 'conflict' | 'full' | 'restricted', … }`.
 * @example const r = await restoreVersion({ store, userId: 'u1', versionId: versions[0].id });
 */
export async function restoreVersion(request) {
  const fn = 'restoreVersion';
  if (!isPlainObjectLike(request)) throw argumentError(fn, 'request', 'must be an object like { store, userId, versionId }');
  const { store, userId, versionId } = fields(fn, 'request', request, ['store', 'userId', 'versionId']);
  const s = storeArg(fn, 'request.store', store);
  const u = text(fn, 'request.userId', userId);
  const v = text(fn, 'request.versionId', versionId);
  const [o, hosts] = memoryOptions(fn, request, ['store', 'userId', 'versionId']);
  return runTask((g) => g.restoreVersion(s, JSON.stringify({ userId: u, versionId: v }), o, hosts));
}

// API keys of the SQL stores (schema 8): the key store contract of memcore/server, as functions
// of the store's context (storage.js).
import { MemcoreError } from '../../errors.js';
import { checkTenantId } from '../../tenants.js';
import { argument, checkString } from './entry-rows.js';

/**
 * Delete the API keys of `userId` (an erasure ends the user's access): in `options.tenantId`
 * when given (null: the default tenant; keys are the database's, as for `listApiKeys`), else in
 * this store's own tenant. How many were deleted.
 */
export async function deleteApiKeysOf(ctx, userId, options) {
  checkString(userId, 'deleteApiKeysOf', 'userId');
  const given = options?.tenantId;
  const tenant = given === undefined ? ctx.tenant : given === null ? null : checkTenantId(given, 'deleteApiKeysOf');
  const result = await ctx.run('deleteApiKeysOf', () => ctx.driver.run(ctx.dialect.SQL.deleteApiKeysOfUser, [tenant ?? '', userId]));
  return result.changes;
}

/**
 * Store a new API key (memcore/server `apiKeys`): `{ id, hash, tenantId, userId, record }`. Keys
 * are the database's, not a tenant view's: every view reads and writes the same keys, each
 * carrying its own `tenantId` (null: the default tenant).
 */
export async function putApiKey(ctx, row) {
  const { id, hash, tenantId, userId, record } = checkKeyRow(row);
  await ctx.run('putApiKey', () => ctx.driver.run(ctx.dialect.SQL.putApiKey, [id, hash, tenantId ?? '', userId, JSON.stringify(record)]));
}

/** The stored API key `id` (its digest, never a secret), or null. */
export async function getApiKey(ctx, id) {
  if (typeof id !== 'string') throw new MemcoreError('E_ARGUMENT', 'getApiKey: id must be a string', { function: 'getApiKey', argument: 'id' });
  const row = await ctx.run('getApiKey', () => ctx.driver.first(ctx.dialect.SQL.getApiKey, [id]));
  return row ? keyRow(row) : null;
}

/** The API keys of `tenantId` (null: the default tenant), of `userId` when given. */
export async function listApiKeys(ctx, { tenantId = null, userId } = {}) {
  const { SQL } = ctx.dialect;
  const [sql, params] = userId === undefined ? [SQL.listApiKeys, [tenantId ?? '']] : [SQL.listApiKeysOfUser, [tenantId ?? '', userId]];
  return (await ctx.run('listApiKeys', () => ctx.driver.all(sql, params))).map(keyRow);
}

/** Revoke the API key `id` at `at`: true when it was live. */
export async function revokeApiKey(ctx, id, at) {
  const result = await ctx.run('revokeApiKey', () => ctx.driver.run(ctx.dialect.SQL.revokeApiKey, [at, id]));
  return result.changes > 0;
}

/** An API key row as putApiKey takes it (memcore/server checked its parts). */
function checkKeyRow(row) {
  const ok = row !== null && typeof row === 'object' && typeof row.id === 'string' && /^[0-9a-f]{64}$/.test(row.hash ?? '')
    && (row.tenantId === null || row.tenantId === undefined || typeof row.tenantId === 'string') && typeof row.userId === 'string' && row.record !== null && typeof row.record === 'object';
  if (!ok) throw new MemcoreError('E_ARGUMENT', 'putApiKey: row must be { id, hash (SHA-256 hex), tenantId, userId, record }', { function: 'putApiKey', argument: 'row' });
  return row;
}

/** An API key row as the key store contract answers it. */
function keyRow(row) {
  return { id: row.id, hash: row.hash, tenantId: row.tenant_id === '' ? null : row.tenant_id, userId: row.user_id, record: JSON.parse(row.body), revokedAt: row.revoked_at ?? null };
}

// API keys for createMemoryHandler (behaviour §8.5): created with scopes for one user of one tenant,
// shown once, stored as a SHA-256 digest of their secret (the secret is 256 random bits, so a
// fast digest is as safe as a slow one and costs nothing per request), revocable at once (every
// request reads the key's row), listed by administrators without their secret.
import { HttpFailure } from './http.js';
import { bearerToken, fromCredential, invalidToken } from './credentials.js';
import { checkUserId } from '../api/editing.js';
import { checkScopes, SCOPES } from './scopes.js';
import { checkTenantId } from '../tenants.js';
import { MemcoreError } from '../errors.js';

/** The prefix of every memcore API key: `mk_<16 hex id>_<43 base64url secret>`. */
export const API_KEY_PREFIX = 'mk_';
const KEY_FORMAT = /^mk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
const STORE_METHODS = ['putApiKey', 'getApiKey', 'listApiKeys', 'revokeApiKey'];

function misuse(fn, message) {
  return new MemcoreError('E_ARGUMENT', `${fn}: ${message}`, { function: fn });
}

const nonEmpty = (v) => typeof v === 'string' && v.trim() !== '' && v.length <= 512;
const optional = (v) => v === undefined || v === null || nonEmpty(v);

function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function base64url(bytes) {
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

async function digest(secret) {
  return hex(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(secret))));
}

/** Equal strings, compared in time independent of where they differ. */
function sameText(a, b) {
  if (typeof a !== 'string' || a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

function isoOf(value, fn, name) {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) throw misuse(fn, `\`${name}\` must be a time (a Date, milliseconds or an ISO string)`);
  return date.toISOString();
}

/**
 * The API keys of a handler over a key store (`InMemoryApiKeyStore`, or a SQL store of this
 * package: SQLite, PostgreSQL, D1 — the keys of every tenant in one table). `authenticate`
 * accepts `Authorization: Bearer mk_…` (anything else: no principal, so it chains with
 * bearerJwt); `create`, `list`, `revoke` manage them (and the handler's `/admin/keys` routes).
 * @example const keys = apiKeys({ store: db }); const { key } = await keys.create({ userId: 'u1', scopes: ['memory:read'] });
 */
export function apiKeys(options) {
  if (options === null || typeof options !== 'object') throw misuse('apiKeys', 'options must be an object like { store }');
  const { store, now } = options;
  if (store === null || typeof store !== 'object' || STORE_METHODS.some((m) => typeof store[m] !== 'function')) {
    throw misuse('apiKeys', `\`store\` must be a key store with ${STORE_METHODS.join(', ')} (InMemoryApiKeyStore, or openSqlite/openPostgres/openD1)`);
  }
  if (now !== undefined && typeof now !== 'function') throw misuse('apiKeys', '`now` must be a function returning the time');
  const clock = () => (now ? isoOf(now(), 'apiKeys', 'now()') : new Date().toISOString());

  const keys = {
    /** Create a key: `{ key, record }` — `key` is the only time the secret is shown. */
    async create(request) {
      if (request === null || typeof request !== 'object') throw misuse('apiKeys.create', 'the request must be { userId, scopes, tenantId?, agentId?, groupId?, name?, expiresAt? }');
      const { userId, tenantId, agentId, groupId, name, expiresAt } = request;
      if (!nonEmpty(userId)) throw misuse('apiKeys.create', '`userId` must be a non-empty string');
      // The one user-id rule: a key for an id memcore refuses could write data no erasure reaches.
      checkUserId(userId);
      for (const [field, value] of [['agentId', agentId], ['groupId', groupId], ['name', name]]) {
        if (!optional(value)) throw misuse('apiKeys.create', `\`${field}\` must be a non-empty string (at most 512 characters) when given`);
      }
      if (tenantId !== undefined && tenantId !== null) checkTenantId(tenantId, 'apiKeys.create');
      const scopes = checkScopes(request.scopes);
      if (!scopes || scopes.length === 0) throw misuse('apiKeys.create', `\`scopes\` must be a non-empty list of ${SCOPES.join(', ')}`);
      const id = hex(crypto.getRandomValues(new Uint8Array(8)));
      const secret = base64url(crypto.getRandomValues(new Uint8Array(32)));
      const record = {
        id,
        tenantId: tenantId ?? null,
        userId,
        ...(agentId ? { agentId } : {}),
        ...(groupId ? { groupId } : {}),
        scopes: [...scopes],
        ...(name ? { name } : {}),
        createdAt: clock(),
        expiresAt: expiresAt === undefined || expiresAt === null ? null : isoOf(expiresAt, 'apiKeys.create', 'expiresAt'),
        revokedAt: null,
      };
      await store.putApiKey({ id, hash: await digest(secret), tenantId: record.tenantId, userId, record });
      return { key: `${API_KEY_PREFIX}${id}_${secret}`, record };
    },
    /** The keys of a tenant (null: the default tenant), of one user when `userId` is given; never a secret. */
    async list({ tenantId = null, userId } = {}) {
      if (tenantId !== null) checkTenantId(tenantId, 'apiKeys.list');
      if (userId !== undefined && !nonEmpty(userId)) throw misuse('apiKeys.list', '`userId` must be a non-empty string when given');
      const rows = await store.listApiKeys({ tenantId, ...(userId === undefined ? {} : { userId }) });
      return rows.map(publicRecord).sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1));
    },
    /** Revoke a key of `tenantId` at once: true when it was live. */
    async revoke(id, { tenantId = null } = {}) {
      if (typeof id !== 'string' || !/^[0-9a-f]{16}$/.test(id)) return false;
      if (tenantId !== null) checkTenantId(tenantId, 'apiKeys.revoke');
      const row = await store.getApiKey(id);
      if (!row || (row.tenantId ?? null) !== tenantId) return false;
      return (await store.revokeApiKey(id, clock())) === true;
    },
    /**
     * Delete every key of `userId` in `tenantId` (an erasure ends the user's access; pass this
     * object as `eraseUserData`'s `keys`): how many were deleted.
     */
    async deleteApiKeysOf(userId, { tenantId = null } = {}) {
      if (!nonEmpty(userId)) throw misuse('apiKeys.deleteApiKeysOf', '`userId` must be a non-empty string');
      if (tenantId !== null) checkTenantId(tenantId, 'apiKeys.deleteApiKeysOf');
      if (typeof store.deleteApiKeysOf !== 'function') throw misuse('apiKeys.deleteApiKeysOf', 'the key store has no deleteApiKeysOf(userId, { tenantId }): use InMemoryApiKeyStore or a SQL store of this package');
      return store.deleteApiKeysOf(userId, { tenantId });
    },
    /** The principal of `Authorization: Bearer mk_…`; null for no key; 401 for a key that is not live. */
    async authenticate(request) {
      const token = bearerToken(request);
      if (token === null || !token.startsWith(API_KEY_PREFIX)) return null;
      const match = KEY_FORMAT.exec(token);
      if (!match) throw invalidToken('the API key is malformed');
      const row = await store.getApiKey(match[1]);
      const hash = await digest(match[2]);
      if (!row || !sameText(row.hash, hash)) throw invalidToken('the API key is not known');
      const record = publicRecord(row);
      if (record.revokedAt !== null) throw invalidToken('the API key was revoked');
      if (record.expiresAt !== null && record.expiresAt <= clock()) throw invalidToken('the API key has expired');
      return fromCredential({
        ...(record.tenantId === null ? {} : { tenantId: record.tenantId }),
        userId: record.userId,
        ...(record.agentId ? { agentId: record.agentId } : {}),
        ...(record.groupId ? { groupId: record.groupId } : {}),
        scopes: record.scopes,
      });
    },
  };
  return Object.freeze(keys);
}

function publicRecord(row) {
  const record = typeof row.record === 'string' ? JSON.parse(row.record) : row.record;
  return { ...record, tenantId: record.tenantId ?? null, revokedAt: row.revokedAt ?? record.revokedAt ?? null };
}

/**
 * The key store in memory (a test, a single process): the same contract as the SQL stores'.
 * @example const keys = apiKeys({ store: new InMemoryApiKeyStore() });
 */
export class InMemoryApiKeyStore {
  #rows = new Map();

  async putApiKey(row) {
    if (this.#rows.has(row.id)) throw new HttpFailure(409, 'an API key with this id exists', { code: 'E_CONFLICT' });
    this.#rows.set(row.id, structuredClone({ ...row, revokedAt: null }));
  }

  async getApiKey(id) {
    const row = this.#rows.get(id);
    return row ? structuredClone(row) : null;
  }

  async listApiKeys({ tenantId = null, userId } = {}) {
    return [...this.#rows.values()].filter((r) => (r.tenantId ?? null) === tenantId && (userId === undefined || r.userId === userId)).map((r) => structuredClone(r));
  }

  async revokeApiKey(id, at) {
    const row = this.#rows.get(id);
    if (!row || row.revokedAt !== null) return false;
    row.revokedAt = at;
    return true;
  }

  /** Delete every key of `userId` in `tenantId` (null: the default tenant); how many went. */
  async deleteApiKeysOf(userId, { tenantId = null } = {}) {
    let n = 0;
    for (const [id, row] of this.#rows) {
      if ((row.tenantId ?? null) === tenantId && row.userId === userId) {
        this.#rows.delete(id);
        n += 1;
      }
    }
    return n;
  }
}

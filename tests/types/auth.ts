// The typings of memcore/server's authentication and limits (issue 24 parts 2 and 3), compiled with --strict.
import { bearerJwt, defaultJwtPrincipal } from 'memcore/server/jwt';
import { apiKeys, createMemoryHandler, InMemoryApiKeyStore, HTTP_ERROR_CODES, DEFAULT_BODY_TIMEOUT_MS, DEFAULT_MAX_CONCURRENT, MAX_TRACKED_PRINCIPALS, SCOPES, TOOL_SCOPES, API_KEY_PREFIX, type ApiKeyRecord, type Principal, type Scope } from 'memcore/server';
import { openSqlite } from 'memcore/adapters/sqlite';
import { InMemoryEntryStore } from 'memcore';

export async function auth(): Promise<void> {
  const jwt = bearerJwt({ issuer: 'https://auth.example.com/', audience: 'memcore', jwks: 'https://auth.example.com/.well-known/jwks.json' });
  const secret = bearerJwt({ issuer: ['a', 'b'], audience: 'memcore', key: new Uint8Array(32), algorithms: ['HS256'], now: () => '2026-01-01T00:00:00Z', clockToleranceSeconds: 5 });
  const mapped = bearerJwt({
    issuer: 'i', audience: 'a', jwks: new URL('https://x.test/jwks'), jwksCooldownMs: 0,
    toPrincipal: (payload) => (typeof payload.sub === 'string' ? { userId: payload.sub, tenantId: String(payload.org), scopes: ['memory:read'] } : null),
  });
  const db = await openSqlite('memcore.db');
  const keys = apiKeys({ store: db });
  const memoryKeys = apiKeys({ store: new InMemoryApiKeyStore(), now: () => Date.now() });
  const { key, record } = await keys.create({ userId: 'u1', scopes: ['memory:read', 'memory:write'], tenantId: 'acme', name: 'laptop', expiresAt: null });
  const listed: ApiKeyRecord[] = await memoryKeys.list({ tenantId: 'acme', userId: 'u1' });
  const revoked: boolean = await keys.revoke(record.id, { tenantId: 'acme' });
  const scope: Scope = SCOPES[0];
  const toolScope: Scope | undefined = TOOL_SCOPES.rememberFact;
  const principal: Principal | null = defaultJwtPrincipal({ sub: 'u1', scope: 'memory:read' });
  const scoped: Principal = { userId: 'u1', scopes: ['admin'] };
  createMemoryHandler({
    entries: new InMemoryEntryStore(),
    apiKeys: keys,
    authenticate: async (request) => (await keys.authenticate(request)) ?? (await jwt(request)) ?? (await secret(request)) ?? (await mapped(request)),
  });
  createMemoryHandler({
    entries: new InMemoryEntryStore(),
    authenticate: () => ({ userId: 'u1' }),
    limits: { requestsPerMinute: 600, writesPerMinute: 60, burst: 10, byScope: { admin: { requestsPerMinute: 6000 } }, maxConcurrent: 8, bodyTimeoutMs: 5_000, now: () => Date.now(), maxTrackedPrincipals: 100 },
  });
  // @ts-expect-error: not a scope
  createMemoryHandler({ entries: new InMemoryEntryStore(), authenticate: () => null, limits: { byScope: { root: { requestsPerMinute: 1 } } } });
  const codes: 'E_RATE_LIMITED' = HTTP_ERROR_CODES[429];
  void [codes, DEFAULT_BODY_TIMEOUT_MS, DEFAULT_MAX_CONCURRENT, MAX_TRACKED_PRINCIPALS];
  // @ts-expect-error: an unknown scope
  await keys.create({ userId: 'u1', scopes: ['root'] });
  // @ts-expect-error: issuer is required
  bearerJwt({ audience: 'a', key: new Uint8Array(32) });
  void [key, listed, revoked, scope, toolScope, principal, scoped, API_KEY_PREFIX];
}

// The typings of memcore/server's authentication (issue 24 part 2), compiled with --strict.
import { bearerJwt, defaultJwtPrincipal } from 'memcore/server/jwt';
import { apiKeys, createMemoryHandler, InMemoryApiKeyStore, SCOPES, TOOL_SCOPES, API_KEY_PREFIX, type ApiKeyRecord, type Principal, type Scope } from 'memcore/server';
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
  // @ts-expect-error: an unknown scope
  await keys.create({ userId: 'u1', scopes: ['root'] });
  // @ts-expect-error: issuer is required
  bearerJwt({ audience: 'a', key: new Uint8Array(32) });
  void [key, listed, revoked, scope, toolScope, principal, scoped, API_KEY_PREFIX];
}

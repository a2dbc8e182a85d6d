// Authentication and scopes of memcore/server (issue 24 part 2, SPEC §8.5) through the installed
// package: bearerJwt (jose) with a shared secret and with a JWKS served on 127.0.0.1 whose key is
// rotated; API keys on every key store (memory, SQLite on a file, PostgreSQL, D1 — each started
// for real) created with scopes, shown once, stored as a digest, revoked at once, listed by
// administrators; the five scopes enforced on every REST route and every MCP tool of both
// endpoints (official SDK client over Streamable HTTP), a missing scope named in the 403.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import * as m from 'memcore';
import {
  API_KEY_PREFIX, InMemoryApiKeyStore, SCOPES, TOOL_SCOPES, AGENT_MCP_TOOL_NAMES, MCP_TOOL_NAMES,
  apiKeys, createMemoryHandler, toNodeListener,
} from 'memcore/server';
import { bearerJwt, defaultJwtPrincipal } from 'memcore/server/jwt';
import { BACKENDS } from '../support/sql-backends.mjs';

const NOW = '2026-05-10T12:00:00.000Z';
const NOW_S = Date.parse(NOW) / 1000;
const ISSUER = 'https://auth.test/';
const AUDIENCE = 'memcore';
const SECRET = new TextEncoder().encode('a-shared-secret-of-at-least-32-bytes!!');
const H6 = ['Identity', 'Communication Preferences', 'Work Context', 'Skills & Expertise', 'Recent Topics', 'Follow-ups'];
const profileBody = (line) => '# User Memory\n\n' + H6.map((h, i) => `## ${h}\n${i === 0 ? line : '_(empty)_'}`).join('\n\n') + '\n';
const READ_ALL = ['memory:read', 'profile:read'];

function request(headers = {}) {
  return new Request('http://127.0.0.1/usermemorystore/memories/u1', { headers });
}

async function hs256(claims, { alg = 'HS256', key = SECRET, iat = NOW_S, exp = NOW_S + 600, nbf, iss = ISSUER, aud = AUDIENCE } = {}) {
  let jwt = new SignJWT(claims).setProtectedHeader({ alg }).setIssuedAt(iat);
  if (exp !== null) jwt = jwt.setExpirationTime(exp);
  if (nbf !== undefined) jwt = jwt.setNotBefore(nbf);
  if (iss !== null) jwt = jwt.setIssuer(iss);
  if (aud !== null) jwt = jwt.setAudience(aud);
  return jwt.sign(key);
}

const b64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The outcome of `authenticate` as the handler would answer it: a principal, or the failure's status and message. */
async function outcome(authenticate, token) {
  const handler = createMemoryHandler({ entries: new m.InMemoryEntryStore(), authenticate });
  const response = await handler(request(token === undefined ? {} : { authorization: `Bearer ${token}` }));
  return { status: response.status, body: await response.json(), challenge: response.headers.get('www-authenticate') };
}

describe('bearerJwt with a shared secret', () => {
  const authenticate = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, key: SECRET, now: () => NOW });

  test('a valid token is its principal: sub, tenant, agent, group and the memcore scopes of `scope`', async () => {
    const token = await hs256({ sub: 'u1', tenant_id: 'acme', agent_id: 'bot', scope: 'openid memory:read memory:write unknown' });
    const principal = await authenticate(request({ authorization: `Bearer ${token}` }));
    assert.deepEqual(principal, { userId: 'u1', scopes: ['memory:read', 'memory:write'], tenantId: 'acme', agentId: 'bot' });
    assert.deepEqual(defaultJwtPrincipal({ sub: 'u2', scp: ['admin', 'x'] }), { userId: 'u2', scopes: ['admin'] });
    assert.equal(defaultJwtPrincipal({ scope: 'admin' }), null);
    const served = await outcome(authenticate, await hs256({ sub: 'u1', scope: 'memory:read' }));
    assert.equal(served.status, 200, JSON.stringify(served.body));
    assert.deepEqual(served.body, { entries: [] });
  });

  test('no header or another scheme: 401 authentication required', async () => {
    assert.equal(await authenticate(request()), null);
    assert.equal(await authenticate(request({ authorization: 'Basic dTE6cHc=' })), null);
    const none = await outcome(authenticate, undefined);
    assert.equal(none.status, 401);
    assert.equal(none.body.error.code, 'E_UNAUTHENTICATED');
  });

  const refusals = [
    ['expired', () => hs256({ sub: 'u1', scope: 'memory:read' }, { iat: NOW_S - 7200, exp: NOW_S - 3600 }), 'the token has expired'],
    ['not yet valid', () => hs256({ sub: 'u1', scope: 'memory:read' }, { nbf: NOW_S + 3600 }), 'the token is not valid yet'],
    ['wrong issuer', () => hs256({ sub: 'u1' }, { iss: 'https://evil.test/' }), 'the issuer is not the expected one'],
    ['no issuer', () => hs256({ sub: 'u1' }, { iss: null }), 'the issuer is not the expected one'],
    ['wrong audience', () => hs256({ sub: 'u1' }, { aud: 'another-api' }), 'the audience is not the expected one'],
    ['wrong key', () => hs256({ sub: 'u1' }, { key: new TextEncoder().encode('another-secret-of-at-least-32-bytes!!!') }), 'the signature does not verify'],
    ['alg none', async () => `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'u1', iss: ISSUER, aud: AUDIENCE, exp: NOW_S + 600, scope: 'admin' })}.`, null],
    ['alg none with a signature', async () => `${b64({ alg: 'none' })}.${b64({ sub: 'u1', iss: ISSUER, aud: AUDIENCE, scope: 'admin' })}.c2ln`, null],
    ['an algorithm not allowed', () => hs256({ sub: 'u1' }, { alg: 'HS384' }), null],
    ['malformed', async () => 'not.a.jwt', 'the token is malformed'],
    ['no subject', () => hs256({ scope: 'admin' }), 'the token names no user'],
  ];
  for (const [name, make, reason] of refusals) {
    test(`${name}: 401 invalid token, with the reason, never a principal`, async () => {
      const strict = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, key: SECRET, algorithms: ['HS256'], now: () => NOW });
      const token = await make();
      const got = await outcome(strict, token);
      assert.equal(got.status, 401, JSON.stringify(got.body));
      assert.equal(got.body.error.code, 'E_UNAUTHENTICATED');
      assert.match(got.body.error.message, /^invalid token: /);
      if (reason) assert.equal(got.body.error.message, `invalid token: ${reason}`);
      assert.match(got.challenge, /^Bearer error="invalid_token"/);
      assert.ok(!JSON.stringify(got.body).includes(token), 'the token is not echoed');
    });
  }

  test('clock tolerance: a token expired 20 s ago passes with 30 s of leeway, not with 10 s', async () => {
    const token = await hs256({ sub: 'u1', scope: 'memory:read' }, { iat: NOW_S - 600, exp: NOW_S - 20 });
    assert.equal((await outcome(bearerJwt({ issuer: ISSUER, audience: AUDIENCE, key: SECRET, now: () => NOW, clockToleranceSeconds: 30 }), token)).status, 200);
    assert.equal((await outcome(bearerJwt({ issuer: ISSUER, audience: AUDIENCE, key: SECRET, now: () => NOW, clockToleranceSeconds: 10 }), token)).status, 401);
  });

  test('toPrincipal maps other claims; null is 401; a bad principal is 500 E_HOST', async () => {
    const mapped = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, key: SECRET, now: () => NOW, toPrincipal: (p) => (p.org ? { userId: p.sub, tenantId: p.org, scopes: ['memory:read'] } : null) });
    assert.deepEqual(await mapped(request({ authorization: `Bearer ${await hs256({ sub: 'u1', org: 'globex' })}` })), { userId: 'u1', tenantId: 'globex', scopes: ['memory:read'] });
    assert.equal((await outcome(mapped, await hs256({ sub: 'u1' }))).status, 401);
    const bad = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, key: SECRET, now: () => NOW, toPrincipal: () => ({ userId: 'u1', scopes: ['superuser'] }) });
    const got = await outcome(bad, await hs256({ sub: 'u1' }));
    assert.equal(got.status, 500);
    assert.equal(got.body.error.code, 'E_HOST');
  });

  test('bad options are MemcoreErrors (E_ARGUMENT) at once', () => {
    const bad = [
      undefined, null, 'x', {},
      { issuer: ISSUER, audience: AUDIENCE },
      { issuer: ISSUER, audience: AUDIENCE, key: SECRET, jwks: 'https://x.test/jwks' },
      { audience: AUDIENCE, key: SECRET },
      { issuer: ISSUER, key: SECRET },
      { issuer: '', audience: AUDIENCE, key: SECRET },
      { issuer: [], audience: AUDIENCE, key: SECRET },
      { issuer: ISSUER, audience: AUDIENCE, key: 'a string secret' },
      { issuer: ISSUER, audience: AUDIENCE, jwks: 42 },
      { issuer: ISSUER, audience: AUDIENCE, key: SECRET, algorithms: ['none'] },
      { issuer: ISSUER, audience: AUDIENCE, key: SECRET, algorithms: [] },
      { issuer: ISSUER, audience: AUDIENCE, key: SECRET, toPrincipal: 'sub' },
      { issuer: ISSUER, audience: AUDIENCE, key: SECRET, clockToleranceSeconds: -1 },
      { issuer: ISSUER, audience: AUDIENCE, key: SECRET, jwksCooldownMs: Number.NaN },
      { issuer: ISSUER, audience: AUDIENCE, key: SECRET, now: NOW },
    ];
    for (const options of bad) {
      assert.throws(() => bearerJwt(options), (e) => e instanceof m.MemcoreError && e.code === 'E_ARGUMENT', JSON.stringify(options));
    }
  });
});

describe('bearerJwt with a JWKS on 127.0.0.1, key rotated', () => {
  let server;
  let url;
  let keys = [];
  let fetches = 0;
  before(async () => {
    server = http.createServer((req, res) => {
      fetches += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys }));
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${server.address().port}/.well-known/jwks.json`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  test('a token of the current key passes; after rotation the new key passes and the retired one is refused', async () => {
    const a = await generateKeyPair('ES256', { extractable: true });
    const b = await generateKeyPair('ES256', { extractable: true });
    const publicJwk = async (pair, kid) => ({ ...(await exportJWK(pair.publicKey)), kid, alg: 'ES256', use: 'sig' });
    const sign = (pair, kid, claims = { sub: 'u1', scope: 'memory:read' }) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid }).setIssuedAt(NOW_S).setExpirationTime(NOW_S + 600).setIssuer(ISSUER).setAudience(AUDIENCE).sign(pair.privateKey);
    keys = [await publicJwk(a, 'key-a')];
    const authenticate = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: url, now: () => NOW, jwksCooldownMs: 0 });
    assert.equal((await outcome(authenticate, await sign(a, 'key-a'))).status, 200);
    assert.equal((await outcome(authenticate, await sign(a, 'key-a'))).status, 200);
    assert.equal(fetches, 1, 'the key set is fetched once and cached');
    // The issuer rotates: key-b replaces key-a.
    keys = [await publicJwk(b, 'key-b')];
    assert.equal((await outcome(authenticate, await sign(b, 'key-b'))).status, 200, 'an unknown kid refetches the set');
    assert.equal(fetches, 2);
    const retired = await outcome(authenticate, await sign(a, 'key-a'));
    assert.equal(retired.status, 401);
    assert.equal(retired.body.error.message, 'invalid token: no key of the issuer matches the token');
    // A token signed by another key under the current kid fails its signature.
    const forged = await outcome(authenticate, await sign(a, 'key-b'));
    assert.equal(forged.status, 401);
    assert.equal(forged.body.error.message, 'invalid token: the signature does not verify');
    // The public key used as an HMAC secret (algorithm confusion) is refused.
    const confused = await hs256({ sub: 'u1', scope: 'admin' }, { alg: 'HS256', key: new TextEncoder().encode(JSON.stringify(keys[0])) });
    assert.equal((await outcome(authenticate, confused)).status, 401);
  });

  test('a JWKS object works without a fetch; an unreachable JWKS is 500 E_HOST, not a principal', async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k', alg: 'ES256' };
    const token = await new SignJWT({ sub: 'u1', scope: 'memory:read' }).setProtectedHeader({ alg: 'ES256', kid: 'k' }).setIssuer(ISSUER).setAudience(AUDIENCE).setExpirationTime(NOW_S + 60).sign(pair.privateKey);
    assert.equal((await outcome(bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: { keys: [jwk] }, now: () => NOW }), token)).status, 200);
    assert.equal((await outcome(bearerJwt({ issuer: ISSUER, audience: AUDIENCE, key: jwk, now: () => NOW }), token)).status, 200);
    const closed = await new Promise((resolve) => {
      const s = http.createServer();
      s.listen(0, '127.0.0.1', () => {
        const port = s.address().port;
        s.close(() => resolve(`http://127.0.0.1:${port}/jwks`));
      });
    });
    const got = await outcome(bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: closed, now: () => NOW }), token);
    assert.equal(got.status, 500);
    assert.equal(got.body.error.code, 'E_HOST');
  });
});

/** The key-store contract on every store that holds keys. */
for (const kind of ['memory', 'sqlite-file', 'postgres', 'd1']) {
  describe(`API keys on ${kind}`, () => {
    let backend;
    let store;
    before(async () => {
      if (kind === 'memory') store = new InMemoryApiKeyStore();
      else {
        backend = await BACKENDS[kind]();
        store = backend.store;
      }
    });
    after(async () => backend?.stop());

    test('created with scopes, shown once, stored as a digest, listed per tenant, revoked at once, expired', async () => {
      await backend?.reset();
      let clock = NOW;
      const keys = apiKeys({ store, now: () => clock });
      const made = await keys.create({ userId: 'u1', scopes: ['memory:read', 'memory:read', 'profile:read'], name: 'laptop' });
      assert.match(made.key, /^mk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
      assert.ok(made.key.startsWith(API_KEY_PREFIX));
      assert.deepEqual(made.record, { id: made.key.slice(3, 19), tenantId: null, userId: 'u1', scopes: ['memory:read', 'profile:read'], name: 'laptop', createdAt: NOW, expiresAt: null, revokedAt: null });
      const acme = await keys.create({ userId: 'u1', tenantId: 'acme', scopes: ['admin'], expiresAt: '2026-05-11T00:00:00Z' });
      const secret = made.key.slice(20);
      // Stored: the digest, never the key or its secret.
      const rows = [await store.getApiKey(made.record.id), ...(await store.listApiKeys({ tenantId: null })), ...(await store.listApiKeys({ tenantId: 'acme', userId: 'u1' }))];
      assert.equal(rows.length, 3);
      for (const row of rows) {
        assert.match(row.hash, /^[0-9a-f]{64}$/);
        assert.ok(!JSON.stringify(row).includes(secret) && !JSON.stringify(row).includes(acme.key.slice(20)));
      }
      if (backend?.sql) {
        const raw = JSON.stringify(await backend.sql('SELECT * FROM memcore_api_keys'));
        assert.ok(raw.includes(made.record.id) && !raw.includes(secret), 'the table holds no secret');
      }
      if (backend?.file) {
        for (const file of readdirSync(join(backend.file, '..'))) {
          assert.ok(!readFileSync(join(backend.file, '..', file)).includes(secret), `${file} holds no secret`);
        }
      }
      // Listed per tenant, without a secret or a digest.
      assert.deepEqual((await keys.list()).map((r) => r.id), [made.record.id]);
      assert.deepEqual((await keys.list({ tenantId: 'acme' })).map((r) => [r.userId, r.scopes, r.expiresAt]), [['u1', ['admin'], '2026-05-11T00:00:00.000Z']]);
      assert.deepEqual(await keys.list({ tenantId: 'globex' }), []);
      assert.ok(!JSON.stringify(await keys.list()).includes('hash'));
      // The key authenticates as its user, tenant and scopes.
      const auth = (key) => keys.authenticate(request({ authorization: `Bearer ${key}` }));
      assert.deepEqual(await auth(made.key), { userId: 'u1', scopes: ['memory:read', 'profile:read'] });
      assert.deepEqual(await auth(acme.key), { tenantId: 'acme', userId: 'u1', scopes: ['admin'] });
      assert.equal(await auth('eyJhbGciOi.not-a-key.x'), null, 'not a key: another authenticator may try');
      await assert.rejects(auth(`${made.key.slice(0, -1)}${made.key.endsWith('A') ? 'B' : 'A'}`), (e) => e.status === 401 && e.message === 'invalid token: the API key is not known');
      await assert.rejects(auth('mk_0123456789abcdef_short'), (e) => e.status === 401 && e.message === 'invalid token: the API key is malformed');
      // Revocation is at once, only in the key's tenant.
      assert.equal(await keys.revoke(acme.record.id), false, 'not a key of the default tenant');
      assert.equal(await keys.revoke(made.record.id, { tenantId: 'acme' }), false);
      assert.equal(await keys.revoke(made.record.id), true);
      assert.equal(await keys.revoke(made.record.id), false, 'revoked once');
      assert.equal(await keys.revoke('../../etc'), false);
      await assert.rejects(auth(made.key), (e) => e.status === 401 && e.message === 'invalid token: the API key was revoked');
      assert.equal((await keys.list())[0].revokedAt, NOW);
      // Expiry by the host's clock.
      clock = '2026-05-11T00:00:00.000Z';
      await assert.rejects(auth(acme.key), (e) => e.status === 401 && e.message === 'invalid token: the API key has expired');
    });
  });
}

describe('API keys: bad requests', () => {
  test('apiKeys and create refuse bad input with MemcoreErrors (E_ARGUMENT); the store is untouched', async () => {
    for (const options of [undefined, null, {}, { store: {} }, { store: new InMemoryApiKeyStore(), now: NOW }]) {
      assert.throws(() => apiKeys(options), (e) => e instanceof m.MemcoreError && e.code === 'E_ARGUMENT');
    }
    const store = new InMemoryApiKeyStore();
    const keys = apiKeys({ store, now: () => NOW });
    const bad = [null, {}, { userId: 'u1' }, { userId: 'u1', scopes: [] }, { userId: 'u1', scopes: ['root'] }, { userId: '', scopes: ['admin'] },
      { userId: 'u1', scopes: 'admin' }, { userId: 'u1', scopes: ['admin'], tenantId: 'a\u001fb' }, { userId: 'u1', scopes: ['admin'], expiresAt: 'soon' }, { userId: 'u1', scopes: ['admin'], name: 7 }];
    for (const req of bad) await assert.rejects(keys.create(req), (e) => e instanceof m.MemcoreError && e.code === 'E_ARGUMENT', JSON.stringify(req));
    assert.deepEqual(await keys.list(), []);
    assert.ok((await keys.create({ userId: 'u1', scopes: ['admin'] })).key, 'the next call works');
  });
});

describe('scopes on every route and MCP tool (SQLite, API keys, a tenant)', () => {
  let backend;
  let server;
  let base;
  let keys;
  const key = {};
  before(async () => {
    backend = await BACKENDS['sqlite-file']();
    keys = apiKeys({ store: backend.store, now: () => NOW });
    let n = 0;
    const newId = () => `e-${++n}`;
    const handler = createMemoryHandler({
      entries: backend.store,
      profiles: new m.ContextMemory({ storage: backend.store }),
      apiKeys: keys,
      authenticate: async (req) => (await keys.authenticate(req)) ?? (req.headers.get('x-host-user') ? { userId: req.headers.get('x-host-user'), admin: true, scopes: JSON.parse(req.headers.get('x-host-scopes') ?? 'null') ?? undefined } : null),
      now: () => NOW,
      newId,
    });
    server = http.createServer(toNodeListener(handler));
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${server.address().port}`;
    // Keys of tenant acme for u1: one per scope, none, all; an admin; and one of the default tenant.
    for (const scope of SCOPES) key[scope] = (await keys.create({ userId: 'u1', tenantId: 'acme', scopes: [scope] })).key;
    key.all = (await keys.create({ userId: 'u1', tenantId: 'acme', scopes: SCOPES })).key;
    key.reader = (await keys.create({ userId: 'u1', tenantId: 'acme', scopes: READ_ALL })).key;
    key.otherTenant = (await keys.create({ userId: 'u1', scopes: SCOPES })).key;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await backend.stop();
  });
  const call = async (token, method, path, body, headers = {}) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': typeof body === 'string' ? 'text/markdown' : 'application/json' }), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };

  // Every route with the scope it needs (writes first so the reads find something).
  const ROUTES = [
    ['memory:write', 'PUT', '/usermemorystore/memories', { userId: 'u1', key: 'city', value: 'Porto', visibility: 'global' }],
    ['memory:write', 'PUT', '/propertiesstore/properties/u1', { theme: 'dark' }],
    ['profile:write', 'PUT', '/contextmemory/me', profileBody('- Likes tea.')],
    ['memory:read', 'GET', '/usermemorystore/memories/u1'],
    ['memory:read', 'GET', '/usermemorystore/memories/u1/visible?agentId=a'],
    ['memory:read', 'GET', '/usermemorystore/memories/u1/search?q=city'],
    ['memory:read', 'GET', '/usermemorystore/memories/u1/count'],
    ['memory:read', 'GET', '/usermemorystore/memories/u1/key/city'],
    ['memory:read', 'GET', '/usermemorystore/memories/u1/key/city/history'],
    ['memory:read', 'GET', (id) => `/usermemorystore/memories/u1/entry/${id}/history`],
    ['memory:read', 'GET', '/propertiesstore/properties/u1'],
    ['profile:read', 'GET', '/contextmemory/me'],
    ['admin', 'GET', '/admin/audit'],
    ['admin', 'GET', '/admin/gdpr/u1/export'],
    ['admin', 'GET', '/admin/gdpr/u1/restriction'],
    ['admin', 'PUT', '/admin/gdpr/u1/restriction', { restricted: false }],
    ['admin', 'GET', '/admin/keys'],
    ['memory:write', 'DELETE', (id) => `/usermemorystore/memories/entry/${id}`],
    ['memory:write', 'DELETE', '/propertiesstore/properties/u1'],
    ['memory:write', 'DELETE', '/usermemorystore/memories/u1'],
    // Another user: an erasure deletes the user's API keys, and the next tests use u1's.
    ['admin', 'DELETE', '/admin/gdpr/u3'],
  ];

  test('each route: 403 naming its scope for every key without it; the key with it passes', async () => {
    let entryId;
    for (const [scope, method, route, body] of ROUTES) {
      const path = typeof route === 'function' ? route(entryId) : route;
      for (const other of SCOPES.filter((s) => s !== scope)) {
        const got = await call(key[other], method, path, body);
        assert.equal(got.status, 403, `${method} ${path} with ${other}: ${JSON.stringify(got.body)}`);
        assert.equal(got.body.error.code, 'E_FORBIDDEN');
        assert.equal(got.body.error.message, `this needs the scope ${scope}`);
        assert.equal(got.body.error.missingScope, scope);
      }
      const ok = await call(scope === 'admin' ? key.admin : key[scope], method, path, body);
      assert.ok(ok.status < 300, `${method} ${path} with ${scope}: ${ok.status} ${JSON.stringify(ok.body)}`);
      entryId ??= ok.body.entry?.id;
    }
  });

  test('admins manage keys of their own tenant over REST; a revoked key is refused on its next request', async () => {
    // A key gives at most what it holds: the admin-only key cannot mint memory:read; the key with every scope can.
    const beyond = await call(key.admin, 'POST', '/admin/keys', { userId: 'u2', scopes: ['memory:read'], name: 'ci' });
    assert.deepEqual([beyond.status, beyond.body.error.missingScope], [403, 'memory:read']);
    const made = await call(key.all, 'POST', '/admin/keys', { userId: 'u2', scopes: ['memory:read'], name: 'ci' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.match(made.body.key, /^mk_/);
    assert.equal(made.body.record.tenantId, 'acme');
    const listed = await call(key.admin, 'GET', '/admin/keys?userId=u2');
    assert.deepEqual(listed.body.keys.map((k) => [k.id, k.userId, k.scopes, k.name]), [[made.body.record.id, 'u2', ['memory:read'], 'ci']]);
    assert.ok(!JSON.stringify(listed.body).includes(made.body.key.slice(20)));
    // The new key reads u2's memory of acme (empty), not u1's.
    assert.equal((await call(made.body.key, 'GET', '/usermemorystore/memories/u2')).status, 200);
    assert.equal((await call(made.body.key, 'GET', '/usermemorystore/memories/u1')).status, 403);
    // The default tenant's admin cannot see or revoke acme's keys.
    assert.ok(!(await call(key.otherTenant, 'GET', '/admin/keys')).body.keys.some((k) => k.id === made.body.record.id));
    assert.equal((await call(key.otherTenant, 'DELETE', `/admin/keys/${made.body.record.id}`)).status, 404);
    assert.deepEqual((await call(key.admin, 'DELETE', `/admin/keys/${made.body.record.id}`)).body, { revoked: true });
    const refused = await call(made.body.key, 'GET', '/usermemorystore/memories/u2');
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.message, 'invalid token: the API key was revoked');
    // Bad bodies: 400, nothing created.
    for (const body of [{ userId: 'u3' }, { userId: 'u3', scopes: ['root'] }, { scopes: ['admin'] }, [1]]) {
      assert.equal((await call(key.admin, 'POST', '/admin/keys', body)).status, 400, JSON.stringify(body));
    }
    assert.deepEqual((await call(key.admin, 'GET', '/admin/keys?userId=u3')).body.keys, []);
    assert.equal((await call(key.admin, 'PATCH', '/admin/keys')).status, 405);
  });

  test('a host principal: scopes checked (unknown scope → 500 E_HOST), the admin flag needs the admin scope once scopes are given', async () => {
    const host = (scopes) => ({ 'x-host-user': 'boss', ...(scopes === undefined ? {} : { 'x-host-scopes': JSON.stringify(scopes) }) });
    assert.equal((await call(null, 'GET', '/admin/audit', undefined, host())).status, 200, 'no scopes: every scope');
    const limited = await call(null, 'GET', '/admin/audit', undefined, host(['memory:read']));
    assert.equal(limited.status, 403);
    assert.equal(limited.body.error.missingScope, 'admin');
    assert.equal((await call(null, 'GET', '/usermemorystore/memories/u9', undefined, host(['memory:read']))).status, 403, 'not an admin without the scope: only its own memory');
    assert.equal((await call(null, 'GET', '/usermemorystore/memories/u9', undefined, host(['memory:read', 'admin']))).status, 200);
    for (const bad of [['root'], 'admin', [1], {}]) {
      const got = await call(null, 'GET', '/usermemorystore/memories/boss', undefined, host(bad));
      assert.equal(got.status, 500, JSON.stringify(bad));
      assert.equal(got.body.error.code, 'E_HOST');
    }
  });

  async function mcp(token, path) {
    const client = new Client({ name: 'auth-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}${path}`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    return client;
  }
  const args = {
    list_user_memories: { userId: 'u1' },
    get_visible_memories: { userId: 'u1', agentId: 'a' },
    search_user_memories: { userId: 'u1', query: 'city' },
    get_memory_by_key: { userId: 'u1', key: 'city' },
    count_user_memories: { userId: 'u1' },
    upsert_user_memory: { userId: 'u1', key: 'pet', value: 'cat', visibility: 'global' },
    delete_user_memory: { entryId: 'nope' },
    delete_all_user_memories: { userId: 'u7', confirmation: 'CONFIRM' },
    delete_user_data: { userId: 'u7', confirmation: 'CONFIRM' },
    get_memory_history: { userId: 'u1', key: 'city' },
    search_user_episodes: { userId: 'u1', query: 'city' },
    rememberFact: { key: 'tea', value: 'green', category: 'preference', visibility: 'self' },
    recallMemories: {},
    searchMemory: { query: 'tea' },
    forgetFact: { key: 'tea' },
    memoryHistory: { key: 'tea' },
    get_profile: {},
    update_profile: { body: profileBody('- Over MCP.') },
  };

  test('every MCP tool of both endpoints: E_FORBIDDEN naming its scope without it, answered with it', async () => {
    assert.deepEqual(Object.keys(TOOL_SCOPES).sort(), [...MCP_TOOL_NAMES, ...AGENT_MCP_TOOL_NAMES].sort());
    for (const [path, names] of [['/mcp', MCP_TOOL_NAMES], ['/mcp/agent', AGENT_MCP_TOOL_NAMES]]) {
      for (const name of names) {
        const scope = TOOL_SCOPES[name];
        const lacking = await mcp(key[scope === 'memory:read' ? 'profile:read' : 'memory:read'], path);
        const refused = await lacking.callTool({ name, arguments: args[name] }).catch((e) => assert.fail(`${path} ${name}: ${e.message}`));
        assert.equal(refused.isError, true, `${path} ${name}`);
        assert.deepEqual((refused.content[0].text.startsWith("{\"error") ? JSON.parse(refused.content[0].text) : `${path} ${name}: ${refused.content[0].text}`), { error: { code: 'E_FORBIDDEN', message: `this needs the scope ${scope}`, missingScope: scope } });
        await lacking.close();
        const holder = await mcp(key.all, path);
        const answered = await holder.callTool({ name, arguments: args[name] }).catch((e) => assert.fail(`${path} ${name}: ${e.message}`));
        assert.ok(!/this needs the scope/.test(answered.content[0].text), `${path} ${name}: ${answered.content[0].text}`);
        await holder.close();
      }
    }
  });

  test('the profile resource needs profile:read', async () => {
    const without = await mcp(key['memory:read'], '/mcp/agent');
    await assert.rejects(without.readResource({ uri: 'memory://profile' }), /this needs the scope profile:read/);
    await without.close();
    const reader = await mcp(key.reader, '/mcp/agent');
    assert.equal(typeof (await reader.readResource({ uri: 'memory://profile' })).contents[0].text, 'string');
    await reader.close();
  });
});

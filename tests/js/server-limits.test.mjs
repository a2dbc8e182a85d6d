// Limits of memcore/server (issue 24 part 3, SPEC §8.5) through the installed package, on a real
// Node HTTP server on 127.0.0.1: per-principal token buckets for requests and writes under load
// (the 2xx and 429 answers counted exactly — the buckets refill by an injected clock, never by
// time passing), Retry-After, per-scope rates, principals and tenants independent; the bound on
// one principal's concurrent requests (held inside a store call); the handler's own body
// deadline against a client that stalls; the write limit on MCP tools of both endpoints.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as m from 'memcore';
import { createMemoryHandler, toNodeListener, DEFAULT_BODY_TIMEOUT_MS, DEFAULT_MAX_CONCURRENT, HTTP_ERROR_CODES } from 'memcore/server';

const T0 = Date.parse('2026-05-10T12:00:00.000Z');

/** A principal from headers: x-user, x-tenant, x-scopes (JSON). */
function authenticate(request) {
  const userId = request.headers.get('x-user');
  if (!userId) return null;
  const tenantId = request.headers.get('x-tenant') ?? undefined;
  const scopes = request.headers.get('x-scopes');
  return { userId, ...(tenantId ? { tenantId } : {}), ...(scopes ? { scopes: JSON.parse(scopes) } : {}) };
}

async function serve(options) {
  const server = http.createServer(toNodeListener(createMemoryHandler({ authenticate, ...options })));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }) };
}

const as = (userId, extra = {}) => ({ 'x-user': userId, ...extra });

async function call(base, method, path, headers, body) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: text ? JSON.parse(text) : null };
}

/** `n` requests from `clients` concurrent loops; answers the count of each status and the last 429. */
async function load(n, clients, send) {
  const counts = {};
  let limited = null;
  let next = 0;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < n) {
      next += 1;
      const r = await send();
      counts[r.status] = (counts[r.status] ?? 0) + 1;
      if (r.status === 429) limited = r;
    }
  }));
  return { counts, limited };
}

describe('rate limits under load (an injected clock)', () => {
  let app;
  let clock = T0;
  before(async () => {
    app = await serve({
      entries: new m.InMemoryEntryStore(),
      limits: { requestsPerMinute: 60, writesPerMinute: 5, byScope: { admin: { requestsPerMinute: 120 } }, now: () => clock },
      now: () => new Date(clock).toISOString(),
    });
  });
  after(() => app.close());

  test('60 per minute: of 200 requests from 4 clients exactly 60 pass and 140 are 429 with Retry-After; the bucket refills by the clock', async () => {
    const get = () => call(app.base, 'GET', '/usermemorystore/memories/u1/count', as('u1'));
    const { counts, limited } = await load(200, 4, get);
    assert.deepEqual(counts, { 200: 60, 429: 140 });
    assert.equal(limited.retryAfter, '1');
    assert.deepEqual(limited.body, { error: { code: 'E_RATE_LIMITED', message: 'too many requests: at most 60 per minute', retryAfterSeconds: 1 } });
    // 10 seconds later: 10 tokens.
    clock += 10_000;
    assert.deepEqual((await load(30, 3, get)).counts, { 200: 10, 429: 20 });
    // A minute later the bucket is full again, no fuller than its burst.
    clock += 600_000;
    assert.deepEqual((await load(100, 4, get)).counts, { 200: 60, 429: 40 });
  });

  test('another principal, the same user in another tenant, and an admin-scoped principal have their own buckets', async () => {
    const count = (headers) => () => call(app.base, 'GET', '/usermemorystore/memories/u2/count', headers);
    assert.deepEqual((await load(70, 2, count(as('u2')))).counts, { 200: 60, 429: 10 });
    assert.deepEqual((await load(70, 2, count(as('u2', { 'x-tenant': 'acme' })))).counts, { 200: 60, 429: 10 });
    const admin = as('root', { 'x-scopes': JSON.stringify(['admin', 'memory:read']) });
    assert.deepEqual((await load(130, 2, count(admin))).counts, { 200: 120, 429: 10 }, 'the admin scope\'s rate, the most generous of its scopes');
    assert.equal((await call(app.base, 'GET', '/usermemorystore/memories/u3/count', as('u3'))).status, 200, 'u3 untouched');
  });

  test('writes have their own bucket: the 6th write in a minute is 429, reads still pass; the wait is the refill time of one write', async () => {
    clock += 3_600_000;
    const statuses = [];
    for (let i = 0; i < 7; i += 1) {
      statuses.push((await call(app.base, 'PUT', '/usermemorystore/memories', as('w1'), { userId: 'w1', key: `k${i}`, value: 'v', visibility: 'global' })).status);
    }
    assert.deepEqual(statuses, [201, 201, 201, 201, 201, 429, 429]);
    const refused = await call(app.base, 'PUT', '/usermemorystore/memories', as('w1'), { userId: 'w1', key: 'k9', value: 'v', visibility: 'global' });
    assert.equal(refused.retryAfter, '12', '5 per minute: one write every 12 s');
    assert.equal(refused.body.error.message, 'too many writes: at most 5 per minute');
    assert.equal((await call(app.base, 'GET', '/usermemorystore/memories/w1/count', as('w1'))).body.count, 5, 'nothing refused was written');
    clock += 12_000;
    assert.equal((await call(app.base, 'PUT', '/usermemorystore/memories', as('w1'), { userId: 'w1', key: 'k10', value: 'v', visibility: 'global' })).status, 201);
  });

  test('an unauthenticated request is 401, not counted against anyone', async () => {
    assert.equal((await call(app.base, 'GET', '/usermemorystore/memories/u1/count', {})).status, 401);
  });
});

describe('MCP endpoints under the limits', () => {
  let app;
  let clock = T0;
  before(async () => {
    app = await serve({
      entries: new m.InMemoryEntryStore(),
      limits: { requestsPerMinute: 1000, writesPerMinute: 2, now: () => clock },
      now: () => new Date(clock).toISOString(),
    });
  });
  after(() => app.close());
  async function client(path, userId) {
    const c = new Client({ name: 'limits-test', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${app.base}${path}`), { requestInit: { headers: as(userId) } }));
    return c;
  }

  test('writes through MCP tools of both endpoints share the principal\'s write bucket; reads do not take from it', async () => {
    const admin = await client('/mcp', 'm1');
    const agent = await client('/mcp/agent', 'm1');
    const upsert = (key) => admin.callTool({ name: 'upsert_user_memory', arguments: { userId: 'm1', key, value: 'v', visibility: 'global' } });
    assert.equal((await upsert('a')).isError, undefined);
    assert.ok(!(await agent.callTool({ name: 'rememberFact', arguments: { key: 'b', value: 'v', category: 'fact', visibility: 'self' } })).isError);
    for (let i = 0; i < 3; i += 1) assert.ok(!(await admin.callTool({ name: 'count_user_memories', arguments: { userId: 'm1' } })).isError);
    const third = await upsert('c');
    assert.equal(third.isError, true);
    assert.deepEqual(JSON.parse(third.content[0].text), { error: { code: 'E_RATE_LIMITED', message: 'too many writes: at most 2 per minute', retryAfterSeconds: 30 } });
    const forget = await agent.callTool({ name: 'forgetFact', arguments: { key: 'b' } });
    assert.equal(JSON.parse(forget.content[0].text).error.code, 'E_RATE_LIMITED');
    assert.equal(JSON.parse((await admin.callTool({ name: 'count_user_memories', arguments: { userId: 'm1' } })).content[0].text).count, 2);
    clock += 30_000;
    assert.ok(!(await upsert('c')).isError, 'refilled');
    await admin.close();
    await agent.close();
  });

  test('over the request rate the MCP request itself is 429 with Retry-After', async () => {
    const limited = await serve({ entries: new m.InMemoryEntryStore(), limits: { requestsPerMinute: 1, now: () => T0 } });
    try {
      const rpc = () => fetch(`${limited.base}/mcp`, {
        method: 'POST',
        headers: { ...as('x'), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal((await rpc()).status, 200);
      const second = await rpc();
      assert.deepEqual([second.status, second.headers.get('retry-after'), (await second.json()).error.code], [429, '60', 'E_RATE_LIMITED']);
    } finally {
      await limited.close();
    }
  });
});

describe('concurrent requests per principal', () => {
  test('the (max+1)th concurrent request is 429; slots come back after answers and after failures', async () => {
    let hold = null;
    let fail = false;
    let waiting = 0;
    // A host store (the in-memory one's methods, delegated) whose count waits while `hold` is set.
    const inner = new m.InMemoryEntryStore();
    const store = {};
    for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(inner))) {
      if (name !== 'constructor' && name !== 'forTenant' && typeof inner[name] === 'function') store[name] = (...args) => inner[name](...args);
    }
    store.countUser = async (userId) => {
      if (fail) throw new Error('the store is down');
      if (hold) {
        waiting += 1;
        await hold.promise;
      }
      return inner.countUser(userId);
    };
    const app = await serve({ entries: store, limits: { maxConcurrent: 2 } });
    try {
      const count = (user = 'c1') => call(app.base, 'GET', `/usermemorystore/memories/${user}/count`, as(user));
      let resolve;
      hold = { promise: new Promise((r) => (resolve = r)) };
      const first = count();
      const second = count();
      const other = count('c2'); // another principal: its own slots
      // Wait until the three are inside the store (their slots taken).
      for (let i = 0; waiting < 3; i += 1) {
        assert.ok(i < 2000, 'the three requests reach the store');
        await new Promise((r) => setTimeout(r, 5));
      }
      const third = await count();
      assert.equal(third.status, 429);
      assert.deepEqual([third.retryAfter, third.body.error.code, third.body.error.message], ['1', 'E_RATE_LIMITED', 'too many concurrent requests: at most 2 at a time']);
      hold = null;
      resolve();
      assert.deepEqual([(await first).status, (await second).status, (await other).status], [200, 200, 200]);
      assert.equal((await count()).status, 200);
      // Failing requests release their slots: more failures than slots, then a success.
      fail = true;
      for (let i = 0; i < 4; i += 1) assert.equal((await count()).status, 500);
      fail = false;
      assert.equal((await count()).status, 200);
    } finally {
      await app.close();
    }
  });
});

describe('the body deadline', () => {
  test('a client that sends headers and part of its body then stalls gets 408 E_BODY_TIMEOUT; the next request works', async () => {
    const app = await serve({ entries: new m.InMemoryEntryStore(), limits: { bodyTimeoutMs: 100 } });
    try {
      const { port } = new URL(app.base);
      const answer = await new Promise((resolve, reject) => {
        const socket = net.connect(Number(port), '127.0.0.1');
        let data = '';
        socket.on('data', (d) => (data += d));
        socket.on('close', () => resolve(data));
        socket.on('error', reject);
        socket.write('PUT /usermemorystore/memories HTTP/1.1\r\nhost: 127.0.0.1\r\nx-user: s1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"userId":');
        // ...and nothing more: the handler answers on its own deadline and closes the connection.
      });
      assert.match(answer, /^HTTP\/1\.1 408 /);
      const body = JSON.parse(/\{"error".*\}/.exec(answer)[0]); // the body, whatever its transfer encoding
      assert.deepEqual(body.error, { code: 'E_BODY_TIMEOUT', message: 'the request body did not arrive within 100 ms', details: { timeoutMs: 100 } });
      const next = await call(app.base, 'PUT', '/usermemorystore/memories', as('s1'), { userId: 's1', key: 'k', value: 'v', visibility: 'global' });
      assert.equal(next.status, 201);
    } finally {
      await app.close();
    }
  });

  test('the defaults and the codes are exported', () => {
    assert.equal(DEFAULT_BODY_TIMEOUT_MS, 10_000);
    assert.equal(DEFAULT_MAX_CONCURRENT, 32);
    assert.equal(HTTP_ERROR_CODES[408], 'E_BODY_TIMEOUT');
    assert.equal(HTTP_ERROR_CODES[429], 'E_RATE_LIMITED');
  });
});

describe('bad limits', () => {
  test('are MemcoreErrors (E_ARGUMENT) when the handler is made', () => {
    const bad = [
      'fast', 42, [], { requestsPerMinute: -1 }, { requestsPerMinute: 0 }, { requestsPerMinute: Number.NaN }, { writesPerMinute: '60' },
      { burst: Infinity }, { maxConcurrent: 1.5 }, { maxConcurrent: 0 }, { bodyTimeoutMs: -5 }, { bodyTimeoutMs: 3_600_001 },
      { byScope: [] }, { byScope: { root: { requestsPerMinute: 1 } } }, { byScope: { admin: 5 } }, { byScope: { admin: { perHour: 1 } } },
      { now: 5 }, { maxTrackedPrincipals: 0 }, { requestsPerHour: 1 },
    ];
    for (const limits of bad) {
      assert.throws(() => createMemoryHandler({ entries: new m.InMemoryEntryStore(), authenticate, limits }), (e) => e instanceof m.MemcoreError && e.code === 'E_ARGUMENT', JSON.stringify(limits));
    }
    assert.equal(typeof createMemoryHandler({ entries: new m.InMemoryEntryStore(), authenticate, limits: null }), 'function');
  });

  test('a clock that returns junk is 500 E_HOST for that request, and the handler keeps serving', async () => {
    let junk = true;
    const handler = createMemoryHandler({ entries: new m.InMemoryEntryStore(), authenticate, limits: { requestsPerMinute: 10, now: () => (junk ? 'not a time' : T0) } });
    const get = () => handler(new Request('http://127.0.0.1/usermemorystore/memories/u1/count', { headers: as('u1') }));
    const first = await get();
    assert.deepEqual([first.status, (await first.json()).error.code], [500, 'E_HOST']);
    junk = false;
    assert.equal((await get()).status, 200);
  });

  test('many distinct principals: the buckets kept stay bounded and every principal is still limited', async () => {
    const handler = createMemoryHandler({ entries: new m.InMemoryEntryStore(), authenticate, limits: { requestsPerMinute: 1, maxTrackedPrincipals: 10, now: () => T0 } });
    const get = (u) => handler(new Request(`http://127.0.0.1/usermemorystore/memories/${u}/count`, { headers: as(u) }));
    for (let i = 0; i < 50; i += 1) assert.equal((await get(`p${i}`)).status, 200);
    assert.equal((await get('p49')).status, 429, 'a recent principal is still tracked');
  });
});

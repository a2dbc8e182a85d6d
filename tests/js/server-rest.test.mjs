// memcore/server's REST routes over real HTTP (toNodeListener + node:http on 127.0.0.1), through
// the installed package: every route against the in-memory store and two JS host stores, the
// authorisation matrix, and the bad inputs of issue 13. Time and ids come from the host.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { InMemoryEntryStore } from 'memcore';
import { createMemoryHandler, HTTP_ERROR_CODES, MAX_BODY_BYTES, toNodeListener } from 'memcore/server';
import { JsStore, PushedStore, SlowStore, STORES, as, authenticate, raw, startServer } from './fixtures/server-support.mjs';

const M = '/usermemorystore/memories';
const JSON_TYPE = { 'content-type': 'application/json' };

async function call(base, method, path, { user = 'u1', admin = false, body, headers = {} } = {}) {
  const h = { ...(user ? as(user, { admin }) : {}), ...(body !== undefined ? JSON_TYPE : {}), ...headers };
  const response = await fetch(`${base}${path}`, { method, headers: h, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

const put = (base, body, opts) => call(base, 'PUT', M, { body, ...opts });

for (const [name, make] of Object.entries(STORES)) {
  describe(`every route over ${name}`, () => {
    let s;
    before(async () => {
      s = await startServer({ entries: make() });
    });
    after(() => s.close());

    test('PUT creates (201), updates at the identity (200) and leaves an unchanged entry alone', async () => {
      const created = await put(s.base, { userId: 'u1', key: 'city', value: 'Lisbon', visibility: 'global' });
      assert.equal(created.status, 201);
      assert.deepEqual(created.json, {
        entry: { id: 'id-001', userId: 'u1', key: 'city', value: 'Lisbon', category: 'fact', visibility: 'global', sourceAgentId: null, groupIds: [], sourceConversationId: null, conflicted: false, accessCount: 0, createdAt: '2026-12-01T10:00:00.000Z', updatedAt: '2026-12-01T10:00:00.000Z', writtenBy: 'rest' },
        created: true,
        evicted: [],
      });
      const own = await put(s.base, { userId: 'u1', key: 'city', value: 'Porto', visibility: 'self', sourceAgentId: 'a' });
      assert.equal(own.status, 201, 'a self write never lands on the global entry');
      assert.equal(own.json.entry.id, 'id-002');
      const updated = await put(s.base, { userId: 'u1', key: ' city ', value: 'Faro', visibility: 'self', sourceAgentId: 'a', category: 'preference' });
      assert.equal(updated.status, 200);
      assert.deepEqual([updated.json.entry.id, updated.json.entry.value, updated.json.created], ['id-002', 'Faro', false]);
      const same = await put(s.base, { userId: 'u1', key: 'city', value: 'Lisbon', visibility: 'global' });
      assert.equal(same.status, 200);
      assert.deepEqual([same.json.unchanged, same.json.entry.id], [true, 'id-001']);
      const group = await put(s.base, { userId: 'u1', key: 'team', value: { name: 'blue' }, visibility: 'group', sourceAgentId: 'b', groupIds: ['G'] });
      assert.equal(group.status, 201);
      await put(s.base, { userId: 'u2', key: 'city', value: 'Oslo', visibility: 'global' }, { user: 'u2' });
    });

    test('GET /{userId} lists every visibility of the user, newest first; count excludes nothing but _gdpr_', async () => {
      const listed = await call(s.base, 'GET', `${M}/u1`);
      assert.equal(listed.status, 200);
      assert.deepEqual(listed.json.entries.map((e) => `${e.key}:${e.visibility}`).sort(), ['city:global', 'city:self', 'team:group']);
      const count = await call(s.base, 'GET', `${M}/u1/count`);
      assert.deepEqual([count.status, count.json], [200, { count: 3 }]);
    });

    test('GET /{userId}/visible is what one agent sees in one group, in order, limited', async () => {
      const a = await call(s.base, 'GET', `${M}/u1/visible?agentId=a`);
      assert.deepEqual(new Set(a.json.entries.map((e) => e.id)), new Set(['id-001', 'id-002']));
      const b = await call(s.base, 'GET', `${M}/u1/visible?agentId=b&groupId=G&order=most_accessed&limit=5`);
      assert.deepEqual(new Set(b.json.entries.map((e) => e.id)), new Set(['id-001', 'id-003']));
      const noGroup = await call(s.base, 'GET', `${M}/u1/visible?agentId=b`);
      assert.deepEqual(noGroup.json.entries.map((e) => e.id), ['id-001']);
      const one = await call(s.base, 'GET', `${M}/u1/visible?agentId=a&limit=1`);
      assert.equal(one.json.entries.length, 1);
    });

    test('GET /{userId}/search follows the search rule; GET /{userId}/key/{key} prefers the agent\'s own entry', async () => {
      const found = await call(s.base, 'GET', `${M}/u1/search?q=${encodeURIComponent('CITY faro')}&mode=terms`);
      assert.deepEqual(found.json.entries.map((e) => e.id), ['id-002']);
      const none = await call(s.base, 'GET', `${M}/u1/search?q=${encodeURIComponent('?!')}`);
      assert.deepEqual(none.json, { entries: [] });
      const own = await call(s.base, 'GET', `${M}/u1/key/city?agentId=a`);
      assert.deepEqual([own.status, own.json.entry.id], [200, 'id-002']);
      const global = await call(s.base, 'GET', `${M}/u1/key/city`);
      assert.equal(global.json.entry.id, 'id-001');
      const missing = await call(s.base, 'GET', `${M}/u1/key/nothing`);
      assert.deepEqual([missing.status, missing.json.error.code], [404, 'E_NOT_FOUND']);
    });

    test('the legacy properties route reads, merges and deletes global entries', async () => {
      const read = await call(s.base, 'GET', '/propertiesstore/properties/u1');
      assert.deepEqual([read.status, read.json], [200, { city: 'Lisbon' }]);
      const merged = await call(s.base, 'PUT', '/propertiesstore/properties/u1', { body: { theme: 'dark', city: 'Lisbon' } });
      assert.deepEqual([merged.status, merged.json], [200, { written: 1 }]);
      assert.deepEqual((await call(s.base, 'GET', '/propertiesstore/properties/u1')).json, { city: 'Lisbon', theme: 'dark' });
      const gdpr = await call(s.base, 'PUT', '/propertiesstore/properties/u1', { body: { _gdpr_x: 1, fine: 2 } });
      assert.deepEqual([gdpr.status, gdpr.json.error.code], [400, 'E_ARGUMENT']);
      assert.equal((await call(s.base, 'GET', '/propertiesstore/properties/u1')).json.fine, undefined);
      const deleted = await call(s.base, 'DELETE', '/propertiesstore/properties/u1');
      assert.deepEqual(deleted.json, { deleted: 2 });
      assert.deepEqual((await call(s.base, 'GET', `${M}/u1/count`)).json, { count: 2 });
    });

    test('DELETE /entry/{id} deletes one entry; DELETE /{userId} deletes all but _gdpr_ entries', async () => {
      const gone = await call(s.base, 'DELETE', `${M}/entry/id-002`);
      assert.deepEqual([gone.status, gone.json.deleted, gone.json.entry.key], [200, true, 'city']);
      assert.equal((await call(s.base, 'DELETE', `${M}/entry/id-002`)).status, 404);
      await s.entries.upsert({ id: 'gdpr-1', userId: 'u1', key: '_gdpr_processing_note', value: 1, category: 'fact', visibility: 'global', groupIds: [], createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' });
      const reserved = await call(s.base, 'DELETE', `${M}/entry/gdpr-1`);
      assert.deepEqual([reserved.status, reserved.json.error.code], [400, 'E_BAD_REQUEST']);
      const all = await call(s.base, 'DELETE', `${M}/u1`);
      assert.deepEqual([all.status, all.json], [200, { deleted: 1 }]);
      assert.deepEqual((await s.entries.list('u1')).map((e) => e.id), ['gdpr-1']);
      assert.deepEqual((await call(s.base, 'GET', `${M}/u1`)).json, { entries: [] });
      assert.equal((await s.entries.list('u2')).length, 1, "another user's entries stay");
    });
  });
}

describe('Settings → Context Memory at /contextmemory/me', () => {
  let s;
  before(async () => {
    s = await startServer();
  });
  after(() => s.close());

  test('GET before a profile exists, PUT of a body (markdown or JSON), then GET shows it', async () => {
    const empty = await call(s.base, 'GET', '/contextmemory/me');
    assert.deepEqual([empty.status, empty.json], [200, { exists: false, body: '', lastUpdated: null, turnCount: null }]);
    const body = '## Identity\n- Ana\n';
    const saved = await call(s.base, 'PUT', '/contextmemory/me', { body, headers: { 'content-type': 'text/markdown' } });
    assert.deepEqual([saved.status, saved.json.saved], [200, true]);
    assert.ok(Array.isArray(saved.json.diagnostics));
    const shown = await call(s.base, 'GET', '/contextmemory/me');
    assert.equal(shown.json.exists, true);
    assert.match(shown.json.body, /- Ana/);
    const viaJson = await call(s.base, 'PUT', '/contextmemory/me', { body: { body: '## Identity\n- Bea\n' } });
    assert.equal(viaJson.status, 200);
    assert.match((await call(s.base, 'GET', '/contextmemory/me')).json.body, /- Bea/);
    const other = await call(s.base, 'GET', '/contextmemory/me', { user: 'u2' });
    assert.equal(other.json.exists, false, 'me is the principal: nobody reads another profile here');
  });

  test('a body over 1 MiB is 413 and nothing is written; a wrong content type is 415; no principal is 401', async () => {
    const before = s.storage.writes.length;
    const big = await call(s.base, 'PUT', '/contextmemory/me', { body: 'x'.repeat(MAX_BODY_BYTES + 1), headers: { 'content-type': 'text/plain' } });
    assert.deepEqual([big.status, big.json.error.code], [413, 'E_TOO_LARGE']);
    assert.equal(s.storage.writes.length, before);
    const form = await call(s.base, 'PUT', '/contextmemory/me', { body: 'a=b', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.deepEqual([form.status, form.json.error.code], [415, 'E_UNSUPPORTED_MEDIA_TYPE']);
    assert.equal((await call(s.base, 'GET', '/contextmemory/me', { user: null })).status, 401);
    assert.deepEqual((await call(s.base, 'POST', '/contextmemory/me')).headers.get('allow'), 'GET, PUT, HEAD');
  });

  test('without profiles the route is absent (404)', async () => {
    const bare = await startServer({ profiles: false });
    try {
      assert.equal((await call(bare.base, 'GET', '/contextmemory/me')).status, 404);
    } finally {
      await bare.close();
    }
  });
});

describe('the authorisation matrix', () => {
  let s;
  before(async () => {
    s = await startServer({ entries: new PushedStore() });
    await put(s.base, { userId: 'u1', key: 'city', value: 'Lisbon', visibility: 'global' });
  });
  after(() => s.close());

  // Every route that acts on u1's memory; each row is run by u1, u2, nobody and an admin.
  const routes = [
    ['PUT', M, () => ({ userId: 'u1', key: 'k', value: 1, visibility: 'global' })],
    ['GET', `${M}/u1`],
    ['GET', `${M}/u1/visible?agentId=a`],
    ['GET', `${M}/u1/search?q=city`],
    ['GET', `${M}/u1/key/city`],
    ['GET', `${M}/u1/count`],
    ['DELETE', `${M}/entry/ENTRY`],
    ['DELETE', `${M}/u1`],
    ['GET', '/propertiesstore/properties/u1'],
    ['PUT', '/propertiesstore/properties/u1', () => ({ theme: 'dark' })],
    ['DELETE', '/propertiesstore/properties/u1'],
  ];
  const principals = [
    ['own user', { user: 'u1' }, 'ok'],
    ['other user', { user: 'u2' }, 403],
    ['no principal', { user: null }, 401],
    ['admin', { user: 'root', admin: true }, 'ok'],
  ];
  for (const [method, path, body] of routes) {
    for (const [who, opts, expected] of principals) {
      test(`${method} ${path.replace('ENTRY', '{entryId}')} as ${who} → ${expected}`, async () => {
        const fresh = await put(s.base, { userId: 'u1', key: `e-${Math.random()}`, value: 1, visibility: 'global' });
        const target = path.replace('ENTRY', fresh.json.entry.id);
        const r = await call(s.base, method, target, { ...opts, body: body?.() });
        if (expected === 'ok') assert.ok(r.status >= 200 && r.status < 300, `${r.status} ${r.text}`);
        else {
          assert.equal(r.status, expected, r.text);
          assert.equal(r.json.error.code, HTTP_ERROR_CODES[expected]);
        }
      });
    }
  }

  test('the admin GDPR routes of §4.3: erase, export, restriction — admins only (own user, other user, no principal, admin)', async () => {
    const who = { own: { user: 'u7' }, other: { user: 'u2' }, admin: { user: 'root', admin: true } };
    assert.equal((await put(s.base, { userId: 'u7', key: 'k', value: 'v', visibility: 'global' }, who.own)).status, 201);
    for (const [method, path, body] of [['GET', '/admin/gdpr/u7/export'], ['GET', '/admin/gdpr/u7/restriction'], ['PUT', '/admin/gdpr/u7/restriction', { restricted: true }], ['DELETE', '/admin/gdpr/u7']]) {
      for (const name of ['own', 'other']) {
        const r = await call(s.base, method, path, { ...who[name], body });
        assert.deepEqual([r.status, r.json.error.code], [403, 'E_FORBIDDEN'], `${method} ${path} as ${name}`);
      }
      const anonymous = await call(s.base, method, path, { body, user: null });
      assert.equal(anonymous.status, 401, `${method} ${path} without a principal`);
    }
    const exported = await call(s.base, 'GET', '/admin/gdpr/u7/export', who.admin);
    assert.equal(exported.status, 200, exported.text);
    assert.deepEqual([exported.json.format, exported.json.userId, exported.json.entries.map((e) => e.key)], ['memcore.user-data', 'u7', ['k']]);
    assert.deepEqual((await call(s.base, 'PUT', '/admin/gdpr/u7/restriction', { ...who.admin, body: { restricted: true } })).json, { restricted: true, changed: true });
    assert.deepEqual((await call(s.base, 'GET', '/admin/gdpr/u7/restriction', who.admin)).json, { restricted: true });
    const refused = await put(s.base, { userId: 'u7', key: 'k2', value: 'w', visibility: 'global' }, who.own);
    assert.deepEqual([refused.status, refused.json.error.code], [409, 'E_RESTRICTED']);
    const bad = await call(s.base, 'PUT', '/admin/gdpr/u7/restriction', { ...who.admin, body: { restricted: 'yes' } });
    assert.deepEqual([bad.status, bad.json.error.code], [400, 'E_BAD_REQUEST']);
    const erased = await call(s.base, 'DELETE', '/admin/gdpr/u7', who.admin);
    assert.equal(erased.status, 200, erased.text);
    assert.deepEqual(erased.json.entries, [2], 'the entry and the _gdpr_ restriction flag');
    assert.equal((await call(s.base, 'GET', '/usermemorystore/memories/u7/count', who.admin)).json.count, 0);
    assert.equal((await call(s.base, 'GET', '/admin/gdpr/u7/restriction', who.admin)).json.restricted, false);
    const wrong = await call(s.base, 'POST', '/admin/gdpr/u7', who.admin);
    assert.equal(wrong.status, 405);
    assert.equal((await call(s.base, 'GET', '/admin/gdpr/u7/other', who.admin)).status, 404);
  });

  test('an admin writes for any user; authenticate failing or answering nonsense is a 500 answer', async () => {
    const r = await put(s.base, { userId: 'u9', key: 'k', value: 1, visibility: 'global' }, { user: 'root', admin: true });
    assert.equal(r.status, 201);
    for (const auth of [() => { throw new Error('idp down'); }, () => ({ userId: 42 }), async () => Promise.reject(new Error('x'))]) {
      const handler = createMemoryHandler({ entries: new InMemoryEntryStore(), authenticate: auth });
      const res = await handler(new Request('http://x/usermemorystore/memories/u1'));
      assert.deepEqual([res.status, (await res.json()).error.code], [500, 'E_HOST']);
    }
  });
});

describe('bad input', () => {
  let s;
  before(async () => {
    s = await startServer({ entries: new JsStore() });
  });
  after(() => s.close());

  test('a body over 1 MiB is 413, declared or streamed without a length', async () => {
    const declared = await raw(s.base, { method: 'PUT', path: M, headers: { ...as('u1'), ...JSON_TYPE, 'content-length': String(MAX_BODY_BYTES + 1) }, chunks: ['x'.repeat(MAX_BODY_BYTES + 1)] });
    assert.equal(declared.status, 413);
    assert.equal(JSON.parse(declared.body).error.code, 'E_TOO_LARGE');
    const chunk = 'x'.repeat(64 * 1024);
    const streamed = await raw(s.base, { method: 'PUT', path: M, headers: { ...as('u1'), ...JSON_TYPE, 'transfer-encoding': 'chunked' }, chunks: Array(17).fill(chunk) });
    assert.equal(streamed.status, 413);
    const exact = await call(s.base, 'PUT', M, { body: JSON.stringify({ userId: 'u1', key: 'k', visibility: 'global', value: 'v' }).padEnd(MAX_BODY_BYTES, ' ') });
    assert.equal(exact.status, 201, 'exactly 1 MiB is accepted');
  });

  test('invalid JSON is 400, a wrong content type 415, invalid UTF-8 400', async () => {
    const broken = await call(s.base, 'PUT', M, { body: '{"userId":' });
    assert.deepEqual([broken.status, broken.json.error.code], [400, 'E_BAD_REQUEST']);
    const text = await call(s.base, 'PUT', M, { body: '{}', headers: { 'content-type': 'text/plain' } });
    assert.deepEqual([text.status, text.json.error.code], [415, 'E_UNSUPPORTED_MEDIA_TYPE']);
    const none = await raw(s.base, { method: 'PUT', path: M, headers: as('u1'), chunks: ['{}'] });
    assert.equal(none.status, 415);
    const latin = await raw(s.base, { method: 'PUT', path: M, headers: { ...as('u1'), ...JSON_TYPE }, chunks: [Buffer.from([0x7b, 0xff, 0x7d])] });
    assert.equal(latin.status, 400);
  });

  test('encoded traversal and NUL in path segments are 400, never a lookup', async () => {
    for (const path of [`${M}/..%2Fu2`, `${M}/u1%00`, `${M}/u1/key/..%2F..%2Fetc`, `${M}/u1/key/a%5Cb`, `${M}/u1/key/%0Ax`, '/propertiesstore/properties/u1%2F..%2Fu2', `${M}/u1/key/%E0%A4%A`]) {
      const r = await raw(s.base, { path, headers: as('u1') });
      assert.deepEqual([r.status, JSON.parse(r.body).error.code], [400, 'E_BAD_REQUEST'], path);
    }
    // `%2e%2e` is a dot segment to the URL standard (every Fetch runtime resolves it before a
    // handler sees the URL): it can only name another route, whose principal rules still apply.
    const dots = await raw(s.base, { path: `${M}/u2/key/%2e%2e`, headers: as('u1') });
    assert.equal(dots.status, 403);
  });

  test('an unknown route is 404; a wrong method is 405 with Allow', async () => {
    for (const path of ['/', '/nope', `${M}/u1/unknown`, `${M}/u1/key/a/b`, '/usermemorystore', '/propertiesstore/properties']) {
      const r = await call(s.base, 'GET', path);
      assert.deepEqual([r.status, r.json.error.code], [404, 'E_NOT_FOUND'], path);
    }
    const cases = [
      ['GET', M, 'PUT'],
      ['POST', `${M}/u1`, 'GET, DELETE, HEAD'],
      ['PUT', `${M}/u1/count`, 'GET, HEAD'],
      ['GET', `${M}/entry/x`, 'DELETE'],
      ['PATCH', '/propertiesstore/properties/u1', 'GET, PUT, DELETE, HEAD'],
      ['PUT', '/mcp', 'POST'],
    ];
    for (const [method, path, allowHeader] of cases) {
      const r = await call(s.base, method, path);
      assert.deepEqual([r.status, r.headers.get('allow'), r.json.error.code], [405, allowHeader, 'E_METHOD_NOT_ALLOWED'], `${method} ${path}`);
    }
  });

  test('limit non-numeric, negative, zero or 10^9 and an unknown order are 400 with the field named', async () => {
    for (const q of ['limit=abc', 'limit=-1', 'limit=0', 'limit=1000000000', 'limit=1e3', 'limit=2.5', 'order=oldest']) {
      const r = await call(s.base, 'GET', `${M}/u1/visible?agentId=a&${q}`);
      assert.equal(r.status, 400, q);
      assert.equal(r.json.error.violations.length, 1, q);
      assert.equal(r.json.error.violations[0].field, q.split('=')[0], q);
    }
    const noAgent = await call(s.base, 'GET', `${M}/u1/visible`);
    assert.deepEqual(noAgent.json.error.violations.map((v) => v.field), ['agentId']);
    const noQuery = await call(s.base, 'GET', `${M}/u1/search`);
    assert.equal(noQuery.status, 400);
  });

  test('every write rule violation comes back at once; _gdpr_ keys are refused on every write path', async () => {
    const r = await put(s.base, { key: '_gdpr_processing_restricted', visibility: 'group', category: 'secret', value: 'x'.repeat(70000) });
    assert.equal(r.status, 400);
    assert.deepEqual(r.json.error.violations.map((v) => v.field), ['userId', 'key', 'value', 'sourceAgentId', 'groupIds', 'category']);
    for (const body of [{ userId: 'u1', key: '_gdpr_x', visibility: 'global' }, { userId: 'u1', key: '  _gdpr_x', visibility: 'global' }]) {
      const refused = await put(s.base, body);
      assert.deepEqual([refused.status, refused.json.error.violations[0].field], [400, 'key']);
    }
    const props = await call(s.base, 'PUT', '/propertiesstore/properties/u1', { body: { _gdpr_processing_restricted: true } });
    assert.equal(props.status, 400);
    for (const body of [[1], 'text', null]) assert.equal((await put(s.base, body)).status, 400);
    assert.deepEqual(s.entries.entries.filter((e) => e.key.includes('_gdpr_')), []);
  });

  test('a value nested too deeply for the core is a 400 answer, and the next request works', async () => {
    const deep = `{"userId":"u1","key":"k","visibility":"global","value":${'['.repeat(100000)}${']'.repeat(100000)}}`;
    const r = await put(s.base, deep);
    assert.deepEqual([r.status, r.json.error.code], [400, 'E_ARGUMENT']);
    assert.equal((await call(s.base, 'GET', `${M}/u1/count`)).status, 200);
  });

  test('a request id must not name another entry (no overwrite of someone else\'s entry by id)', async () => {
    const other = await put(s.base, { userId: 'u2', key: 'note', value: 's', visibility: 'global' }, { user: 'u2' });
    const r = await put(s.base, { id: other.json.entry.id, userId: 'u1', key: 'mine', value: 'm', visibility: 'global' });
    // Another user's id: 409 E_CONFLICT, never naming (or changing) their entry.
    assert.deepEqual([r.status, r.json.error.code], [409, 'E_CONFLICT']);
    assert.equal(JSON.stringify(r.json).includes('"s"'), false);
    assert.equal((await s.entries.get(other.json.entry.id)).value, 's');
    // The user's own other entry: still a write-rule violation.
    const mine = await put(s.base, { userId: 'u1', key: 'first', value: 1, visibility: 'global' });
    const again = await put(s.base, { id: mine.json.entry.id, userId: 'u1', key: 'second', value: 2, visibility: 'global' });
    assert.deepEqual([again.status, again.json.error.violations[0].field], [400, 'id']);
  });

  test('a failing store is a 500 answer with E_HOST and the store\'s reason; the next request works', async () => {
    s.entries.failing = true;
    const r = await call(s.base, 'GET', `${M}/u1`);
    assert.deepEqual([r.status, r.json.error.code], [500, 'E_HOST']);
    assert.match(r.json.error.message, /database unavailable/);
    s.entries.failing = false;
    assert.equal((await call(s.base, 'GET', `${M}/u1`)).status, 200);
  });

  test('the handler never throws: odd requests are answers', async () => {
    const handler = createMemoryHandler({ entries: new InMemoryEntryStore(), authenticate });
    for (const request of [{}, null, new Request('http://x/usermemorystore/memories', { method: 'PUT', headers: { ...as('u1'), ...JSON_TYPE }, body: '{' })]) {
      const res = await handler(request);
      assert.ok(res instanceof Response);
      assert.ok(res.status >= 400 && res.status < 600);
      assert.match((await res.json()).error.code, /^E_[A-Z_]+$/);
    }
  });
});

describe('the cap and the mount path', () => {
  test('maxEntriesPerUser over REST: reject → 409 E_CAPACITY; evict_oldest evicts the agent\'s own stalest', async () => {
    const rejecting = await startServer({ config: { maxEntriesPerUser: 1, onCapReached: 'reject' } });
    try {
      assert.equal((await put(rejecting.base, { userId: 'u1', key: 'a', value: 1, visibility: 'self', sourceAgentId: 'x' })).status, 201);
      const full = await put(rejecting.base, { userId: 'u1', key: 'b', value: 1, visibility: 'self', sourceAgentId: 'x' });
      assert.deepEqual([full.status, full.json.error], [409, { code: 'E_CAPACITY', message: '⚠️ Memory capacity reached (1/1). Cannot store more facts.' }]);
    } finally {
      await rejecting.close();
    }
    const evicting = await startServer({ entries: new PushedStore(), config: { maxEntriesPerUser: 1 } });
    try {
      await put(evicting.base, { userId: 'u1', key: 'a', value: 1, visibility: 'self', sourceAgentId: 'x' });
      const next = await put(evicting.base, { userId: 'u1', key: 'b', value: 2, visibility: 'self', sourceAgentId: 'x' });
      assert.deepEqual([next.status, next.json.evicted], [201, ['a']]);
      assert.ok(evicting.entries.calls.get('insertWithinCap') >= 2, 'the atomic capped insert is used');
      assert.deepEqual((await call(evicting.base, 'GET', `${M}/u1`)).json.entries.map((e) => e.key), ['b']);
    } finally {
      await evicting.close();
    }
  });

  test('concurrent writes of one user over a slow store without insertWithinCap keep the cap and one entry per identity', async () => {
    const slow = await startServer({ entries: new SlowStore(), config: { maxEntriesPerUser: 5, onCapReached: 'reject' } });
    try {
      const news = await Promise.all(Array.from({ length: 20 }, (_, i) => put(slow.base, { userId: 'u1', key: `k${i}`, value: i, visibility: 'global' })));
      assert.deepEqual(news.map((r) => r.status).sort(), [...Array(5).fill(201), ...Array(15).fill(409)]);
      const same = await Promise.all(Array.from({ length: 10 }, (_, i) => put(slow.base, { userId: 'u2', key: 'city', value: `v${i}`, visibility: 'global' }, { user: 'u2' })));
      assert.equal(same.filter((r) => r.status === 201).length, 1, 'one create, then updates of that entry');
      assert.equal(slow.entries.entries.filter((e) => e.userId === 'u1').length, 5);
      assert.equal(slow.entries.entries.filter((e) => e.userId === 'u2').length, 1);
    } finally {
      await slow.close();
    }
  });

  test('basePath mounts every route below it; misuse of the options throws at creation', async () => {
    const mounted = await startServer({ basePath: '/api/memory/' });
    try {
      assert.equal((await call(mounted.base, 'GET', `/api/memory${M}/u1/count`)).status, 200);
      assert.equal((await call(mounted.base, 'GET', `${M}/u1/count`)).status, 404);
      assert.equal((await call(mounted.base, 'GET', `/api/memoryX${M}/u1/count`)).status, 404);
    } finally {
      await mounted.close();
    }
    assert.throws(() => createMemoryHandler({ entries: new InMemoryEntryStore() }), { code: 'E_ARGUMENT' });
    assert.throws(() => createMemoryHandler({ authenticate }), { code: 'E_ARGUMENT' });
    assert.throws(() => createMemoryHandler({ entries: new InMemoryEntryStore(), authenticate, basePath: 'api' }), { code: 'E_ARGUMENT' });
    assert.throws(() => createMemoryHandler({ entries: new InMemoryEntryStore(), authenticate, config: { recallOrder: 'oldest' } }), { code: 'E_CONFIG' });
    assert.throws(() => toNodeListener('nope'), { code: 'E_ARGUMENT' });
  });
});

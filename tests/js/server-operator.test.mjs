// The operators' routes of memcore/server (issue 43, behaviour §8.7) on every SQL store: a page of
// users with counts, last activity and the restriction flag (prefix search, paging, tenants kept
// apart), a user's profile read and saved by an administrator with its token meter and
// diagnostics, a page of entries (newest first, filters), the newest episodes without a query,
// Dream run now and its last reports — and every one closed to a principal without `admin`.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as m from 'memcore';
import { createMemoryHandler } from 'memcore/server';
import { BACKENDS } from '../support/sql-backends.mjs';

const NOW = '2026-12-01T10:00:00.000Z';

/** `authorization: Bearer <userId>`; `x-admin: yes` an administrator; `x-tenant: T` a tenant. */
function authenticate(request) {
  const header = request.headers.get('authorization');
  if (!header?.startsWith('Bearer ')) return null;
  const tenant = request.headers.get('x-tenant');
  return { userId: header.slice(7), admin: request.headers.get('x-admin') === 'yes', ...(tenant ? { tenantId: tenant } : {}) };
}

/**
 * 41 entries of one user with every filter's values, ties in `updatedAt`, one entry of unknown
 * writer and a reserved `_gdpr_` entry, written straight into `store` (writtenBy as given).
 */
async function seedPager(store) {
  const kinds = ['learned', 'agent', 'rest', 'mcp', 'dream', 'migration', null];
  for (let i = 0; i < 40; i += 1) {
    const at = `2026-11-${String(1 + (i % 13)).padStart(2, '0')}T10:00:00.000Z`; // ties
    await store.upsert({
      id: `p-${String((i * 17) % 40).padStart(2, '0')}`, userId: 'pager', key: `k${i}`, value: i, category: ['fact', 'preference', 'context'][i % 3],
      visibility: ['global', 'self', 'group'][i % 3], sourceAgentId: i % 3 === 0 ? null : `agent-${i % 2}`, groupIds: i % 3 === 2 ? ['g'] : [],
      sourceConversationId: null, conflicted: false, accessCount: 0, createdAt: at, updatedAt: at, ...(kinds[i % 7] ? { writtenBy: kinds[i % 7] } : {}),
    });
  }
  await store.upsert({ id: 'p-gdpr', userId: 'pager', key: '_gdpr_restricted', value: { restricted: false }, category: 'fact', visibility: 'global', sourceAgentId: null,
    groupIds: [], sourceConversationId: null, conflicted: false, accessCount: 0, createdAt: NOW, updatedAt: NOW, writtenBy: 'rest' });
}

/** Every filter the entries page takes, alone and combined. */
const PAGER_FILTERS = [{}, { category: 'preference' }, { visibility: 'self' }, { agentId: 'agent-1' }, { writtenBy: 'learned' }, { writtenBy: 'written' },
  { writtenBy: 'mcp' }, { writtenBy: 'unknown' }, { category: 'fact', writtenBy: 'written' }, { visibility: 'group', agentId: 'agent-0', writtenBy: 'agent' }, { category: 'none' }];

/** What the page must be: the core's list (recency order), filtered, then sliced. */
async function expectedPage(store, filter, limit, offset) {
  const kept = (await m.listUserMemories(store, 'pager')).filter((e) => (filter.category === undefined || e.category === filter.category)
    && (filter.visibility === undefined || e.visibility === filter.visibility)
    && (filter.agentId === undefined || e.sourceAgentId === filter.agentId)
    && (filter.writtenBy === undefined || (filter.writtenBy === 'written' ? e.writtenBy !== undefined && e.writtenBy !== 'learned' : filter.writtenBy === 'unknown' ? e.writtenBy === undefined : e.writtenBy === filter.writtenBy)));
  return { entries: kept.slice(offset, offset + limit), total: kept.length };
}

const pageQuery = (filter, limit, offset) => new URLSearchParams({ limit: String(limit), offset: String(offset), ...filter }).toString();

for (const kind of ['sqlite-file', 'postgres', 'd1']) {
  describe(`operator routes on ${kind}`, () => {
    let b;
    let handler;
    before(async () => {
      b = await BACKENDS[kind]();
      await b.reset();
      const store = b.store;
      let t = 0;
      const now = () => new Date(Date.parse(NOW) + 1000 * t++).toISOString();
      for (const [userId, n] of [['alice', 3], ['bob', 1], ['carol', 2], ['dave', 1], ['erin', 1]]) {
        for (let i = 0; i < n; i += 1) {
          await m.upsertUserMemory(store, { userId, key: `k${i}`, value: `${userId} ${i}`, category: i === 0 ? 'preference' : 'fact', visibility: 'global' }, { now });
        }
      }
      await m.setProcessingRestriction(store, 'carol', true, { now, admin: true });
      // Episodes only: a user with no entries is listed too.
      await m.learnFromTurn({ store, model: async () => '{"facts":[]}', userId: 'frank', agentId: 'a', conversationId: 'c1', at: '2026-12-01T09:00:00Z', now: () => '2026-12-01T09:30:00Z',
        messages: [{ role: 'user', content: 'first message' }, { role: 'assistant', content: 'a reply' }] });
      await m.upsertUserMemory(store.forTenant('acme'), { userId: 'alice', key: 'tenant', value: 'acme', visibility: 'global' }, { now });
      const profiles = new m.ContextMemory({ storage: store, entries: store, now: () => NOW });
      const model = async ({ purpose }) => (purpose === 'extract' ? '{"facts":[{"key":"home_city","value":"Lisbon"}]}' : 'NOOP');
      handler = createMemoryHandler({ entries: store, profiles, authenticate, now: () => NOW, model });
    });
    after(async () => {
      await b?.stop();
    });
    const call = async (path, { admin = true, user = 'ops', tenant, method = 'GET', body } = {}) => {
      const headers = { authorization: `Bearer ${user}`, ...(admin ? { 'x-admin': 'yes' } : {}), ...(tenant ? { 'x-tenant': tenant } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
      const response = await handler(new Request(`http://127.0.0.1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
      return { status: response.status, json: await response.json() };
    };

    test('GET /admin/users: a page in id order, counts, last activity, the restriction, prefix and paging, tenants apart', async () => {
      const first = await call('/admin/users?limit=3');
      assert.equal(first.status, 200);
      assert.deepEqual(first.json.users.map((u) => u.userId), ['alice', 'bob', 'carol']);
      assert.equal(first.json.next, 'carol');
      const [alice, , carol] = first.json.users;
      assert.deepEqual(alice, { userId: 'alice', entries: 3, episodes: 0, lastActivity: alice.lastActivity, restricted: false });
      assert.match(alice.lastActivity, /^2026-12-01T10:00:0\dZ|^2026-12-01T10:00:0\d\.\d{3}Z$/);
      assert.equal(carol.restricted, true);
      assert.equal(carol.entries, 2, 'the reserved flag is not counted');
      const second = await call(`/admin/users?limit=3&after=${first.json.next}`);
      assert.deepEqual(second.json.users.map((u) => u.userId), ['dave', 'erin', 'frank']);
      assert.equal(second.json.next, null);
      assert.deepEqual(second.json.users[2], { userId: 'frank', entries: 0, episodes: 2, lastActivity: '2026-12-01T09:00:00.001Z', restricted: false });
      assert.deepEqual((await call('/admin/users?prefix=ca')).json.users.map((u) => u.userId), ['carol']);
      const tenant = await call('/admin/users', { tenant: 'acme' });
      assert.deepEqual(tenant.json.users.map((u) => [u.userId, u.entries]), [['alice', 1]]);
      assert.equal((await call('/admin/users?limit=0')).status, 400);
      assert.equal((await call('/admin/users', { admin: false })).status, 403);
    });

    test('GET/PUT /admin/profiles/{userId}: the profile with its token meter and diagnostics, saved as the user would', async () => {
      const none = await call('/admin/profiles/bob');
      assert.equal(none.status, 200);
      assert.equal(none.json.exists, false);
      assert.equal(none.json.tokens, 0);
      assert.equal(none.json.maxTokens, 2000);
      const saved = await call('/admin/profiles/bob', { method: 'PUT', body: { body: '## Identity\n- Name: Bob\n## Bogus Section\n- x\n' } });
      assert.equal(saved.status, 200);
      assert.equal(saved.json.saved, true);
      assert.equal(saved.json.exists, true);
      assert.ok(saved.json.tokens > 5);
      assert.match(saved.json.body, /- Name: Bob/);
      const again = await call('/admin/profiles/bob');
      assert.equal(again.json.exists, true);
      assert.ok(Array.isArray(again.json.diagnostics));
      assert.equal((await call('/admin/profiles/..%2Fetc')).status, 400);
      assert.equal((await call('/admin/profiles/bob', { admin: false, user: 'bob' })).status, 403);
    });

    test('a page of entries: newest first, total, filters; without limit the whole list as before', async () => {
      const page = await call('/usermemorystore/memories/alice?limit=2&offset=0');
      assert.equal(page.json.total, 3);
      assert.deepEqual(page.json.entries.map((e) => e.key), ['k2', 'k1']);
      assert.deepEqual((await call('/usermemorystore/memories/alice?limit=2&offset=2')).json.entries.map((e) => e.key), ['k0']);
      const prefs = await call('/usermemorystore/memories/alice?limit=10&category=preference');
      assert.deepEqual([prefs.json.total, prefs.json.entries.map((e) => e.key)], [1, ['k0']]);
      const all = await call('/usermemorystore/memories/alice');
      assert.equal(all.json.entries.length, 3);
      assert.equal(all.json.total, undefined);
      assert.equal((await call('/usermemorystore/memories/alice?limit=5000')).status, 400);
    });

    test('entryPage (the page of GET …/{userId}?limit=): the core\'s list filtered and sliced, for every filter, in two statements; bad arguments are E_ARGUMENT', async () => {
      const store = b.store.forTenant('pages');
      await seedPager(store);
      const pageOf = (filter, limit, offset) => ({ userId: 'pager', limit, offset, ...filter });
      for (const filter of PAGER_FILTERS) {
        for (const [limit, offset] of [[7, 0], [7, 7], [7, 35], [1000, 0], [5, 40]]) {
          const expected = await expectedPage(store, filter, limit, offset);
          assert.deepEqual(await store.entryPage(pageOf(filter, limit, offset)), expected, JSON.stringify([filter, limit, offset]));
        }
      }
      assert.equal((await store.entryPage({ userId: 'pager', limit: 1000 })).total, 40, 'the reserved entry is not listed');
      assert.deepEqual(await b.store.entryPage({ userId: 'pager' }), { entries: [], total: 0 }, 'another tenant');
      assert.deepEqual(await store.entryPage({ userId: 'pa\u001fger' }), { entries: [], total: 0 });
      for (const [query, field] of [[{ userId: 1 }, 'userId'], [{ userId: 'pager', limit: 0 }, 'limit'], [{ userId: 'pager', limit: 1001 }, 'limit'], [{ userId: 'pager', offset: -1 }, 'offset'],
        [{ userId: 'pager', offset: 1.5 }, 'offset'], [{ userId: 'pager', category: 3 }, 'category'], [{ userId: 'pager', writtenBy: 'someone' }, 'writtenBy']]) {
        await assert.rejects(store.entryPage(query), (e) => e.code === 'E_ARGUMENT' && e.details?.argument === field, JSON.stringify(query));
      }
      // Over HTTP (the tenant's handler), the same pages.
      const tenantHandler = createMemoryHandler({ entries: b.store, authenticate, now: () => NOW });
      for (const filter of PAGER_FILTERS) {
        const response = await tenantHandler(new Request(`http://127.0.0.1/usermemorystore/memories/pager?${pageQuery(filter, 7, 7)}`, { headers: { authorization: 'Bearer ops', 'x-admin': 'yes', 'x-tenant': 'pages' } }));
        assert.deepEqual(await response.json(), await expectedPage(store, filter, 7, 7));
      }
    });

    test('the newest episodes without a query, per conversation', async () => {
      const list = await call('/usermemorystore/memories/frank/episodes');
      assert.equal(list.status, 200);
      assert.deepEqual(list.json.episodes.map((e) => [e.role, e.text]), [['assistant', 'a reply'], ['user', 'first message']]);
      assert.equal(list.json.total, 2);
      assert.deepEqual((await call('/usermemorystore/memories/frank/episodes?conversationId=other')).json.episodes, []);
    });

    test('POST …/{userId}/learn learns from a turn with the handler\'s model: the report, the fact stored, the episodes kept', async () => {
      const turn = { conversationId: 'c9', agentId: 'assistant', at: '2026-11-30T08:00:00Z', messages: [{ role: 'system', content: 'never learned' }, { role: 'user', content: 'I moved to Lisbon.' }, { role: 'assistant', content: 'Noted!' }] };
      const learned = await call('/usermemorystore/memories/gina/learn', { admin: false, user: 'gina', method: 'POST', body: turn });
      assert.equal(learned.status, 200);
      assert.equal(learned.json.outcome, 'learned');
      assert.deepEqual(learned.json.facts.map((f) => [f.key, f.action]), [['home_city', 'added']]);
      assert.equal(learned.json.episodes.length, 2);
      const stored = (await call('/usermemorystore/memories/gina', { admin: false, user: 'gina' })).json.entries;
      assert.deepEqual(stored.map((e) => [e.key, e.value, e.sourceAgentId, e.sourceConversationId]), [['home_city', 'Lisbon', 'assistant', 'c9']]);
      // The entries page tells learned facts from written ones (`writtenBy`).
      assert.equal(stored[0].writtenBy, 'learned');
      await m.upsertUserMemory(b.store, { userId: 'gina', key: 'plan', value: 'pro', visibility: 'global' }, { now: () => NOW });
      const keys = async (writtenBy) => (await call(`/usermemorystore/memories/gina?limit=10&writtenBy=${writtenBy}`)).json.entries.map((e) => [e.key, e.writtenBy]);
      assert.deepEqual(await keys('learned'), [['home_city', 'learned']]);
      assert.deepEqual(await keys('written'), [['plan', 'rest']]);
      assert.deepEqual(await keys('rest'), [['plan', 'rest']]);
      assert.deepEqual([await keys('agent'), await keys('unknown')], [[], []]);
      const bad = await call('/usermemorystore/memories/gina?limit=10&writtenBy=someone');
      assert.equal(bad.status, 400);
      assert.match(bad.json.error.message, /writtenBy must be one of learned, written, agent/);
      assert.equal((await call('/usermemorystore/memories/gina/learn', { admin: false, user: 'mallory', method: 'POST', body: turn })).status, 403);
      assert.equal((await call('/usermemorystore/memories/gina/learn', { admin: false, user: 'gina', method: 'POST', body: { messages: [] } })).status, 400);
    });

    test('POST /admin/dream/{userId} runs Dream now; GET /admin/dream lists the runs, newest first', async () => {
      const run = await call('/admin/dream/alice', { method: 'POST' });
      assert.equal(run.status, 200);
      assert.equal(run.json.report.userId, 'alice');
      assert.equal(run.json.report.error, undefined, JSON.stringify(run.json.report.error));
      assert.equal(typeof run.json.report.pruned, 'number');
      await call('/admin/dream/bob', { method: 'POST' });
      const runs = await call('/admin/dream');
      assert.deepEqual(runs.json.runs.map((r) => r.userId), ['bob', 'alice']);
      assert.deepEqual((await call('/admin/dream?userId=alice')).json.runs.map((r) => r.userId), ['alice']);
      assert.equal(runs.json.runs[0].at, NOW);
      assert.equal((await call('/admin/dream/alice', { method: 'POST', admin: false })).status, 403);
      assert.equal((await call('/admin/dream/alice')).status, 405);
    });
  });
}

test('a store that cannot list its users, a handler without a model: 501 E_NOT_SUPPORTED', async () => {
  const handler = createMemoryHandler({ entries: new m.InMemoryEntryStore(), authenticate });
  const response = await handler(new Request('http://127.0.0.1/admin/users', { headers: { authorization: 'Bearer ops', 'x-admin': 'yes' } }));
  assert.equal(response.status, 501);
  assert.equal((await response.json()).error.code, 'E_NOT_SUPPORTED');
  const learn = await handler(new Request('http://127.0.0.1/usermemorystore/memories/u1/learn', { method: 'POST', headers: { authorization: 'Bearer u1', 'content-type': 'application/json' }, body: JSON.stringify({ conversationId: 'c', messages: [] }) }));
  assert.equal(learn.status, 501);
  assert.match((await learn.json()).error.message, /learning needs a model/);
});

test('a store without entryPage (the in-memory store), or a page as of a past time: the same pages, read whole and paged by the handler', async () => {
  const store = new m.InMemoryEntryStore();
  await seedPager(store);
  const handler = createMemoryHandler({ entries: store, authenticate, now: () => NOW });
  const get = async (query) => (await handler(new Request(`http://127.0.0.1/usermemorystore/memories/pager?${query}`, { headers: { authorization: 'Bearer ops', 'x-admin': 'yes' } }))).json();
  for (const filter of PAGER_FILTERS) {
    for (const [limit, offset] of [[7, 0], [7, 35], [1000, 0]]) {
      assert.deepEqual(await get(pageQuery(filter, limit, offset)), await expectedPage(store, filter, limit, offset), JSON.stringify([filter, limit, offset]));
    }
  }
  assert.equal((await get('limit=5&writtenBy=anyone')).error.code, 'E_BAD_REQUEST');
});


// Tenants (issue 24, SPEC §8.5) through the installed package: one database (or one in-memory
// store) holds tenants "acme", "globex" and the default tenant, each with the SAME user ids and
// the SAME entry ids (each tenant's id generator starts over), so every lookup by user or by id
// would cross if anything were shared. On every store — the in-memory store, SQLite on a file,
// PostgreSQL and D1 (each started for real) — every tool, store operation, search, recall, history
// read, audit read, Dream run, embedding backfill, export, import and erasure of one tenant leaves
// the others exactly as they were; then the same through memcore/server's REST routes and both
// MCP endpoints, with the tenant taken from the principal.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as m from 'memcore';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import { FileSystemProfileStorage } from 'memcore/adapters/fs';
import { openSqlite } from 'memcore/adapters/sqlite';
import { createMemoryHandler, toNodeListener } from 'memcore/server';
import { BACKENDS } from '../support/sql-backends.mjs';

const STORES = ['memory', 'sqlite-file', 'postgres', 'd1'];
const TENANTS = ['acme', 'globex', null]; // null: the default tenant
const CITY = { acme: 'Porto', globex: 'Lisbon', default: 'Faro' };
const name = (t) => t ?? 'default';
const NOW = '2026-05-10T00:00:00.000Z';
const H6 = ['Identity', 'Communication Preferences', 'Work Context', 'Skills & Expertise', 'Recent Topics', 'Follow-ups'];
const profileBody = (line) => '# User Memory\n\n' + H6.map((h, i) => `## ${h}\n${i === 0 ? line : '_(empty)_'}`).join('\n\n') + '\n';
const isCode = (code) => (e) => e instanceof m.MemcoreError && e.code === code;

function counter(prefix) {
  let n = 0;
  return () => `${prefix}-${++n}`;
}

/** What a tenant's store holds of users u1 and u2, as plain data (ids, keys, values, history, audit operations). */
async function snapshot(store) {
  const out = {};
  for (const userId of ['u1', 'u2']) {
    out[userId] = {
      entries: (await m.listUserMemories(store, userId)).map((e) => [e.id, e.userId, e.key, e.value, e.sourceAgentId]),
      count: await m.countUserMemories(store, userId),
      history: (await m.entryHistory({ store, userId, key: 'city' })).versions.map((v) => [v.entryId, v.value, v.reason]),
    };
  }
  out.audit = (await m.auditLog({ store, limit: 1000 })).map((r) => [r.operation, r.userId]);
  return out;
}

for (const kind of STORES) {
  describe(`tenants on ${kind}`, () => {
    let backend;
    let root;
    before(async () => {
      if (kind === 'memory') {
        root = new m.InMemoryEntryStore();
      } else {
        backend = await BACKENDS[kind]();
        root = backend.store;
      }
    });
    after(async () => backend?.stop());
    const storeOf = (t) => (t === null ? root : root.forTenant(t));

    test('equal user ids and equal entry ids in three tenants: tools, reads, search, history and audit never cross', async () => {
      await backend?.reset();
      // The same writes in every tenant, ids from a generator that starts over per tenant.
      for (const t of TENANTS) {
        const store = storeOf(t);
        const newId = counter('e');
        const a = m.createMemoryTools({ store, userId: 'u1', agentId: 'agent-a', now: () => NOW, newId });
        const b = m.createMemoryTools({ store, userId: 'u1', agentId: 'agent-b', now: () => '2026-05-11T00:00:00.000Z', newId });
        assert.equal(await a.call('rememberFact', { key: 'city', value: CITY[name(t)], visibility: 'global' }), `✅ Remembered: city = ${CITY[name(t)]} [fact, global]`);
        await a.call('rememberFact', { key: 'tenant_note', value: `only ${name(t)}`, category: 'context' });
        // Another agent overwrites: history and an audit record in this tenant only.
        await b.call('rememberFact', { key: 'city', value: `${CITY[name(t)]} (moved)`, visibility: 'global' });
        const u2 = m.createMemoryTools({ store, userId: 'u2', agentId: 'agent-a', now: () => NOW, newId });
        await u2.call('rememberFact', { key: 'team', value: `${name(t)} team` });
      }
      for (const t of TENANTS) {
        const store = storeOf(t);
        const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'agent-a', now: () => NOW, newId: counter('never'), config: { search: { mode: 'terms' } } });
        const city = `${CITY[name(t)]} (moved)`;
        assert.equal(await tools.call('recallMemories', {}), `• city = ${city} [fact, global]\n• tenant_note = only ${name(t)} [context, self]`, name(t));
        assert.equal(await tools.call('searchMemory', { query: 'only' }), `• tenant_note = only ${name(t)} [context, self]`);
        assert.equal(await tools.call('searchMemory', { query: 'globex' }), t === 'globex' ? '• tenant_note = only globex [context, self]' : "No memories matching 'globex' found.");
        // Equal entry ids, each tenant's own row.
        const list = await m.listUserMemories(store, 'u1');
        assert.deepEqual(list.map((e) => [e.id, e.userId, e.value]), [['e-1', 'u1', city], ['e-2', 'u1', `only ${name(t)}`]]);
        assert.equal((await store.get('e-1')).value, city);
        assert.equal(await m.countUserMemories(store, 'u1'), 2);
        assert.equal((await m.getMemoryByKey(store, 'u1', 'city')).value, city);
        assert.deepEqual((await m.searchUserMemories(store, 'u1', 'moved')).map((e) => e.value), [city]);
        assert.deepEqual((await m.getVisibleMemories(store, { userId: 'u1', agentId: 'agent-b' })).entries.map((e) => e.value), [city]);
        const history = await m.entryHistory({ store, userId: 'u1', key: 'city' });
        assert.deepEqual(history.versions.map((v) => [v.entryId, v.value, v.reason, v.author.id]), [['e-1', CITY[name(t)], 'overwritten', 'agent-b']]);
        // The audit log of every user of the tenant: its own four writes, nobody else's.
        const audit = await m.auditLog({ store, limit: 100 });
        assert.deepEqual(audit.map((r) => [r.operation, r.userId]), [['write', 'u1'], ['write', 'u1'], ['write', 'u1'], ['write', 'u2']], name(t));
        if (kind === 'memory') assert.equal(store.size, 3);
      }
    });

    test("forgetting, deleting by id, Dream, the embedding backfill, export, erasure and import of one tenant leave the others' data as it was", async () => {
      const before = {};
      for (const t of ['globex', null]) before[name(t)] = await snapshot(storeOf(t));
      const acme = storeOf('acme');
      const tools = m.createMemoryTools({ store: acme, userId: 'u1', agentId: 'agent-a', now: () => NOW, newId: counter('x') });
      assert.equal(await tools.call('forgetFact', { key: 'tenant_note' }), '✅ Forgotten: tenant_note');
      // Equal ids: deleting e-1 in acme deletes acme's.
      const deleted = await m.deleteUserMemory(acme, 'e-1', { userId: 'u1', now: () => NOW });
      assert.deepEqual([deleted.outcome, deleted.entry.id, deleted.entry.value], ['deleted', 'e-1', 'Porto (moved)']);
      assert.equal(await m.countUserMemories(acme, 'u1'), 0);
      // A Dream run over acme's u2 (prune everything stale: all of it).
      await acme.upsert({ id: 'old-1', userId: 'u2', key: 'old', value: 'x', category: 'fact', visibility: 'self', sourceAgentId: 'agent-a', groupIds: [], sourceConversationId: null, conflicted: false, accessCount: 0, createdAt: '2025-01-01T00:00:00.000Z', updatedAt: '2025-01-01T00:00:00.000Z' });
      const report = await m.dream({ store: acme, userId: 'u2', agentId: 'agent-a', now: NOW, config: { dream: { enabled: true, pruneStaleAfterDays: 30 } } });
      assert.equal(report.pruned, 1);
      // The embedding backfill of every user of the tenant embeds acme's entries only.
      const embedded = [];
      const embedder = { model: 'fake-384', embed: async ({ texts }) => { embedded.push(...texts); return { vectors: texts.map(() => new Array(8).fill(0.5)) }; } };
      const reindex = await m.reindexEmbeddings(acme, embedder);
      assert.equal(reindex.embedded, embedded.length);
      assert.ok(embedded.every((text) => !/globex|default|Lisbon|Faro/.test(text)), embedded.join(' | '));
      // Export and erasure of acme's u2: only acme's.
      const exported = await m.exportUserData('u2', { entries: acme, now: () => NOW });
      assert.deepEqual(exported.entries.map((e) => [e.id, e.value]), [['e-3', 'acme team']]);
      const erased = await m.eraseUserData('u2', { entries: acme, now: () => NOW });
      assert.deepEqual(erased.entries, [1]);
      assert.deepEqual(await m.listUserMemories(acme, 'u2'), []);
      // Import into acme again: acme's only.
      const imported = await m.importUserData(exported, { entries: acme, now: () => NOW });
      assert.equal(imported.entries, 1);
      assert.deepEqual((await m.listUserMemories(acme, 'u2')).map((e) => e.value), ['acme team']);
      // globex and the default tenant: unchanged, byte for byte.
      for (const t of ['globex', null]) assert.deepEqual(await snapshot(storeOf(t)), before[name(t)], name(t));
    });

    test('ids holding U+001F reach nothing: refused on write, not found on read; bad tenant ids refused', async () => {
      if (kind === 'memory') {
        // The in-memory tenants are separate stores: no id names another's row at all.
        assert.equal(root.forTenant('acme'), root.forTenant('acme'), 'the same view for the same id');
        assert.equal(root.forTenant('acme').tenantId, 'acme');
      } else {
        const crafted = 'acme\u001fe-1';
        assert.equal(await root.get(crafted), null);
        assert.deepEqual(await root.list('acme\u001fu1'), []);
        assert.equal(await root.countUser('acme\u001fu1'), 0);
        await assert.rejects(root.upsert({ id: crafted, userId: 'u1', key: 'k', value: 'v', category: 'fact', visibility: 'global', sourceAgentId: null, groupIds: [], sourceConversationId: null, conflicted: false, accessCount: 0, createdAt: NOW, updatedAt: NOW }), isCode('E_ARGUMENT'));
        await assert.rejects(storeOf('globex').upsert({ id: 'g', userId: 'acme\u001fu1', key: 'k', value: 'v', category: 'fact', visibility: 'global', sourceAgentId: null, groupIds: [], sourceConversationId: null, conflicted: false, accessCount: 0, createdAt: NOW, updatedAt: NOW }), isCode('E_ARGUMENT'));
        assert.equal(await root.read('acme\u001fuser-memory/u1/memory.md'), null);
        if (kind !== 'd1') { // (the D1 store here is an RPC proxy of the one inside workerd)
          assert.equal(storeOf('acme').tenantId, 'acme');
          assert.equal(root.tenantId, null);
          assert.throws(() => storeOf('acme').forTenant('globex'), isCode('E_ARGUMENT'));
        }
      }
      if (kind !== 'd1') {
        for (const bad of ['', ' acme', 'ac\u001fme', 'a\nb', 'x'.repeat(129), 42, null, undefined, {}]) {
          assert.throws(() => root.forTenant(bad), isCode('E_ARGUMENT'), JSON.stringify(bad));
        }
      }
    });

    test('profiles: a ContextMemory per tenant over the same storage; equal user ids are different people', async () => {
      const storage = kind === 'memory' ? new InMemoryProfileStorage() : root;
      const memory = new m.ContextMemory({ storage });
      for (const t of TENANTS) {
        const cm = t === null ? memory : memory.forTenant(t);
        assert.equal(cm.tenantId, t);
        await cm.updateMyContextMemory('u1', profileBody(`- Works at ${name(t)}.`));
      }
      for (const t of TENANTS) {
        const cm = t === null ? memory : memory.forTenant(t);
        assert.match((await cm.getMyContextMemory('u1')).body, new RegExp(`Works at ${name(t)}\\.`));
        const loaded = await cm.load({ userId: 'u1', enabled: true });
        assert.match(JSON.stringify(loaded), new RegExp(`Works at ${name(t)}`));
        assert.doesNotMatch(JSON.stringify(loaded), new RegExp(TENANTS.filter((x) => x !== t).map(name).map((n) => `Works at ${n}\\.`).join('|')));
      }
      assert.equal(memory.forTenant('acme'), memory.forTenant('acme'));
      // Deleting acme's profile leaves the others.
      assert.equal(await memory.forTenant('acme').deleteContextMemory('u1'), true);
      assert.equal((await memory.forTenant('acme').getMyContextMemory('u1')).exists, false);
      assert.equal((await memory.forTenant('globex').getMyContextMemory('u1')).exists, true);
      assert.equal((await memory.getMyContextMemory('u1')).exists, true);
    });
  });
}

test('the file-system profile storage keeps each tenant in its own folder under .tenants/, distinct also without case', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'memcore-tenants-fs-'));
  try {
    const storage = new FileSystemProfileStorage({ baseDir: dir });
    const memory = new m.ContextMemory({ storage });
    for (const t of ['acme', 'Acme', 'ünï/..', null]) {
      await (t === null ? memory : memory.forTenant(t)).updateMyContextMemory('u1', profileBody(`- Tenant ${t}.`));
    }
    assert.deepEqual(readdirSync(join(dir, '.tenants')).sort(), ['acme', '~41636d65', '~c3bc6ec3af2f2e2e']);
    for (const t of ['acme', 'Acme', 'ünï/..', null]) {
      assert.match((await (t === null ? memory : memory.forTenant(t)).getMyContextMemory('u1')).body, new RegExp(`Tenant ${t === null ? 'null' : t.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\.`));
    }
    // The default tenant cannot write into the tenants' folder.
    await assert.rejects(storage.write('.tenants/acme/user-memory/u1/memory.md', 'x'), isCode('E_ARGUMENT'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a single-tenant SQLite database is the default tenant as it is: reopened, nothing lost; a tenant sees none of it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'memcore-tenants-migrate-'));
  const file = join(dir, 'memcore.db');
  try {
    const before = await openSqlite(file);
    const tools = m.createMemoryTools({ store: before, userId: 'u1', agentId: 'a', now: () => NOW, newId: counter('e') });
    await tools.call('rememberFact', { key: 'city', value: 'Porto', visibility: 'global' });
    await tools.call('rememberFact', { key: 'city', value: 'Braga', visibility: 'global' });
    await new m.ContextMemory({ storage: before }).updateMyContextMemory('u1', profileBody('- Ana.'));
    const kept = await snapshot(before);
    await before.close();

    const again = await openSqlite(file);
    assert.deepEqual(await snapshot(again), kept, 'nothing lost, nothing rewritten');
    assert.equal((await new m.ContextMemory({ storage: again }).getMyContextMemory('u1')).exists, true);
    await again.close();

    const acme = await openSqlite(file, { tenant: 'acme' });
    assert.equal(acme.tenantId, 'acme');
    assert.deepEqual(await m.listUserMemories(acme, 'u1'), []);
    assert.equal((await new m.ContextMemory({ storage: acme }).getMyContextMemory('u1')).exists, false);
    // The acme handle writes acme's rows; the default handle still sees its own two states only.
    await m.createMemoryTools({ store: acme, userId: 'u1', agentId: 'a', now: () => NOW, newId: counter('e') }).call('rememberFact', { key: 'city', value: 'Oslo', visibility: 'global' });
    await acme.close();
    const last = await openSqlite(file);
    assert.deepEqual(await snapshot(last), kept);
    // How it is stored: the tenant's prefix on its rows (docs/reference/storage.md, "Tenants").
    const rows = last.database.prepare('SELECT id, user_id FROM memcore_entries ORDER BY id').all();
    assert.deepEqual(rows, [{ id: 'acme\u001fe-1', user_id: 'acme\u001fu1' }, { id: 'e-1', user_id: 'u1' }]);
    await last.close();
    for (const bad of ['', 'a\u0000', 7]) {
      await assert.rejects(openSqlite(file, { tenant: bad }), isCode('E_CONFIG'), JSON.stringify(bad));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('memcore/server: the tenant comes from the principal, for every route and both MCP endpoints', () => {
  let server;
  let base;
  let backend;
  let root;
  let memory;
  before(async () => {
    backend = await BACKENDS['sqlite-file']();
    root = backend.store;
    memory = new m.ContextMemory({ storage: root });
    let n = 0;
    // Bearer <tenant|->:<user>[:admin]
    const authenticate = (request) => {
      const token = request.headers.get('authorization')?.replace(/^Bearer /, '');
      if (!token) return null;
      const [tenant, userId, role] = token.split(':');
      return { ...(tenant === '-' ? {} : { tenantId: tenant }), userId, admin: role === 'admin' };
    };
    const handler = createMemoryHandler({ entries: root, profiles: memory, authenticate, now: () => NOW, newId: () => `r-${++n}` });
    server = http.createServer(toNodeListener(handler));
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${server.address().port}`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await backend.stop();
  });
  const rest = async (token, method, path, body) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': typeof body === 'string' ? 'text/markdown' : 'application/json' }) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
  async function mcp(token, path) {
    const client = new Client({ name: 'tenants-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}${path}`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    return client;
  }
  const text = async (client, name, args = {}) => (await client.callTool({ name, arguments: args })).content?.[0]?.text ?? '';

  test('REST: writes, reads, delete by id, history, profile, export, audit and erasure stay in the principal tenant', async () => {
    for (const t of ['acme', 'globex', '-']) {
      const w = await rest(`${t}:u1`, 'PUT', '/usermemorystore/memories', { userId: 'u1', key: 'city', value: `city of ${t}`, visibility: 'global' });
      assert.equal(w.status, 201, JSON.stringify(w.body));
      assert.equal((await rest(`${t}:u1`, 'PUT', '/contextmemory/me', profileBody(`- In ${t}.`))).status, 200);
    }
    for (const t of ['acme', 'globex', '-']) {
      const list = await rest(`${t}:u1`, 'GET', '/usermemorystore/memories/u1');
      assert.deepEqual(list.body.entries.map((e) => [e.key, e.value]), [['city', `city of ${t}`]], t);
      assert.deepEqual((await rest(`${t}:u1`, 'GET', '/usermemorystore/memories/u1/count')).body, { count: 1 });
      assert.deepEqual((await rest(`${t}:u1`, 'GET', '/usermemorystore/memories/u1/search?q=city')).body.entries.map((e) => e.value), [`city of ${t}`]);
      assert.equal((await rest(`${t}:u1`, 'GET', '/usermemorystore/memories/u1/key/city')).body.entry.value, `city of ${t}`);
      assert.match((await rest(`${t}:u1`, 'GET', '/contextmemory/me')).body.body, new RegExp(`In ${t === '-' ? '-' : t}\\.`));
    }
    // Equal entry ids across tenants? The handler's ids differ here, so delete acme's by its id and
    // check globex's row with the same key stays; an acme admin erases u1 in acme only.
    const [acmeEntry] = (await rest('acme:u1', 'GET', '/usermemorystore/memories/u1')).body.entries;
    assert.equal((await rest('globex:u1', 'DELETE', `/usermemorystore/memories/entry/${acmeEntry.id}`)).status, 404, "globex cannot delete acme's entry by its id");
    assert.equal((await rest('acme:u1', 'DELETE', `/usermemorystore/memories/entry/${acmeEntry.id}`)).status, 200);
    assert.equal((await rest('globex:u1', 'GET', '/usermemorystore/memories/u1/count')).body.count, 1);
    assert.equal((await rest('-:u1', 'GET', '/usermemorystore/memories/u1/count')).body.count, 1);
    const history = await rest('acme:u1', 'GET', '/usermemorystore/memories/u1/key/city/history');
    assert.deepEqual(history.body.versions.map((v) => v.value), ['city of acme']);
    assert.deepEqual((await rest('globex:u1', 'GET', '/usermemorystore/memories/u1/key/city/history')).body.versions, []);
    // Admin routes: an acme admin sees acme's audit and erases acme's u1 only.
    const audit = await rest('acme:boss:admin', 'GET', '/admin/audit');
    assert.deepEqual(audit.body.records.map((r) => [r.operation, r.userId]), [['write', 'u1'], ['delete', 'u1']]);
    const exported = await rest('acme:boss:admin', 'GET', '/admin/gdpr/u1/export');
    assert.equal(exported.status, 200);
    assert.match(JSON.stringify(exported.body), /In acme\./);
    assert.doesNotMatch(JSON.stringify(exported.body), /globex|In -\./);
    assert.equal((await rest('acme:boss:admin', 'DELETE', '/admin/gdpr/u1')).status, 200);
    assert.equal((await rest('acme:u1', 'GET', '/contextmemory/me')).body.exists, false);
    assert.equal((await rest('globex:u1', 'GET', '/contextmemory/me')).body.exists, true);
    assert.equal((await rest('-:u1', 'GET', '/contextmemory/me')).body.exists, true);
    assert.equal((await rest('globex:u1', 'GET', '/usermemorystore/memories/u1/count')).body.count, 1);
    // The default tenant's admin does not see the tenants' audit records.
    assert.ok((await rest('-:root:admin', 'GET', '/admin/audit')).body.records.every((r) => r.userId === 'u1' && r.operation === 'write'));
  });

  test('REST, the remaining routes: properties, visible, delete-all, restriction, restore and asOf act in the principal tenant only', async () => {
    // Seed u9 in all three tenants, then run every route as acme and compare the others before/after.
    for (const t of ['acme', 'globex', '-']) {
      assert.equal((await rest(`${t}:u9`, 'PUT', '/usermemorystore/memories', { userId: 'u9', key: 'lang', value: `lang of ${t}`, visibility: 'global' })).status, 201);
      assert.equal((await rest(`${t}:u9`, 'PUT', '/propertiesstore/properties/u9', { theme: `theme of ${t}` })).status, 200);
    }
    const view = async (t) => ({
      entries: (await rest(`${t}:u9`, 'GET', '/usermemorystore/memories/u9')).body.entries.map((e) => [e.key, e.value]),
      properties: (await rest(`${t}:u9`, 'GET', '/propertiesstore/properties/u9')).body,
      restricted: (await rest(`${t}:root:admin`, 'GET', '/admin/gdpr/u9/restriction')).body.restricted,
    });
    const others = { globex: await view('globex'), '-': await view('-') };
    assert.deepEqual(others.globex.properties, { lang: 'lang of globex', theme: 'theme of globex' });
    const acme = (method, path, body) => rest('acme:u9', method, path, body);
    assert.deepEqual((await acme('GET', '/propertiesstore/properties/u9')).body, { lang: 'lang of acme', theme: 'theme of acme' });
    assert.deepEqual((await acme('GET', '/usermemorystore/memories/u9/visible?agentId=any')).body.entries.map((e) => e.value).sort(), ['lang of acme', 'theme of acme']);
    // Overwrite, then restore the old version by its id: acme's version, acme's entry.
    assert.equal((await acme('PUT', '/usermemorystore/memories', { userId: 'u9', key: 'lang', value: 'changed', visibility: 'global' })).status, 200);
    const [version] = (await acme('GET', '/usermemorystore/memories/u9/key/lang/history')).body.versions;
    assert.equal(version.value, 'lang of acme');
    assert.equal((await rest('globex:u9', 'POST', `/usermemorystore/memories/u9/versions/${encodeURIComponent(version.id)}/restore`)).status, 404, "globex cannot restore acme's version");
    assert.equal((await acme('POST', `/usermemorystore/memories/u9/versions/${encodeURIComponent(version.id)}/restore`)).status, 200);
    assert.deepEqual((await acme('GET', `/usermemorystore/memories/u9?asOf=${encodeURIComponent(NOW)}`)).body.entries.map((e) => e.value).sort(), ['lang of acme', 'theme of acme']);
    assert.equal((await acme('PUT', '/propertiesstore/properties/u9', { theme: 'dark' })).status, 200);
    assert.equal((await acme('DELETE', '/propertiesstore/properties/u9')).status, 200);
    assert.equal((await rest('acme:root:admin', 'PUT', '/admin/gdpr/u9/restriction', { restricted: true })).body.restricted, true);
    assert.equal((await rest('acme:root:admin', 'GET', '/admin/gdpr/u9/restriction')).body.restricted, true);
    assert.equal((await rest('acme:root:admin', 'PUT', '/admin/gdpr/u9/restriction', { restricted: false })).status, 200);
    assert.equal((await acme('DELETE', '/usermemorystore/memories/u9')).status, 200);
    assert.deepEqual((await acme('GET', '/usermemorystore/memories/u9')).body.entries, []);
    // The other tenants: exactly as before.
    assert.deepEqual({ globex: await view('globex'), '-': await view('-') }, others);
    assert.deepEqual([others.globex.restricted, others['-'].restricted], [false, false]);
  });

  test('MCP: the admin tools and the agent tools act in the principal tenant', async () => {
    const acme = await mcp('acme:u7', '/mcp/agent');
    const globex = await mcp('globex:u7', '/mcp/agent');
    try {
      assert.equal(await text(acme, 'rememberFact', { key: 'pet', value: 'cat', category: 'fact' }), '✅ Remembered: pet = cat [fact, self]');
      assert.equal(await text(globex, 'recallMemories'), 'No memories found for this user.');
      assert.equal(await text(globex, 'rememberFact', { key: 'pet', value: 'dog', category: 'fact' }), '✅ Remembered: pet = dog [fact, self]');
      assert.equal(await text(acme, 'recallMemories'), '• pet = cat [fact, self]');
      assert.equal(await text(globex, 'searchMemory', { query: 'cat' }), "No memories matching 'cat' found.");
    } finally {
      await acme.close();
      await globex.close();
    }
    const admin = await mcp('acme:boss:admin', '/mcp');
    try {
      const listed = JSON.parse(await text(admin, 'list_user_memories', { userId: 'u7' }));
      assert.deepEqual((listed.entries ?? listed).map((e) => e.value), ['cat']);
    } finally {
      await admin.close();
    }
    assert.deepEqual((await m.listUserMemories(root.forTenant('globex'), 'u7')).map((e) => e.value), ['dog']);
    assert.deepEqual(await m.listUserMemories(root, 'u7'), []);
  });

  test('a bad tenant id from authenticate is a host error; a store without forTenant is never shared between tenants', async () => {
    for (const bad of ['', ' x', 'a\u001fb', 'x'.repeat(129)]) {
      const handler = createMemoryHandler({ entries: root, authenticate: () => ({ tenantId: bad, userId: 'u1' }) });
      const response = await handler(new Request('http://x/usermemorystore/memories/u1'));
      assert.equal(response.status, 500, JSON.stringify(bad));
      assert.equal((await response.json()).error.code, 'E_HOST');
    }
    // A host store with no forTenant: the tenant's request fails (E_CONFIG), the default's works.
    const plain = { list: async () => [{ id: 'secret', userId: 'u1', key: 'k', value: 'default data', category: 'fact', visibility: 'global', sourceAgentId: null, groupIds: [], sourceConversationId: null, conflicted: false, accessCount: 0, createdAt: NOW, updatedAt: NOW }], get: async () => null, upsert: async () => {}, delete: async () => false, incrementAccess: async () => {}, countUser: async () => 1 };
    const handler = createMemoryHandler({ entries: plain, authenticate: (r) => ({ ...(r.headers.get('x-tenant') ? { tenantId: r.headers.get('x-tenant') } : {}), userId: 'u1' }) });
    const tenant = await handler(new Request('http://x/usermemorystore/memories/u1', { headers: { 'x-tenant': 'acme' } }));
    assert.equal(tenant.status, 500);
    const body = await tenant.json();
    assert.equal(body.error.code, 'E_CONFIG');
    assert.doesNotMatch(JSON.stringify(body), /default data/);
    const own = await handler(new Request('http://x/usermemorystore/memories/u1'));
    assert.equal(own.status, 200);
  });
});

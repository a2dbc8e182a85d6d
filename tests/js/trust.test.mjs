// Trust (issue 41), tried as a hostile user would, through the installed package on every store
// that applies — the in-memory store, SQLite on a file, PostgreSQL and D1 (each started for real):
// no user reaches another user's entry through a restore, an import or a reused id; every write
// refuses a user id erasure would refuse (and `findInvalidUserIds`/`eraseInvalidUserData` repair
// what was stored before); an erasure ends the user's access (their API keys) and leaves no row
// that names them (read back with SQL from every table). Each test asserts the safe outcome and
// that nothing else changed: the other user's entry byte for byte, the audit log.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as m from 'memcore';
import { InMemoryApiKeyStore, apiKeys } from 'memcore/server';
import { BACKENDS } from '../support/sql-backends.mjs';
import { prng } from '../support/prng.mjs';

const t0 = Date.parse('2026-05-01T00:00:00Z');
/** A clock that moves one second each time it is read. */
const ticking = () => {
  let n = 0;
  return () => new Date(t0 + 1000 * n++).toISOString();
};
let fresh = 0;
const newId = () => `gen-${++fresh}`;
const isCode = (code) => (e) => e instanceof m.MemcoreError && e.code === code;
const write = (userId, id, key, value) => ({ userId, ...(id ? { id } : {}), key, value, visibility: 'global' });

/** Every audit record of every user (the store's whole log, in `seq` order). */
const auditAll = (store) => m.auditLog({ store, limit: 1000 });

/** Bob's document: `versions` changes of one entry, exported with every version kept. */
async function bobsDocument(versions) {
  const store = new m.InMemoryEntryStore();
  const now = ticking();
  const config = { history: { maxVersionsPerEntry: 1000 } };
  for (let v = 0; v <= versions; v += 1) await m.upsertUserMemory(store, write('bob', 'b1', 'drink', `v${v}`), { now, newId, config });
  return m.exportUserData('bob', { entries: store, now });
}

const STORE_KINDS = ['memory', 'sqlite-file', 'postgres', 'd1'];

for (const kind of STORE_KINDS) {
  describe(`ownership and erasure on ${kind}`, () => {
    let b;
    let store;
    before(async () => {
      if (kind !== 'memory') {
        b = await BACKENDS[kind]();
      }
    });
    after(async () => {
      await b?.stop();
    });
    /** A clean store for one test. */
    const reset = async () => {
      if (kind === 'memory') store = new m.InMemoryEntryStore();
      else {
        await b.reset();
        store = b.store;
      }
      return store;
    };

    test('a restore never writes over another user\'s entry, and records nothing when refused', async () => {
      const s = await reset();
      const now = ticking();
      assert.equal((await m.upsertUserMemory(s, write('bob', 'pref-1', 'drink', 'tea'), { now, newId })).outcome, 'stored');
      assert.equal((await m.deleteUserMemory(s, 'pref-1', { userId: 'bob', now })).outcome, 'deleted');
      // Alice cannot take the id of Bob's deleted entry: his history holds it.
      const taken = await m.upsertUserMemory(s, write('alice', 'pref-1', 'color', 'red'), { now, newId });
      assert.equal(taken.outcome, 'conflict');
      assert.equal(await s.get('pref-1'), null);
      // An entry of Alice's under that id anyway (written by an older memcore, or raw): Bob's restore
      // leaves it as it is and writes no audit record.
      const alice = { id: 'pref-1', userId: 'alice', key: 'color', value: 'red', category: 'fact', visibility: 'global', sourceAgentId: null, groupIds: [], sourceConversationId: null, conflicted: false, accessCount: 0, createdAt: now(), updatedAt: now() };
      await s.upsert(alice);
      const stored = await s.get('pref-1');
      const before = await auditAll(s);
      const { versions } = await m.entryHistory({ store: s, userId: 'bob', entryId: 'pref-1' });
      const restored = await m.restoreVersion({ store: s, userId: 'bob', versionId: versions[0].id, now });
      assert.deepEqual(Object.keys(restored).sort(), ['message', 'outcome']);
      assert.equal(restored.outcome, 'conflict');
      assert.deepEqual(await s.get('pref-1'), stored, "Alice's entry byte for byte");
      assert.deepEqual(await auditAll(s), before, 'no record of a change that did not happen');
    });

    test('an imported history cannot take over a live entry; forged, repeated and unknown versions are refused; retention applies', async () => {
      const s = await reset();
      const now = ticking();
      await m.upsertUserMemory(s, write('bob', 'bob-live', 'drink', 'tea'), { now, newId });
      const bob = await s.get('bob-live');
      const before = await auditAll(s);
      // Mallory's document: a version of her own under Bob's entry id, its id made to match its content.
      const doc = await bobsDocument(1);
      const template = doc.history[0];
      const mallory = { ...doc, userId: 'mallory', entries: [], restricted: false, history: [] };
      mallory.history = [await genuine({ ...template, userId: 'mallory', entryId: 'bob-live' })];
      assert.equal(mallory.history[0].entryId, 'bob-live');
      await assert.rejects(m.importUserData(mallory, { entries: s, now }), (e) => {
        assert.ok(isCode('E_CONFLICT')(e), `${e.code}: ${e.message}`);
        assert.equal(e.details.entryId, 'bob-live');
        return true;
      });
      assert.deepEqual(await s.get('bob-live'), bob);
      assert.deepEqual(await auditAll(s), before);
      assert.deepEqual(await s.list('mallory'), []);
      // Forged (content changed, id kept), twice, and an unknown field.
      const own = await bobsDocument(2);
      const edited = structuredClone(own);
      edited.history[0].value = 'what I wish I had said';
      await assert.rejects(m.importUserData(edited, { entries: s, now }), (e) => isCode('E_ARGUMENT')(e) && /an id its content does not give it/.test(e.message));
      const twice = structuredClone(own);
      twice.history.push(twice.history[0]);
      await assert.rejects(m.importUserData(twice, { entries: s, now }), (e) => isCode('E_ARGUMENT')(e) && /appears twice/.test(e.message));
      const extra = structuredClone(own);
      extra.history[0].note = 'extra';
      await assert.rejects(m.importUserData(extra, { entries: s, now }), (e) => isCode('E_ARGUMENT')(e) && /unknown field `note`/.test(e.message));
      assert.deepEqual(await s.list('bob'), [bob], 'nothing written by the refused imports');
      // 50 versions of one entry: the newest 10 are kept.
      await m.deleteUserMemory(s, 'bob-live', { now });
      const many = await bobsDocument(50);
      assert.equal(many.history.length, 50);
      const other = await reset();
      const report = await m.importUserData(many, { entries: other, now: () => '2026-05-01T01:00:00Z' });
      assert.deepEqual(report.history, { imported: 10, dropped: 40 });
      assert.deepEqual(report.vectors, { dropped: 1, embedded: 0, reindex: true });
      const kept = (await m.entryHistory({ store: other, userId: 'bob', entryId: 'b1' })).versions.map((v) => v.id).sort();
      assert.deepEqual(kept, many.history.slice(-10).map((v) => v.id).sort());
    });

    test('every write refuses a user id erasure refuses; data stored under one before is found and erased', async () => {
      const s = await reset();
      const now = ticking();
      const bad = ['a/b', '../x', 'a\u0000b', 'u'.repeat(300)];
      for (const userId of bad) {
        const r = await m.upsertUserMemory(s, write(userId, null, 'k', 'v'), { now, newId });
        assert.equal(r.outcome, 'invalid', userId);
        assert.equal(r.violations[0].field, 'userId');
        assert.throws(() => m.createMemoryTools({ store: s, userId, agentId: 'a' }), isCode('E_INVALID_USER_ID'));
        await assert.rejects(m.eraseUserData(userId, { entries: s }), isCode('E_INVALID_USER_ID'));
        assert.throws(() => m.checkUserId(userId), isCode('E_INVALID_USER_ID'));
      }
      const plan = m.planPropertiesMigration([{ userId: 'a/b', theme: 'dark' }, { userId: 'ok', theme: 'light' }], {});
      assert.deepEqual(plan.skippedDocuments.map((d) => d.reason), ['invalid-user-id']);
      const report = await m.applyPropertiesMigration({ ...plan, inserts: [{ userId: '../x', key: 'theme', value: 'dark' }] }, s, { now, newId });
      assert.equal(report.refused, 1);
      assert.deepEqual(await s.list('../x'), []);
      // Rows a database holds under refused ids (written before the rule): found, and erased.
      if (kind === 'memory') return; // an in-memory store lives as long as its process: nothing to repair
      await m.upsertUserMemory(s, write('keeper', null, 'k', 'v'), { now, newId });
      for (const userId of ['a/b', 'a\u0000b', 'u'.repeat(300)]) {
        if (kind !== 'memory' && userId.includes('\u0000')) continue; // PostgreSQL and D1 text cannot hold NUL
        await s.upsert({ id: `planted-${userId.length}-${userId.charCodeAt(1)}`, userId, key: 'k', value: 'v', category: 'fact', visibility: 'global', sourceAgentId: null, groupIds: [], sourceConversationId: null, conflicted: false, accessCount: 0, createdAt: now(), updatedAt: now() });
      }
      const found = await m.findInvalidUserIds(s);
      assert.ok(found.length >= 1 && found.every((f) => f.tenantId === null && /user id/.test(f.reason)), JSON.stringify(found));
      for (const f of found) {
        const erased = await m.eraseInvalidUserData(f.userId, { entries: s, now });
        assert.equal(erased.entries, 1);
      }
      assert.deepEqual(await m.findInvalidUserIds(s), []);
      await assert.rejects(m.eraseInvalidUserData('keeper', { entries: s }), isCode('E_ARGUMENT'));
      assert.equal((await s.list('keeper')).length, 1);
    });

    test('tenants keep their ids apart: the same id in two tenants is two entries, and neither write touches the other', async () => {
      const s = await reset();
      const now = ticking();
      const [acme, globex] = [s.forTenant('acme'), s.forTenant('globex')];
      assert.equal((await m.upsertUserMemory(acme, write('alice', 'x-1', 'k', 'a'), { now, newId })).outcome, 'stored');
      const alice = await acme.get('x-1');
      assert.equal((await m.upsertUserMemory(globex, write('bob', 'x-1', 'k', 'b'), { now, newId })).outcome, 'stored');
      await m.deleteUserMemory(globex, 'x-1', { userId: 'bob', now });
      const [version] = (await m.entryHistory({ store: globex, userId: 'bob', entryId: 'x-1' })).versions;
      assert.equal((await m.restoreVersion({ store: globex, userId: 'bob', versionId: version.id, now })).outcome, 'restored');
      assert.deepEqual(await acme.get('x-1'), alice, "acme's entry byte for byte");
      assert.equal((await s.get('x-1')), null, 'the default tenant holds neither');
    });

    test("erasure deletes the user's API keys and renames them wherever other users' history names them", async () => {
      const s = await reset();
      const now = ticking();
      // In memory the keys live in their own store; a SQL store holds them itself.
      const keyStore = kind === 'memory' ? new InMemoryApiKeyStore() : s;
      const keys = apiKeys({ store: keyStore, now });
      const { key } = await keys.create({ userId: 'alice', scopes: ['memory:read', 'memory:write'] });
      await keys.create({ userId: 'bob', scopes: ['memory:read'] });
      await m.upsertUserMemory(s, write('alice', null, 'color', 'red'), { now, newId });
      await m.upsertUserMemory(s, write('bob', 'b1', 'drink', 'tea'), { now, newId });
      // Alice, an administrator, changes Bob's entry and restricts him: his records name her.
      await m.upsertUserMemory(s, write('bob', 'b1', 'drink', 'coffee'), { now, newId, principal: 'alice' });
      await m.setProcessingRestriction(s, 'bob', true, { admin: true, now, newId, principal: 'alice' });
      const bobBefore = await s.list('bob');
      const report = await m.eraseUserData('alice', { entries: s, now, ...(kind === 'memory' ? { keys: keyStore } : {}) });
      assert.equal(report.keys, 1);
      const [history] = report.history;
      assert.deepEqual(history.renamed, { audit: 2, versions: 1 });
      assert.equal((await keys.list({ userId: 'alice' })).length, 0);
      assert.equal((await keys.list({ userId: 'bob' })).length, 1, "Bob's key stays");
      await assert.rejects(keys.authenticate(new Request('http://x/', { headers: { authorization: `Bearer ${key}` } })), /API key is not known/);
      assert.deepEqual(await s.list('bob'), bobBefore, "Bob's entries untouched");
      const pseudonym = (await auditAll(s)).find((r) => r.operation === 'erase').userId;
      assert.match(pseudonym, /^sha256:[0-9a-f]{64}$/);
      const bobs = await m.auditLog({ store: s, userId: 'bob' });
      assert.deepEqual(bobs.filter((r) => r.actor.id !== null).map((r) => r.actor.id), [pseudonym, pseudonym]);
      // Bob's export, renamed version included, imports into an empty store: still genuine.
      const doc = await m.exportUserData('bob', { entries: s, now });
      assert.equal(doc.history[0].author.id, pseudonym);
      await m.importUserData(doc, { entries: new m.InMemoryEntryStore(), now });
      if (kind !== 'memory') {
        // Every row of every table, read with SQL: none names Alice.
        const tables = kind === 'postgres'
          ? await b.sql("SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()")
          : await b.sql("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'");
        const naming = [];
        for (const { name } of tables) {
          for (const row of await b.sql(`SELECT * FROM "${name}"`)) {
            if (Object.values(row).some((v) => (typeof v === 'string' ? v : JSON.stringify(v ?? null)).includes('alice'))) naming.push(`${name}: ${JSON.stringify(row)}`);
          }
        }
        assert.deepEqual(naming, []);
      }
    });
  });
}

/**
 * The property through the package (the core's proptest, tests/entries_ownership.rs, runs it
 * natively with many more cases): random interleavings of create (with and without an id),
 * delete, restore (of any version of either user) and import (a hostile copy of the other user's
 * export) by two users never change an entry of the user who did not act. Fixed seeds.
 */
async function interleavings(store, seed, steps) {
  const random = prng(seed);
  const pick = (n) => Math.floor(random() * n);
  const users = ['alice', 'bob'];
  const ids = ['e1', 'e2', 'e3'];
  const now = ticking();
  const sorted = async (u) => (await store.list(u)).sort((a, b) => (a.id < b.id ? -1 : 1));
  const done = [];
  for (let step = 0; step < steps; step += 1) {
    const actor = pick(2);
    const [user, other] = [users[actor], users[1 - actor]];
    const before = await sorted(other);
    const kind = ['create', 'create', 'delete', 'restore', 'import'][pick(5)];
    if (kind === 'create') {
      const id = random() < 0.6 ? ids[pick(3)] : null;
      await m.upsertUserMemory(store, write(user, id, `k${pick(3)}`, `v${step}`), { now, newId });
    } else if (kind === 'delete') {
      await m.deleteUserMemory(store, ids[pick(3)], { userId: user, now });
    } else if (kind === 'restore') {
      const versions = [];
      for (const u of users) for (const id of ids) versions.push(...(await m.entryHistory({ store, userId: u, entryId: id })).versions);
      if (versions.length > 0) await m.restoreVersion({ store, userId: user, versionId: versions[pick(versions.length)].id, now });
    } else {
      const doc = await m.exportUserData(other, { entries: store, now, config: { history: { maxVersionsPerEntry: 1000 } } });
      const copy = { ...doc, userId: user, entries: doc.entries.map((e) => ({ ...e, userId: user })), history: [] };
      await m.importUserData(copy, { entries: store, now }).catch(() => {});
    }
    done.push(`${kind} by ${user}`);
    assert.deepEqual(await sorted(other), before, `${done.join(', ')}: ${other}'s entries changed`);
  }
  const alice = new Set((await store.list('alice')).map((e) => e.id));
  assert.ok((await store.list('bob')).every((e) => !alice.has(e.id)), 'every id names one user\'s entry');
}

for (const kind of ['memory', 'sqlite-file']) {
  test(`random interleavings of two users' writes, deletes, restores and imports never touch the other's entries (${kind})`, async () => {
    const b = kind === 'memory' ? null : await BACKENDS[kind]();
    try {
      for (const seed of [41, 4141, 414141]) {
        const store = b ? (await b.reset(), b.store) : new m.InMemoryEntryStore();
        await interleavings(store, seed, 60);
      }
    } finally {
      await b?.stop();
    }
  });
}

/** `version` with the id its content gives it: read back from a store that kept it as a version. */
async function genuine(version) {
  const store = new m.InMemoryEntryStore();
  const entry = { id: version.entryId, userId: version.userId, key: version.key, value: version.value, category: version.category, visibility: version.visibility, sourceAgentId: version.sourceAgentId, groupIds: version.groupIds, sourceConversationId: version.sourceConversationId, conflicted: false, accessCount: 0, createdAt: version.createdAt, updatedAt: version.validFrom };
  await store.upsert(entry);
  await m.deleteUserMemory(store, entry.id, { now: () => version.validUntil, principal: version.author.id ?? undefined });
  const [kept] = (await m.entryHistory({ store, userId: version.userId, entryId: entry.id })).versions;
  return kept;
}

describe('smaller holes', () => {
  test('asOf: an invalid Date is E_ARGUMENT, not a silent read of the present', async () => {
    const store = new m.InMemoryEntryStore();
    await assert.rejects(m.listUserMemories(store, 'u1', { asOf: new Date(NaN) }), (e) => isCode('E_ARGUMENT')(e) && /invalid Date/.test(e.message));
    await assert.rejects(m.searchUserMemories(store, 'u1', 'x', { asOf: new Date('nope') }), isCode('E_ARGUMENT'));
    assert.deepEqual(await m.listUserMemories(store, 'u1', { asOf: new Date(t0) }), [], 'the next call works');
  });

  test('a credential wrapped in base64 is still a credential', async () => {
    const wrapped = Buffer.from('sk-proj-Zq8vT2mPw9LkR4sY7bXc0123').toString('base64');
    const found = m.detectCredential({ note: wrapped });
    assert.equal(found.found, true);
    assert.equal(found.kind, 'api-key');
    const tools = m.createMemoryTools({ store: new m.InMemoryEntryStore(), userId: 'u1', agentId: 'a' });
    assert.equal(await tools.call('rememberFact', { key: 'note', value: wrapped, category: 'fact' }), '⚠️ Value looks like a credential (api-key); it was not stored.');
    const prose = Buffer.from('Hello world, this is plain prose.').toString('base64');
    assert.equal(m.detectCredential({ note: prose }).found, false);
  });

  test('importUserData with an embedder embeds what it imported', async () => {
    const doc = await bobsDocument(1);
    const embedder = { model: 'toy', embed: async ({ texts }) => ({ vectors: texts.map((t) => [t.length, 1, 0.5]), model: 'toy' }) };
    const store = new m.InMemoryEntryStore();
    const report = await m.importUserData(doc, { entries: store, embedder });
    assert.deepEqual(report.vectors, { dropped: 1, embedded: 1, reindex: false });
    const again = await m.reindexEmbeddings(store, embedder, { userId: 'bob' });
    assert.equal(again.embedded, 0, 'nothing left to embed');
  });
});

describe('the server: ids, keys, erasure, credentials', async () => {
  const http = await import('node:http');
  const { createMemoryHandler, toNodeListener } = await import('memcore/server');
  const { bearerJwt } = await import('memcore/server/jwt');
  const { SignJWT } = await import('jose');
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const NOW = '2026-05-10T12:00:00.000Z';
  const SECRET = new TextEncoder().encode('a-shared-secret-of-at-least-32-bytes!!');
  let server;
  let base;
  let keys;
  let entries;
  const key = {};
  before(async () => {
    entries = new m.InMemoryEntryStore();
    keys = apiKeys({ store: new InMemoryApiKeyStore(), now: () => NOW });
    let n = 0;
    const handler = createMemoryHandler({
      entries,
      apiKeys: keys,
      authenticate: async (req) => (await keys.authenticate(req)) ?? (req.headers.get('x-host-user') !== null ? { userId: req.headers.get('x-host-user') } : null),
      now: () => NOW,
      newId: () => `srv-${++n}`,
    });
    server = http.createServer(toNodeListener(handler));
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${server.address().port}`;
    key.admin = (await keys.create({ userId: 'root', scopes: ['admin'] })).key;
    key.alice = (await keys.create({ userId: 'alice', scopes: ['memory:read', 'memory:write'] })).key;
    key.bob = (await keys.create({ userId: 'bob', scopes: ['memory:read', 'memory:write'] })).key;
  });
  after(() => new Promise((resolve) => server.close(resolve)));
  const call = async (token, method, path, body, headers = {}) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
  const M = '/usermemorystore/memories';

  test('REST: a write or a restore by another user\'s id is 409 E_CONFLICT; their entry is never named', async () => {
    const made = await call(key.bob, 'PUT', M, { userId: 'bob', id: 'shared-1', key: 'drink', value: 'tea', visibility: 'global' });
    assert.equal(made.status, 201);
    const taken = await call(key.alice, 'PUT', M, { userId: 'alice', id: 'shared-1', key: 'color', value: 'red', visibility: 'global' });
    assert.deepEqual([taken.status, taken.body.error.code], [409, 'E_CONFLICT']);
    assert.ok(!JSON.stringify(taken.body).includes('tea'));
    // Bob deletes it; Alice still cannot take the id (his history holds it); his restore works.
    assert.equal((await call(key.bob, 'DELETE', `${M}/entry/shared-1`)).status, 200);
    assert.equal((await call(key.alice, 'PUT', M, { userId: 'alice', id: 'shared-1', key: 'color', value: 'red', visibility: 'global' })).status, 409);
    const history = await call(key.bob, 'GET', `${M}/bob/entry/shared-1/history`);
    const restored = await call(key.bob, 'POST', `${M}/bob/versions/${encodeURIComponent(history.body.versions[0].id)}/restore`);
    assert.equal(restored.status, 200, JSON.stringify(restored.body));
    // An entry of Alice's under the id anyway (raw): Bob's restore is 409, without her entry.
    await call(key.bob, 'DELETE', `${M}/entry/shared-1`);
    entries.upsert({ id: 'shared-1', userId: 'alice', key: 'color', value: 'red', category: 'fact', visibility: 'global', sourceAgentId: null, groupIds: [], sourceConversationId: null, conflicted: false, accessCount: 0, createdAt: NOW, updatedAt: NOW });
    const again = (await call(key.bob, 'GET', `${M}/bob/entry/shared-1/history`)).body.versions[0].id;
    const refused = await call(key.bob, 'POST', `${M}/bob/versions/${encodeURIComponent(again)}/restore`);
    assert.deepEqual([refused.status, refused.body.error.code, refused.body.error.entry], [409, 'E_CONFLICT', undefined]);
    assert.equal(entries.get('shared-1').userId, 'alice');
  });

  test('a key gives at most what it holds: an admin-only key mints only admin-only keys, and cannot write memory', async () => {
    const escalate = await call(key.admin, 'POST', '/admin/keys', { userId: 'bob', scopes: ['memory:read', 'memory:write', 'admin'] });
    assert.deepEqual([escalate.status, escalate.body.error.code], [403, 'E_FORBIDDEN']);
    assert.match(escalate.body.error.message, /memory:read, memory:write/);
    assert.equal((await keys.list({ userId: 'bob' })).length, 1, 'no key minted');
    const same = await call(key.admin, 'POST', '/admin/keys', { userId: 'bob', scopes: ['admin'] });
    assert.equal(same.status, 201);
    for (const token of [key.admin, same.body.key]) {
      const write = await call(token, 'PUT', M, { userId: 'bob', key: 'x', value: 1, visibility: 'global' });
      assert.deepEqual([write.status, write.body.error.missingScope], [403, 'memory:write']);
    }
    // The same over MCP: the admin endpoint's upsert needs memory:write.
    const client = new Client({ name: 'trust', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${same.body.key}` } } }));
    try {
      const r = await client.callTool({ name: 'upsert_user_memory', arguments: { userId: 'bob', key: 'x', value: 1, visibility: 'global' } });
      assert.equal(r.isError, true);
      assert.equal(JSON.parse(r.content[0].text).error.missingScope, 'memory:write');
    } finally {
      await client.close();
    }
    // A key for a user id memcore refuses is never made.
    const bad = await call(key.admin, 'POST', '/admin/keys', { userId: 'a/b', scopes: ['admin'] });
    assert.deepEqual([bad.status, bad.body.error.code], [400, 'E_INVALID_USER_ID']);
  });

  test('erasure over REST ends access: the user\'s keys go first; the key answers 401 afterwards', async () => {
    const erin = (await keys.create({ userId: 'erin', scopes: ['memory:read', 'memory:write'] })).key;
    assert.equal((await call(erin, 'PUT', M, { userId: 'erin', key: 'k', value: 'v', visibility: 'global' })).status, 201);
    const erased = await call(key.admin, 'DELETE', '/admin/gdpr/erin');
    assert.equal(erased.status, 200, JSON.stringify(erased.body));
    assert.equal(erased.body.keys, 1);
    const after = await call(erin, 'PUT', M, { userId: 'erin', key: 'k2', value: 'v', visibility: 'global' });
    assert.deepEqual([after.status, after.body.error.code], [401, 'E_UNAUTHENTICATED']);
    assert.deepEqual(entries.list('erin'), []);
  });

  test('credentials naming ids memcore refuses: a token is 401, a host authenticate 500 E_HOST', async () => {
    const authenticate = bearerJwt({ issuer: 'https://auth.test/', audience: 'memcore', key: SECRET, now: () => NOW });
    const handler = createMemoryHandler({ entries: new m.InMemoryEntryStore(), authenticate });
    const now = Date.parse(NOW) / 1000;
    const token = (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(now).setExpirationTime(now + 600).setIssuer('https://auth.test/').setAudience('memcore').sign(SECRET);
    for (const claims of [{ sub: 'u1', tenant_id: 't'.repeat(300), scope: 'memory:read' }, { sub: 'a/b', scope: 'memory:read' }, { sub: 'u'.repeat(300), scope: 'memory:read' }]) {
      const response = await handler(new Request(`http://x${M}/u1`, { headers: { authorization: `Bearer ${await token(claims)}` } }));
      assert.equal(response.status, 401, JSON.stringify(claims).slice(0, 80));
      assert.match(response.headers.get('www-authenticate'), /invalid_token/);
    }
    const host = await call(null, 'GET', `${M}/u1`, undefined, { 'x-host-user': 'a/b' });
    assert.deepEqual([host.status, host.body.error.code], [500, 'E_HOST']);
  });
});

test('the server clamps Retry-After to an hour, whatever rate is configured', async () => {
  const { createMemoryHandler } = await import('memcore/server');
  const handler = createMemoryHandler({ entries: new m.InMemoryEntryStore(), authenticate: () => ({ userId: 'u1' }), limits: { requestsPerMinute: 0.000001, burst: 1 } });
  assert.equal((await handler(new Request('http://x/usermemorystore/memories/u1'))).status, 200);
  const limited = await handler(new Request('http://x/usermemorystore/memories/u1'));
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get('retry-after'), '3600');
  assert.equal((await limited.json()).error.retryAfterSeconds, 3600);
});

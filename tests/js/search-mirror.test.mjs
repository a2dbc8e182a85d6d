// The search mirror of the SQL stores (docs/reference/storage.md, "Search mirror"; schema 6) on a real
// SQLite file, PostgreSQL (a throwaway server) and D1 (miniflare), through the installed package.
// The revision moves on every write but an access count and never comes back; an erased user
// leaves no row; a ranked or hybrid search answers from the mirror (no `list`) while it is current
// and reloads after a write from another handle (on SQLite, a write through the same store object
// — each kind, a tenant's view too — changes the mirror in place: no rows read, and the mirror
// holds and answers what one built from the rows does); what it returns is read again (a fresh
// accessCount, a deleted entry gone); the answers equal those of the same store without a mirror
// and of the in-memory store; the bound and bad answers are handled.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as m from 'memcore';
import { openSqlite } from 'memcore/adapters/sqlite';
import { BACKENDS } from '../support/sql-backends.mjs';

function entry(i, fields = {}) {
  const words = ['dog', 'cat', 'city', 'work', 'coffee', 'trip', 'friend', 'car', 'book', 'music'];
  return {
    id: `e${String(i).padStart(4, '0')}`, userId: 'u1', key: `${words[i % 10]}_${i}`, value: `${words[(i * 3) % 10]} ${words[(i * 7) % 10]} note ${i}`,
    category: 'fact', visibility: 'global', sourceAgentId: 'a1', groupIds: [], sourceConversationId: null, conflicted: false, accessCount: 0,
    createdAt: '2026-06-01T10:00:00Z', updatedAt: `2026-06-01T10:${String(i % 60).padStart(2, '0')}:00Z`, ...fields,
  };
}

/** A deterministic embedder: each word adds 1 to one of 16 dimensions chosen by its letters. */
const embedder = {
  model: 'words-16',
  dimensions: 16,
  embed: async ({ texts }) => ({
    vectors: texts.map((t) => {
      const v = new Array(16).fill(0.01);
      for (const w of t.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean)) v[[...w].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 16, 7)] += 1;
      return v;
    }),
  }),
};

/** A host store over `store` that counts the calls the core makes. */
function counting(store) {
  const calls = {};
  const wrapper = { calls };
  for (const name of ['list', 'get', 'upsert', 'delete', 'incrementAccess', 'countUser', 'search', 'recall', 'findByKey', 'vectors', 'putVectors', 'unembedded', 'searchIndex']) {
    wrapper[name] = (...args) => {
      calls[name] = (calls[name] ?? 0) + 1;
      return store[name](...args);
    };
  }
  return wrapper;
}

const keys = (found) => found.map((e) => e.key);

/** Count the store's own reads (`list`, `vectors`: what a mirror is built from). */
function spy(store) {
  const counts = { list: 0, vectors: 0 };
  for (const name of Object.keys(counts)) {
    const original = Object.getPrototypeOf(store)[name];
    store[name] = function (...args) {
      counts[name] += 1;
      return original.apply(this, args);
    };
  }
  counts.restore = () => {
    delete store.list;
    delete store.vectors;
  };
  return counts;
}

for (const name of ['sqlite-file', 'postgres']) {
  describe(`search mirror: ${name}`, () => {
    let b;
    const revision = async (userId) => {
      const rows = await b.sql(`SELECT revision FROM memcore_user_revisions WHERE user_id = ${name === 'postgres' ? '$1' : '?'}`, [userId]);
      return rows.length === 0 ? 0 : Number(rows[0].revision);
    };
    before(async () => {
      b = await BACKENDS[name]();
    });
    after(async () => b?.stop());

    test('the revision moves on every write but an access count, never back; no entries, no row', async () => {
      await b.reset();
      assert.equal(await revision('u1'), 0);
      await b.store.upsert(entry(1));
      const r1 = await revision('u1');
      assert.ok(r1 > 0);
      await b.store.upsert(entry(2));
      const r2 = await revision('u1');
      assert.ok(r2 > r1);
      await b.store.incrementAccess(['e0001', 'e0002']);
      assert.equal(await revision('u1'), r2, 'an access count changes no revision');
      await b.store.putVectors([{ id: 'e0001', key: entry(1).key, value: entry(1).value, model: 'm', vector: Uint8Array.from([1, 2, 3]) }]);
      const r3 = await revision('u1');
      assert.ok(r3 > r2, 'a vector is what hybrid search reads');
      await b.store.upsert(entry(1, { value: 'changed' }));
      const r4 = await revision('u1');
      assert.ok(r4 > r3);
      await b.store.delete('e0001');
      const r5 = await revision('u1');
      assert.ok(r5 > r4);
      await b.store.delete('e0002');
      assert.equal(await revision('u1'), 0, 'the last entry gone: no row names the user');
      await b.store.upsert(entry(3));
      assert.ok((await revision('u1')) > r5, 'a returning user never gets an old revision back');
    });

    test('a ranked and a hybrid search answer from the mirror while it is current', async () => {
      await b.reset();
      for (let i = 0; i < 40; i++) await b.store.upsert(entry(i));
      const store = counting(b.store);
      await m.reindexEmbeddings(b.store, embedder, { userId: 'u1' });
      const options = (mode) => ({ mode, limit: 5, embedder });
      const reads = spy(b.store);
      try {
        const first = await m.searchUserMemories(store, 'u1', 'dog coffee', options('ranked'));
        assert.equal(reads.list, 1, 'the mirror is built from one list');
        const again = await m.searchUserMemories(store, 'u1', 'dog coffee', options('ranked'));
        assert.deepEqual(keys(again), keys(first));
        assert.equal(reads.list, 1, 'a current mirror lists nothing');
        assert.equal(store.calls.list, undefined, 'the core never lists');
        assert.equal(store.calls.searchIndex, 2);
        assert.equal(store.calls.get, first.length + again.length, 'what it returns is read again');
        await m.searchUserMemories(store, 'u1', 'dog coffee', options('hybrid'));
        assert.equal(reads.vectors, 1, 'the vectors of the model are loaded once');
        await m.searchUserMemories(store, 'u1', 'dog coffee', options('hybrid'));
        assert.equal(reads.vectors, 1);
        assert.equal(reads.list, 1, 'a mirror without vectors gets them added, no new list');
        await m.searchUserMemories(store, 'u1', 'dog coffee', { ...options('hybrid'), embedder: { ...embedder, model: 'words-16-b' } });
        assert.equal(reads.list, 2, "another model's vectors: a new mirror");
      } finally {
        reads.restore();
      }
      // The same answers as the store without a mirror and as the in-memory store.
      const memory = new m.InMemoryEntryStore();
      for (const e of await b.store.list('u1')) memory.upsert(e);
      await m.reindexEmbeddings(memory, embedder, { userId: 'u1' });
      for (const mode of ['ranked', 'hybrid']) {
        for (const q of ['dog coffee', 'notes about music', 'trip with a friend by car', 'city 7']) {
          const mirrored = await m.searchUserMemories(store, 'u1', q, options(mode));
          assert.deepEqual(keys(mirrored), keys(await m.searchUserMemories(memory, 'u1', q, options(mode))), `${mode} ${q}`);
        }
      }
    });

    test('a write from this handle or another reloads it; returned entries are fresh', async () => {
      await b.reset();
      for (let i = 0; i < 10; i++) await b.store.upsert(entry(i));
      const store = counting(b.store);
      const reads = spy(b.store);
      after(() => reads.restore());
      const before = await m.searchUserMemories(store, 'u1', 'zanzibar', { mode: 'ranked' });
      assert.deepEqual(before, []);
      const other = await b.reopen();
      await other.upsert(entry(20, { key: 'holiday', value: 'Zanzibar in May' }));
      const found = await m.searchUserMemories(store, 'u1', 'zanzibar', { mode: 'ranked' });
      assert.deepEqual(keys(found), ['holiday'], 'a write through another handle is seen');
      assert.equal(reads.list, 2);
      // An access count moves no revision, but what a search returns is read again.
      await other.incrementAccess(['e0020']);
      const counted = await m.searchUserMemories(store, 'u1', 'zanzibar', { mode: 'ranked' });
      assert.equal(reads.list, 2, 'the mirror is still current');
      assert.equal(counted[0].accessCount, 1, 'the accessCount is the stored one');
      // A deleted entry is never returned, and a changed one is re-checked.
      await other.delete('e0020');
      assert.deepEqual(await m.searchUserMemories(store, 'u1', 'zanzibar', { mode: 'ranked' }), []);
      await other.upsert(entry(21, { key: 'trip_note', value: 'Zanzibar again' }));
      await other.upsert(entry(21, { key: 'trip_note', value: 'Zanzibar again', visibility: 'self' }));
      const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'someone-else', config: { search: { mode: 'ranked' } } });
      assert.equal(await tools.call('searchMemory', { query: 'zanzibar' }), "No memories matching 'zanzibar' found.", "another agent's self entry stays hidden");
      const own = m.createMemoryTools({ store, userId: 'u1', agentId: 'a1', config: { search: { mode: 'ranked' } } });
      assert.equal(await own.call('searchMemory', { query: 'zanzibar' }), '• trip_note = Zanzibar again [fact, self]');
    });

    // The steps below on `store` (the store itself or a tenant's view; `otherOf(handle)`: the same
    // view of another handle).
    const followed = async (store, otherOf) => {
      for (let i = 0; i < 30; i++) await store.upsert(entry(i));
      await m.reindexEmbeddings(store, embedder, { userId: 'u1' });
      const reads = spy(store);
      try {
        const inPlace = name === 'sqlite-file';
        const options = { mode: 'hybrid', limit: 8, embedder };
        let t = Date.parse('2026-07-01T00:00:00Z');
        let n = 0;
        const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'a1', embedder, config: { search: { mode: 'hybrid' } }, now: () => new Date((t += 1000)).toISOString(), newId: () => `t${n++}` });
        const queries = ['dog coffee', 'the city by the sea', 'music and a book', 'trip with a friend by car', 'note 12'];
        // The mirror the store holds now, against one built from the rows and vectors it holds: the
        // same entries (access counts aside: they move no revision) and the same hybrid answers.
        const same = async (step) => {
          const mirror = await store.searchIndex('u1', embedder.model);
          const fresh = new m.InMemoryEntryStore();
          const own = Object.getPrototypeOf(store); // the rows themselves, not counted as a rebuild
          fresh.load(await own.list.call(store, 'u1'), { model: embedder.model, rows: await own.vectors.call(store, 'u1', embedder.model) });
          const rows = (s) => s.list('u1').map(({ accessCount, ...e }) => e).sort((x, y) => (x.id < y.id ? -1 : 1));
          assert.deepEqual(rows(mirror), rows(fresh), `${step}: the mirror's entries`);
          for (const q of queries) {
            assert.deepEqual(keys(await m.searchUserMemories(store, 'u1', q, options)), keys(await m.searchUserMemories(fresh, 'u1', q, options)), `${step}: ${q}`);
          }
          fresh.free();
        };
        await m.searchUserMemories(store, 'u1', 'dog coffee', options);
        assert.deepEqual([reads.list, reads.vectors], [1, 1]);
        const steps = [
          ['a new key (insertWithHistory, putVectors)', () => tools.call('rememberFact', { key: 'city_home', value: 'Lisbon by the sea' })],
          ['an update (writeWithHistory, putVectors)', () => tools.call('rememberFact', { key: 'city_home', value: 'Porto by the river' })],
          ['a forget (deleteWithHistory)', () => tools.call('forgetFact', { key: 'city_home' })],
          ['an upsert of a changed value', () => store.upsert(entry(3, { value: 'music and a long book' }))],
          ['its vector (putVectors)', () => m.reindexEmbeddings(store, embedder, { userId: 'u1' })],
          ['a capped insert that evicts', () => store.insertWithinCap(entry(40, { value: 'a book about the sea' }), { maxEntries: 1000, evict: ['e0001', 'e0002'] })],
          ['a delete', () => store.delete('e0005')],
          ['a capped insert of a key held (the row at the identity updated)', () => store.insertWithinCap(entry(41, { key: entry(6).key, value: 'coffee with a friend' }), { maxEntries: 1000, evict: [] })],
        ];
        let rebuilt = 1;
        for (const [step, write] of steps) {
          await write();
          await same(step);
          // The update of a row of another id at the identity is the one write a mirror does not follow.
          if (!inPlace || step.startsWith('a capped insert of a key held')) rebuilt += 1;
          assert.equal(reads.list, rebuilt, `${step}: ${inPlace ? 'followed in place' : 'rebuilt'}`);
        }
        // A write from another handle, then one through this handle: the mirror missed the first,
        // so it does not follow the second — rebuilt, as ever.
        const other = otherOf(await b.reopen());
        await other.upsert(entry(50, { value: 'dog and cat at the sea' }));
        await store.upsert(entry(51, { value: 'a cat on a boat' }));
        await same('another handle');
        assert.equal(reads.list, rebuilt + 1, 'a write from another handle rebuilds the mirror');
        // A vector of another model replaces the entry's: the mirror (of one model) is dropped.
        await store.putVectors([{ id: 'e0007', key: entry(7).key, value: entry(7).value, model: 'words-16-b', vector: Uint8Array.from([1, 2, 3]) }]);
        await same("another model's vector");
        assert.equal(reads.list, rebuilt + 2);
        // A write while a search still holds the mirror: answers are right whatever the order.
        const searching = m.searchUserMemories(store, 'u1', 'sea', options);
        const writing = tools.call('rememberFact', { key: 'boat', value: 'a small boat by the sea' });
        await Promise.all([searching, writing]);
        await same('a write during a search');
      } finally {
        reads.restore();
      }
    };

    test('writes through this handle change its mirror in place on SQLite (rebuilt on PostgreSQL): the same mirror as one built fresh', async () => {
      await b.reset();
      await followed(b.store, (other) => other);
    });

    test("a tenant's view follows its own writes the same way (its ids and users are its own)", async () => {
      await b.reset();
      await followed(b.store.forTenant('acme-follow'), (other) => other.forTenant('acme-follow'));
      assert.deepEqual(await b.store.list('u1'), [], 'nothing of the tenant is seen without it');
    });

    test('erasure leaves no revision row naming the user', async () => {
      await b.reset();
      for (let i = 0; i < 5; i++) await b.store.upsert(entry(i, { userId: 'erase-me' }));
      await m.searchUserMemories(b.store, 'erase-me', 'dog', { mode: 'ranked' });
      const mirror = await b.store.searchIndex('erase-me', null);
      assert.equal(mirror.list('erase-me').length, 5);
      await m.eraseUserData('erase-me', { entries: b.store });
      // The dropped mirror is freed once its loan (this direct call's answer) has ended: the erased
      // entries are not left in memory either.
      await new Promise((resolve) => setTimeout(resolve, 0));
      assert.throws(() => mirror.list('erase-me'), (e) => e.code === 'E_ARGUMENT' && /freed/.test(e.message));
      assert.notEqual(await b.store.searchIndex('erase-me', null), mirror, 'the mirror with the erased entries is dropped');
      assert.equal(await revision('erase-me'), 0);
      assert.deepEqual(await m.searchUserMemories(b.store, 'erase-me', 'dog', { mode: 'ranked' }), []);
    });
  });
}

describe('search mirror: D1 in workerd', () => {
  let b;
  before(async () => {
    b = await BACKENDS.d1();
  });
  after(async () => b?.stop());

  test('ranked search through the mirror sees every write', async () => {
    await b.reset();
    for (let i = 0; i < 12; i++) await b.store.upsert(entry(i));
    const search = (q) => b.worker.call('DB', 'searchUserMemories', ['u1', q, { mode: 'ranked', limit: 5 }]);
    const first = await search('dog coffee');
    assert.ok(first.length > 0);
    assert.deepEqual(await search('dog coffee'), first);
    await b.store.upsert(entry(30, { key: 'holiday', value: 'Zanzibar in May' }));
    assert.deepEqual(keys(await search('zanzibar')), ['holiday']);
    await b.store.delete('e0030');
    assert.deepEqual(await search('zanzibar'), []);
    const rows = await b.sql("SELECT count(*) AS n FROM memcore_user_revisions WHERE user_id = 'u1'");
    assert.equal(rows[0].n, 1);
  });
});

describe('search mirror: bound, options and bad answers', () => {
  let dir;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'memcore-mirror-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a user over the bound is listed each time, with the same answers', async () => {
    const small = await openSqlite(join(dir, 'small.db'), { searchMirror: { maxEntries: 3 } });
    const off = await openSqlite(join(dir, 'small.db'), { searchMirror: { maxEntries: 0 } });
    for (let i = 0; i < 8; i++) await small.upsert(entry(i));
    const store = counting(small);
    const a = await m.searchUserMemories(store, 'u1', 'dog coffee', { mode: 'ranked' });
    const b2 = await m.searchUserMemories(store, 'u1', 'dog coffee', { mode: 'ranked' });
    assert.deepEqual(keys(a), keys(b2));
    assert.ok(a.length > 0);
    assert.equal(store.calls.list, 2, 'no mirror over the bound: the core lists');
    assert.equal(await small.searchIndex('u1', null), null);
    assert.equal(await off.searchIndex('u1', null), null, 'maxEntries 0: no mirror');
    assert.deepEqual(keys(await m.searchUserMemories(off, 'u1', 'dog coffee', { mode: 'ranked' })), keys(a));
    await small.close();
    await off.close();
  });

  test('a bad searchMirror option is E_CONFIG', async () => {
    for (const bad of [-1, 1.5, 'ten', { maxEntries: NaN }]) {
      await assert.rejects(openSqlite(join(dir, 'bad.db'), { searchMirror: bad }), (e) => e.code === 'E_CONFIG' && /searchMirror/.test(e.message));
    }
  });

  test('a host searchIndex answering something else is a clear E_HOST, and the next call works', async () => {
    const memory = new m.InMemoryEntryStore();
    memory.upsert(entry(1));
    const host = { list: (u) => memory.list(u), get: (id) => memory.get(id), upsert: (e) => memory.upsert(e), delete: (id) => memory.delete(id), incrementAccess: (ids) => memory.incrementAccess(ids) };
    for (const answer of [{}, 42, 'store', [memory]]) {
      const bad = { ...host, searchIndex: async () => answer };
      await assert.rejects(m.searchUserMemories(bad, 'u1', 'dog', { mode: 'ranked' }), (e) => e.code === 'E_HOST' && /searchIndex/.test(e.message), String(answer));
    }
    const throwing = { ...host, searchIndex: async () => { throw new Error('index down'); } };
    await assert.rejects(m.searchUserMemories(throwing, 'u1', 'dog', { mode: 'ranked' }), (e) => e.code === 'E_HOST');
    const good = { ...host, searchIndex: async () => memory };
    assert.deepEqual(keys(await m.searchUserMemories(good, 'u1', 'work', { mode: 'ranked' })), [entry(1).key]);
    const empty = { ...host, searchIndex: async () => null };
    assert.deepEqual(keys(await m.searchUserMemories(empty, 'u1', 'work', { mode: 'ranked' })), [entry(1).key]);
  });

  test('dropped mirrors are freed at once: the live mirrors never hold more than the bound, concurrent searches included', async () => {
    // 30 users × 10 entries, a bound of 50 entries (5 mirrors), every user searched twice, three
    // searches at a time, ranked and hybrid. Counted: the stores the mirror built (each `load`ed)
    // and the ones it freed — what is left must fit the bound.
    const bounded = await openSqlite(join(dir, 'freed.db'), { searchMirror: { maxEntries: 50 } });
    const plain = await openSqlite(join(dir, 'freed.db'), { searchMirror: { maxEntries: 0 } });
    const users = Array.from({ length: 30 }, (_, u) => `user-${u}`);
    for (const [n, user] of users.entries()) {
      for (let i = 0; i < 10; i++) await bounded.upsert(entry(n * 10 + i, { id: `${user}-${i}`, userId: user }));
      await m.reindexEmbeddings(bounded, embedder, { userId: user });
    }
    const proto = m.InMemoryEntryStore.prototype;
    const [load, free] = [proto.load, proto.free];
    const built = new Set();
    const freed = new Set();
    proto.load = function (...args) {
      built.add(this);
      return load.apply(this, args);
    };
    proto.free = function () {
      freed.add(this);
      return free.call(this);
    };
    try {
      for (const pass of [1, 2]) {
        for (let i = 0; i < users.length; i += 3) {
          const batch = users.slice(i, i + 3);
          const mode = pass === 1 ? 'ranked' : 'hybrid';
          const answers = await Promise.all(batch.map((user) => m.searchUserMemories(bounded, user, 'dog coffee', { mode, limit: 5, embedder })));
          const expected = await Promise.all(batch.map((user) => m.searchUserMemories(plain, user, 'dog coffee', { mode, limit: 5, embedder })));
          assert.deepEqual(answers.map(keys), expected.map(keys));
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 5)); // the last loans end
      const live = [...built].filter((store) => !freed.has(store));
      assert.ok(built.size >= 60, `every search of a dropped user built a mirror (${built.size})`);
      assert.ok(live.length <= 5, `${live.length} mirrors alive, the bound fits 5`);
      assert.ok(live.reduce((n, store) => n + store.size, 0) <= 50);
      for (const store of freed) assert.throws(() => store.size, (e) => e.code === 'E_ARGUMENT');
    } finally {
      Object.assign(proto, { load, free });
      await bounded.close();
      await plain.close();
    }
  });

  test('InMemoryEntryStore.free frees it now: later calls are E_ARGUMENT, a second free does nothing, other stores work', () => {
    const a = new m.InMemoryEntryStore();
    const b = new m.InMemoryEntryStore();
    a.upsert(entry(1));
    b.upsert(entry(2));
    a.free();
    a.free();
    assert.throws(() => a.list('u1'), (e) => e.code === 'E_ARGUMENT' && /freed/.test(e.message));
    assert.throws(() => a.upsert(entry(3)), (e) => e.code === 'E_ARGUMENT');
    const c = new m.InMemoryEntryStore();
    assert.deepEqual(c.list('u1'), []);
    assert.deepEqual(b.list('u1').map((e) => e.id), ['e0002']);
  });

  test('InMemoryEntryStore.load loads entries and their vectors in one call', () => {
    const s = new m.InMemoryEntryStore();
    const written = s.load([entry(1), entry(2)], { model: 'm', rows: [{ id: 'e0001', vector: Uint8Array.from([1, 255]) }, { id: 'missing', vector: Uint8Array.from([1]) }] });
    assert.equal(written, 1);
    assert.equal(s.size, 2);
    assert.equal(s.load([]), 0);
    assert.throws(() => s.load([entry(3)], { model: 'm', rows: [{ id: 'e0003', vector: [1, 2] }] }), (e) => e.code === 'E_ARGUMENT');
    assert.throws(() => s.load('nope'), (e) => e.code === 'E_ARGUMENT');
  });
});

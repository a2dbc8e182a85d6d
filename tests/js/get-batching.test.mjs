// The `get`s of one tick (docs/reference/storage.md, "Operations"): on PostgreSQL and D1 the SQL
// store reads them with one statement and answers each caller its own row — in order, a missing
// id null, a repeated id twice, a tenant's view its own rows only; a failure of that read fails
// every caller and the next read works. better-sqlite3 reads each at once (no round trip to
// save). A search over a current mirror asks for all its hits at once, so on PostgreSQL it reads
// them in one statement. Counted, never timed, through the installed package.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as m from 'memcore';
import { BACKENDS } from '../support/sql-backends.mjs';

function entry(i, fields = {}) {
  const words = ['dog', 'cat', 'city', 'work', 'coffee', 'trip', 'friend', 'car', 'book', 'music'];
  return {
    id: `g${i}`, userId: 'u1', key: `${words[i % 10]}_${i}`, value: `${words[(i * 3) % 10]} ${words[(i * 7) % 10]} coffee note ${i}`,
    category: 'fact', visibility: 'global', sourceAgentId: 'a1', groupIds: [], sourceConversationId: null, conflicted: false, accessCount: 0,
    createdAt: '2026-06-01T10:00:00Z', updatedAt: `2026-06-01T10:${String(i % 60).padStart(2, '0')}:00Z`, ...fields,
  };
}

const ASKED = ['g1', 'g2', 'nope', 'g1', 'g3'];

for (const name of ['sqlite-file', 'postgres', 'd1']) {
  describe(`get batching: ${name}`, () => {
    let b;
    const getAll = (store, ids) => (name === 'd1' ? b.worker.call('DB', 'getAll', [ids]) : Promise.all(ids.map((id) => store.get(id))));
    before(async () => {
      b = await BACKENDS[name]();
      for (let i = 0; i < 8; i++) await b.store.upsert(entry(i));
    });
    after(async () => b?.stop());

    test('the gets of one tick answer each caller its own row, in order', async () => {
      const one = [];
      for (const id of ASKED) one.push(await b.store.get(id));
      const all = await getAll(b.store, ASKED);
      assert.deepEqual(all, one);
      assert.deepEqual(all.map((e) => e?.key ?? null), ['cat_1', 'city_2', null, 'cat_1', 'work_3']);
    });

    if (name === 'postgres') {
      /** The statements `pool.query` sent while `body` ran. */
      const sent = async (body) => {
        const { pool } = b.store;
        const query = pool.query;
        const texts = [];
        pool.query = function (...args) {
          texts.push(typeof args[0] === 'string' ? args[0] : args[0].text);
          return query.apply(this, args);
        };
        try {
          await body();
        } finally {
          pool.query = query;
          delete pool.query;
        }
        return texts;
      };

      test('on PostgreSQL they are one statement; a lone get stays a get', async () => {
        const many = await sent(() => getAll(b.store, ASKED));
        assert.equal(many.length, 1, many.join('\n'));
        assert.match(many[0], /WHERE id = ANY\(\$1::text\[\]\)/);
        const lone = await sent(() => b.store.get('g4'));
        assert.equal(lone.length, 1);
        assert.match(lone[0], /WHERE id = \$1$/);
      });

      test("a failure of that read fails every caller with E_HOST, and the next read works", async () => {
        const { pool } = b.store;
        const query = pool.query;
        pool.query = () => Promise.reject(new Error('injected: connection reset'));
        let answers;
        try {
          answers = await Promise.allSettled(['g1', 'g2', 'g3'].map((id) => b.store.get(id)));
        } finally {
          pool.query = query;
          delete pool.query;
        }
        for (const a of answers) {
          assert.equal(a.status, 'rejected');
          assert.equal(a.reason.code, 'E_HOST', a.reason.message);
        }
        assert.deepEqual((await getAll(b.store, ['g1', 'g2'])).map((e) => e.key), ['cat_1', 'city_2']);
      });

      test("a tenant's view reads its own rows only", async () => {
        const view = b.store.forTenant('acme-gets');
        await view.upsert(entry(1, { value: 'the tenant one' }));
        assert.deepEqual((await getAll(view, ['g1', 'g2'])).map((e) => e?.value ?? null), ['the tenant one', null]);
        assert.equal((await b.store.get('g1')).value, entry(1).value);
      });

      test('a search over a current mirror reads its hits in one statement', async () => {
        const options = { mode: 'ranked', limit: 5 };
        const first = await m.searchUserMemories(b.store, 'u1', 'coffee note', options);
        assert.ok(first.length >= 3, `hits: ${first.length}`);
        let again;
        const texts = await sent(async () => {
          again = await m.searchUserMemories(b.store, 'u1', 'coffee note', options);
        });
        assert.deepEqual(again.map((e) => e.key), first.map((e) => e.key));
        assert.equal(texts.filter((t) => /WHERE id = ANY/.test(t)).length, 1, texts.join('\n'));
        assert.equal(texts.filter((t) => /WHERE id = \$1$/.test(t)).length, 0, 'no hit read alone');
      });
    }
  });
}

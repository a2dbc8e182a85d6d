// A write with history in one step (issue 45, docs/reference/history.md): an update of an
// existing entry, through the tools and through upsertUserMemory, reaches the bundled SQL stores
// as one `writeWithHistory` — no second read of the entry it replaces, no separate
// `appendHistory` — which is one transaction on SQLite, one batch on D1 and one statement (one
// round trip) on PostgreSQL; a deletion (forgetFact) likewise as one `deleteWithHistory`. Work is
// counted, never timed. Then fault injection: a trigger makes the entry's update or delete fail
// (or the audit insert fail), and neither the history nor the entry changes — the append and the
// write are atomic on every backend.
import { describe, test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as m from 'memcore';
import { openSqlite } from 'memcore/adapters/sqlite';
import { openPostgres } from 'memcore/adapters/postgres';
import pg from 'pg';
import { BACKENDS } from '../support/sql-backends.mjs';

const NOW = '2026-06-01T10:00:00.000Z';

/** Every method of `store` (own and inherited), each call recorded in `calls` by name. */
function counted(store, calls) {
  const names = new Set();
  for (let p = store; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const name of Object.getOwnPropertyNames(p)) {
      if (name !== 'constructor' && typeof store[name] === 'function') names.add(name);
    }
  }
  const out = {};
  for (const name of names) {
    out[name] = (...args) => {
      calls.push(name);
      return store[name](...args);
    };
  }
  return out;
}

/** What the store was asked for while `body` ran, beside the reads every write makes. */
async function callsOf(store, body) {
  const calls = [];
  await body(counted(store, calls));
  return calls;
}

// A trigger that fails the entry's update (of key `explode`) or every audit insert.
const FAIL_PG = "CREATE OR REPLACE FUNCTION memcore_test_fault() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'injected fault'; END $$ LANGUAGE plpgsql";
const FAULTS = {
  sqlite: {
    entry: {
      create: ["CREATE TRIGGER memcore_test_fault BEFORE UPDATE ON memcore_entries WHEN NEW.key = 'explode' BEGIN SELECT RAISE(ABORT, 'injected fault'); END"],
      drop: ['DROP TRIGGER memcore_test_fault'],
    },
    audit: {
      create: ["CREATE TRIGGER memcore_test_fault BEFORE INSERT ON memcore_audit BEGIN SELECT RAISE(ABORT, 'injected fault'); END"],
      drop: ['DROP TRIGGER memcore_test_fault'],
    },
    // A SQLite file journals the append in the write's transaction (the history tables are
    // written by the fold): the journal's insert is the append that fails with the write.
    journal: {
      create: ["CREATE TRIGGER memcore_test_fault BEFORE INSERT ON memcore_history_journal BEGIN SELECT RAISE(ABORT, 'injected fault'); END"],
      drop: ['DROP TRIGGER memcore_test_fault'],
    },
    delete: {
      create: ["CREATE TRIGGER memcore_test_fault BEFORE DELETE ON memcore_entries WHEN OLD.key = 'explode' BEGIN SELECT RAISE(ABORT, 'injected fault'); END"],
      drop: ['DROP TRIGGER memcore_test_fault'],
    },
    insert: {
      create: ["CREATE TRIGGER memcore_test_fault BEFORE INSERT ON memcore_entries WHEN NEW.key = 'explode' BEGIN SELECT RAISE(ABORT, 'injected fault'); END"],
      drop: ['DROP TRIGGER memcore_test_fault'],
    },
  },
  postgres: {
    entry: {
      create: [FAIL_PG, "CREATE TRIGGER memcore_test_fault BEFORE UPDATE ON memcore_entries FOR EACH ROW WHEN (NEW.key = 'explode') EXECUTE FUNCTION memcore_test_fault()"],
      drop: ['DROP TRIGGER memcore_test_fault ON memcore_entries'],
    },
    audit: {
      create: [FAIL_PG, 'CREATE TRIGGER memcore_test_fault BEFORE INSERT ON memcore_audit FOR EACH ROW EXECUTE FUNCTION memcore_test_fault()'],
      drop: ['DROP TRIGGER memcore_test_fault ON memcore_audit'],
    },
    delete: {
      create: [FAIL_PG, "CREATE TRIGGER memcore_test_fault BEFORE DELETE ON memcore_entries FOR EACH ROW WHEN (OLD.key = 'explode') EXECUTE FUNCTION memcore_test_fault()"],
      drop: ['DROP TRIGGER memcore_test_fault ON memcore_entries'],
    },
    insert: {
      create: [FAIL_PG, "CREATE TRIGGER memcore_test_fault BEFORE INSERT ON memcore_entries FOR EACH ROW WHEN (NEW.key = 'explode') EXECUTE FUNCTION memcore_test_fault()"],
      drop: ['DROP TRIGGER memcore_test_fault ON memcore_entries'],
    },
  },
};

for (const kind of ['sqlite-file', 'postgres', 'd1']) {
  describe(`writes with history on ${kind}`, () => {
    let backend;
    const dialect = kind === 'postgres' ? 'postgres' : 'sqlite';
    const sql = async (list) => {
      for (const text of [list].flat()) await backend.sql(text);
    };
    const options = { now: () => NOW, newId: (() => { let n = 0; return () => `e${++n}`; })() };
    before(async () => {
      backend = await BACKENDS[kind]();
    });
    beforeEach(async () => backend.reset());
    after(async () => backend?.stop());

    test('an update through rememberFact is one writeWithHistory: no get, no separate appendHistory or upsert', async () => {
      const { store } = backend;
      const first = m.createMemoryTools({ store, userId: 'u1', agentId: 'a', ...options });
      assert.equal(await first.call('rememberFact', { key: 'city', value: 'Porto' }), '✅ Remembered: city = Porto [fact, self]');
      const calls = await callsOf(store, async (s) => {
        const tools = m.createMemoryTools({ store: s, userId: 'u1', agentId: 'a', ...options });
        assert.equal(await tools.call('rememberFact', { key: 'city', value: 'Lisbon' }), '✅ Remembered: city = Lisbon [fact, self]');
      });
      const writes = calls.filter((c) => ['get', 'upsert', 'appendHistory', 'writeWithHistory', 'insertWithinCap'].includes(c));
      assert.deepEqual(writes, ['writeWithHistory'], calls.join(', '));
      const { versions } = await m.entryHistory({ store, userId: 'u1', key: 'city' });
      assert.deepEqual(versions.map((v) => v.value), ['Porto']);
      assert.deepEqual(await store.historySize('u1'), { versions: 1, audit: 2 });
    });

    test('an update through upsertUserMemory is one writeWithHistory too', async () => {
      const { store } = backend;
      await m.upsertUserMemory(store, { userId: 'u1', key: 'dog', value: 'Rex', visibility: 'global' }, options);
      const calls = await callsOf(store, async (s) => {
        const outcome = await m.upsertUserMemory(s, { userId: 'u1', key: 'dog', value: 'Fido', visibility: 'global' }, options);
        assert.equal(outcome.outcome, 'stored');
      });
      const writes = calls.filter((c) => ['get', 'upsert', 'appendHistory', 'writeWithHistory'].includes(c));
      assert.deepEqual(writes, ['writeWithHistory'], calls.join(', '));
      const { current, versions } = await m.entryHistory({ store, userId: 'u1', key: 'dog' });
      assert.deepEqual([current.map((e) => e.value), versions.map((v) => v.value)], [['Fido'], ['Rex']]);
    });

    test('forgetFact is one deleteWithHistory: no get, no separate appendHistory or delete', async () => {
      const { store } = backend;
      const first = m.createMemoryTools({ store, userId: 'u1', agentId: 'a', ...options });
      assert.match(await first.call('rememberFact', { key: 'plant', value: 'fern' }), /^✅ Remembered/);
      const calls = await callsOf(store, async (s) => {
        const tools = m.createMemoryTools({ store: s, userId: 'u1', agentId: 'a', ...options });
        assert.equal(await tools.call('forgetFact', { key: 'plant' }), '✅ Forgotten: plant');
      });
      const writes = calls.filter((c) => ['get', 'delete', 'appendHistory', 'deleteWithHistory'].includes(c));
      assert.deepEqual(writes, ['deleteWithHistory'], calls.join(', '));
      const { current, versions } = await m.entryHistory({ store, userId: 'u1', key: 'plant' });
      assert.deepEqual([current, versions.map((v) => [v.value, v.reason])], [[], [['fern', 'deleted']]]);
      assert.deepEqual(await store.historySize('u1'), { versions: 1, audit: 2 });
      assert.equal(await store.deleteWithHistory('nothing-here', { userId: 'u1', versions: [], audit: [], maxVersionsPerEntry: 10, notBefore: '2026-01-01T00:00:00.000Z' }), false);
    });

    test(kind === 'd1' ? 'a new key on D1 (no interactive transactions, no insertWithHistory): the append, then the capped insert' : 'a new key is one insertWithHistory: the capped insert and its audit record in one transaction', async () => {
      const { store } = backend;
      assert.equal(typeof store.insertWithHistory, kind === 'd1' ? 'undefined' : 'function');
      const calls = await callsOf(store, async (s) => {
        const tools = m.createMemoryTools({ store: s, userId: 'u1', agentId: 'a', ...options });
        assert.equal(await tools.call('rememberFact', { key: 'river', value: 'Douro' }), '✅ Remembered: river = Douro [fact, self]');
      });
      const writes = calls.filter((c) => ['upsert', 'appendHistory', 'writeWithHistory', 'insertWithinCap', 'insertWithHistory'].includes(c));
      assert.deepEqual(writes, kind === 'd1' ? ['appendHistory', 'insertWithinCap'] : ['insertWithHistory'], calls.join(', '));
      assert.deepEqual(await store.historySize('u1'), { versions: 0, audit: 1 });
    });

    if (kind !== 'd1') {
      test('a capped insert the store refuses (the user full) appends nothing; one it writes appends its record', async () => {
        const { store } = backend;
        await m.upsertUserMemory(store, { userId: 'u1', key: 'a1', value: 'one', visibility: 'global' }, options);
        const before = await store.historySize('u1');
        const entry = (id, key) => ({ id, userId: 'u1', key, value: 'two', category: 'fact', visibility: 'global', sourceAgentId: null, groupIds: [], createdAt: NOW, updatedAt: NOW, accessCount: 0, conflicted: false });
        const append = (id, key, userId = 'u1') => ({ userId, versions: [], audit: [{ at: NOW, userId, operation: 'write', entryId: id, key, actor: { kind: 'rest', id: null } }], maxVersionsPerEntry: 10, notBefore: '2026-01-01T00:00:00.000Z' });
        const refused = await store.insertWithHistory(entry('x2', 'a2'), { maxEntries: 1, evict: [] }, append('x2', 'a2'));
        assert.deepEqual([refused.written, Number(refused.count)], [false, 1]);
        assert.deepEqual(await store.historySize('u1'), before);
        assert.equal(await store.get('x2'), null);
        const written = await store.insertWithHistory(entry('x3', 'a3'), { maxEntries: 5, evict: [] }, append('x3', 'a3'));
        assert.equal(written.written, true);
        assert.deepEqual(await store.historySize('u1'), { ...before, audit: before.audit + 1 });
        assert.equal((await store.get('x3')).value, 'two');
        await assert.rejects(() => store.insertWithHistory(entry('x4', 'a4'), { maxEntries: 5, evict: [] }, append('x4', 'a4', 'u2')), /append\.userId must be entry\.userId/);
      });
    }

    test(kind === 'd1' ? "a failing insert of a new key on D1 leaves the append's record (D1 appends first: no interactive transactions)" : "a failing insert of a new key leaves the history as it was (no record of a write that did not happen)", async () => {
      const { store } = backend;
      const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'a', ...options });
      const before = await store.historySize('u1');
      await sql(FAULTS[dialect].insert.create);
      try {
        assert.match(await tools.call('rememberFact', { key: 'explode', value: 'v1' }), /^❌ Failed to store memory: /);
        assert.deepEqual(await store.historySize('u1'), kind === 'd1' ? { ...before, audit: before.audit + 1 } : before);
        assert.deepEqual(await store.list('u1'), []);
      } finally {
        await sql(FAULTS[dialect].insert.drop);
      }
      assert.equal(await tools.call('rememberFact', { key: 'explode', value: 'v1' }), '✅ Remembered: explode = v1 [fact, self]');
    });

    // The append that fails: the audit insert, or on a SQLite file the journal's.
    const appendFault = kind === 'sqlite-file' ? 'journal' : 'audit';

    test(`a failing ${appendFault} insert leaves a new key unwritten and the history as it was`, async () => {
      const { store } = backend;
      const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'a', ...options });
      const before = await store.historySize('u1');
      await sql(FAULTS[dialect][appendFault].create);
      try {
        assert.match(await tools.call('rememberFact', { key: 'lake', value: 'Bled' }), /^❌ Failed to store memory: /);
        assert.deepEqual(await store.historySize('u1'), before);
        // D1 appends first: the audit insert fails before the entry is written, so nothing is.
        assert.deepEqual((await store.list('u1')).map((e) => e.key), []);
      } finally {
        await sql(FAULTS[dialect][appendFault].drop);
      }
      assert.equal(await tools.call('rememberFact', { key: 'lake', value: 'Bled' }), '✅ Remembered: lake = Bled [fact, self]');
      assert.deepEqual(await store.historySize('u1'), { versions: 0, audit: before.audit + 1 });
    });

    if (kind === 'sqlite-file') {
      test('on SQLite an update with history commits a bounded number of pages more than without', async () => {
        // Work counted by SQLite itself: the WAL frames (one per page a commit writes) of 128
        // updates of one key at its maxVersionsPerEntry (each drops the oldest version), history
        // off and on, on a fresh file. The cost the history adds is these pages (each B-tree a
        // row touches: docs/internals/measurements.md, "History"); a new index shows here.
        const dir = mkdtempSync(join(tmpdir(), 'memcore-pages-'));
        const store = await openSqlite(join(dir, 'pages.db'));
        try {
          const db = store.database;
          const wal = `${db.name}-wal`;
          const framesOf = async (enabled) => {
            let n = 0;
            const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'a', config: { history: { enabled } }, now: () => NOW, newId: () => `${enabled}-${n++}` });
            const write = async (i) => {
              tools.newTurn();
              assert.match(await tools.call('rememberFact', { key: `pages_${enabled}`, value: `value ${i}` }), /^✅ Remembered/);
            };
            for (let i = 0; i < 14; i += 1) await write(i);
            db.pragma('wal_checkpoint(TRUNCATE)');
            for (let i = 14; i < 142; i += 1) await write(i);
            const frames = (statSync(wal).size - 32) / (4096 + 24);
            db.pragma('wal_checkpoint(TRUNCATE)');
            return frames / 128;
          };
          db.pragma('wal_autocheckpoint = 0');
          const off = await framesOf(false);
          const on = await framesOf(true);
          assert.equal((await store.historySize('u1')).versions, 10);
          // 13 and 15.1 today (25.3 before the journal): a write adds its journal row's page;
          // the fold every 64th write shares the pages of the two tables and their nine indexes
          // between its appends. 128 writes: two folds counted.
          assert.ok(off >= 10 && on - off <= 4, `pages a commit: ${off} without history, ${on} with`);
        } finally {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        }
      });

      test('on SQLite a write with history builds no transaction function of its own', async () => {
        // better-sqlite3's db.transaction(fn) wraps fn four times at each call (~15 µs, as much
        // as the journal's insert): the store's driver makes one when it opens and reuses it for
        // every write, fold and read-your-write transaction.
        const dir = mkdtempSync(join(tmpdir(), 'memcore-tx-'));
        const store = await openSqlite(join(dir, 'tx.db'));
        try {
          const db = store.database;
          let built = 0;
          const transaction = db.transaction;
          db.transaction = function (...args) {
            built += 1;
            return transaction.apply(this, args);
          };
          let n = 0;
          const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'a', now: () => NOW, newId: () => `tx-${n++}` });
          for (let i = 0; i < 70; i += 1) {
            tools.newTurn();
            assert.match(await tools.call('rememberFact', { key: `k${i % 3}`, value: `value ${i}` }), /^✅ Remembered/);
          }
          tools.newTurn();
          assert.equal(await tools.call('forgetFact', { key: 'k0' }), '✅ Forgotten: k0');
          // 70 writes, a fold at the 64th, one deletion, and a read of history (a fold).
          assert.equal((await store.historySize('u1')).audit, 71);
          assert.equal(built, 0);
        } finally {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }

    if (kind === 'postgres') {
      test('on PostgreSQL the write with its history is one round trip', async () => {
        const { store } = backend;
        await m.upsertUserMemory(store, { userId: 'u1', key: 'tea', value: 'green', visibility: 'global' }, options);
        const { pool } = store;
        const [query, connect] = [pool.query, pool.connect];
        let trips = 0;
        let during = false;
        pool.query = function (...args) {
          if (during) trips += 1;
          return query.apply(this, args);
        };
        pool.connect = function (...args) {
          // A client of our own (no callback: pool.query's own connect passes one) is a
          // transaction: several round trips.
          if (during && args.length === 0) trips += 1000;
          return connect.apply(this, args);
        };
        try {
          const wrapped = counted(store, []);
          const write = wrapped.writeWithHistory;
          wrapped.writeWithHistory = async (...args) => {
            during = true;
            try {
              return await write(...args);
            } finally {
              during = false;
            }
          };
          await m.upsertUserMemory(wrapped, { userId: 'u1', key: 'tea', value: 'black', visibility: 'global' }, options);
        } finally {
          Object.assign(pool, { query, connect });
          delete pool.query;
          delete pool.connect;
        }
        assert.equal(trips, 1);
        assert.deepEqual(await store.historySize('u1'), { versions: 1, audit: 2 });
      });
    }

    test('an append expires every expired version and audit record of its owner, however many (the erasure\'s record stays)', async () => {
      const { store } = backend;
      const old = (i) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + i * 1000).toISOString();
      const versions = Array.from({ length: 600 }, (_, i) => ({ id: `x${i}~v`, entryId: `x${i}`, userId: 'u1', key: `k${i}`, value: 'v', validUntil: old(i) }));
      const audit = Array.from({ length: 600 }, (_, i) => ({ at: old(i), userId: 'u1', operation: 'write', entryId: `x${i}`, key: `k${i}`, actor: { kind: 'rest', id: null } }));
      audit.push({ at: old(0), userId: 'u1', operation: 'erase', entryId: null, key: null, actor: { kind: 'rest', id: null } });
      const keep = { maxVersionsPerEntry: 10, notBefore: '2025-01-01T00:00:00.000Z' };
      await store.appendHistory({ userId: 'u1', versions, audit, ...keep });
      await store.appendHistory({ userId: 'u2', versions: [{ ...versions[0], id: 'y~v', entryId: 'y', userId: 'u2' }], audit: [{ ...audit[0], userId: 'u2' }], ...keep });
      assert.deepEqual(await store.historySize('u1'), { versions: 600, audit: 601 });
      // Everything of u1 before the 599th second is expired: 599 versions and 599 records
      // (the erasure's record stays); u2's rows are another owner's.
      await store.appendHistory({ userId: 'u1', versions: [], audit: [], maxVersionsPerEntry: 10, notBefore: old(599) });
      assert.deepEqual(await store.historySize('u1'), { versions: 1, audit: 2 });
      assert.deepEqual(await store.historySize('u2'), { versions: 1, audit: 1 });
    });

    test('one version an append (every update and deletion): each entry keeps its newest maxVersionsPerEntry, counted after the insert', async () => {
      // PostgreSQL appends a single version through statements of its own (schema 12, planned
      // once a session); the rule is the same as for a list of versions.
      const { store } = backend;
      const at = (i) => new Date(Date.parse(NOW) + i * 1000).toISOString();
      const version = (i) => ({ id: `e~${i}`, entryId: 'e', userId: 'u1', key: 'k', value: `v${i}`, validUntil: at(i) });
      const append = (v, max) => store.appendHistory({ userId: 'u1', versions: [v], audit: [], maxVersionsPerEntry: max, notBefore: '2026-01-01T00:00:00.000Z' });
      // Newest first (a store answers versions in no set order).
      const kept = async () => (await store.versions({ userId: 'u1', entryId: 'e' })).sort((a, b) => b.validUntil.localeCompare(a.validUntil)).map((v) => v.value);
      const values = (from, to) => Array.from({ length: to - from }, (_, i) => `v${to - 1 - i}`);
      for (let i = 0; i < 12; i += 1) await append(version(i), 10);
      assert.deepEqual(await kept(), values(2, 12));
      // The same version again is stored once, and trims nothing.
      await append(version(11), 10);
      assert.deepEqual(await kept(), values(2, 12));
      // A version older than the ten kept is the eleventh: not kept.
      await append(version(-5), 10);
      assert.deepEqual(await kept(), values(2, 12));
      // A lowered cap holds from the next append: the newest 3, the new version among them.
      await append(version(20), 3);
      assert.deepEqual(await kept(), ['v20', 'v11', 'v10']);
      assert.deepEqual(await store.historySize('u1'), { versions: 3, audit: 0 });
    });

    if (kind === 'postgres') {
      test('on PostgreSQL, with statistics of a history in use, the history append reads the owner\'s history through its indexes', async () => {
        // PL/pgSQL keeps a plan of each statement of memcore_append_history per connection,
        // costed from the statistics of the moment (docs/reference/storage.md, "History"): with
        // statistics of a history of some size, no statement reads a history table whole and the
        // expiries read the owner's rows by time. The plans are PostgreSQL's own, sent by
        // auto_explain to the client. (Statistics of a much smaller table can plan reads of the
        // whole table until autovacuum analyzes it again; the store's other statements are
        // planned at each call from the tables as they are.)
        const pool = new pg.Pool({
          connectionString: backend.server.url,
          max: 1,
          options: '-c session_preload_libraries=auto_explain -c auto_explain.log_min_duration=0 -c auto_explain.log_nested_statements=on -c client_min_messages=log',
        });
        const plans = [];
        // The plans of the append function's own statements (their context names it).
        pool.on('connect', (client) => client.on('notice', (notice) => {
          if (/memcore_append_history/.test(notice.where ?? '')) plans.push(notice.message);
        }));
        const store = await openPostgres(pool);
        // A generic plan names the function's variables ($3), a custom one their values.
        const byTime = (plan) => /(Index Scan using|Bitmap Index Scan on) memcore_entry_versions_user_until [^\n]*\n\s*Index Cond: \(\(user_id = (\$\d+|'u1'::text)\) AND \(valid_until < /.test(plan);
        const expiries = () => plans.filter((plan) => /^Query Text: DELETE FROM memcore_entry_versions\b[^]*valid_until < not_before/m.test(plan));
        const auditExpiries = () => plans.filter((plan) => /^Query Text: DELETE FROM memcore_audit/m.test(plan));
        // Each append first looks at the owner's oldest version and record; it deletes only when
        // that one is expired.
        const oldest = (column) => plans.filter((plan) => new RegExp(`^Query Text: \\(SELECT min\\(d\\.${column}\\)`, 'm').test(plan));
        try {
          const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'a', ...options });
          const remember = (key, value) => {
            tools.newTurn();
            return tools.call('rememberFact', { key, value });
          };
          // Statistics of a versions table that held one entry's versions.
          for (let i = 0; i < 12; i += 1) assert.match(await remember('hot', `v${i}`), /^✅ Remembered/);
          await pool.query('ANALYZE memcore_entry_versions, memcore_audit');
          plans.length = 0;
          for (let k = 0; k < 40; k += 1) {
            for (const value of ['a', 'b']) assert.match(await remember(`k${k}`, value), /^✅ Remembered/);
          }
          assert.equal((await store.historySize('u1')).versions, 10 + 40);
          // (Planned from statistics of one entry's versions: those plans may read the tables
          // whole — on tables of a page or two their cheapest plan — until the next ANALYZE.)
          // Then a history of some size — 6,000 versions and records of 2,000 entries of the
          // user and as many of another, none expired — its statistics, and more writes: every
          // statement of the function reads the history through an index, the expiries the
          // owner's oldest rows in time order.
          const at = (i) => new Date(Date.parse(NOW) + i * 1000).toISOString();
          for (const userId of ['u1', 'u9']) {
            for (let batch = 0; batch < 6; batch += 1) {
              const rows = Array.from({ length: 1000 }, (_, j) => batch * 1000 + j);
              await store.appendHistory({
                userId,
                versions: rows.map((i) => ({ id: `${userId}-h${i}~v`, entryId: `${userId}-h${i % 2000}`, userId, key: `h${i % 2000}`, value: 'v', validUntil: at(i) })),
                audit: rows.map((i) => ({ at: at(i), userId, operation: 'write', entryId: `${userId}-h${i % 2000}`, key: `h${i % 2000}`, actor: { kind: 'rest', id: null } })),
                maxVersionsPerEntry: 10,
                notBefore: '2026-01-01T00:00:00.000Z',
              });
            }
          }
          await pool.query('ANALYZE memcore_entry_versions, memcore_audit');
          plans.length = 0;
          for (let k = 0; k < 20; k += 1) assert.match(await remember(`k${k}`, 'f'), /^✅ Remembered/);
          assert.ok(oldest('valid_until').length >= 20 && oldest('at').length >= 20, `${oldest('valid_until').length} and ${oldest('at').length} looks at the oldest reported`);
          assert.deepEqual(oldest('valid_until').filter((plan) => !/Index (Only )?Scan using memcore_entry_versions_user_until /.test(plan)), []);
          assert.deepEqual(oldest('at').filter((plan) => !/Index (Only )?Scan using memcore_audit_user_at /.test(plan)), []);
          // None is expired yet: nothing deleted by time.
          assert.deepEqual([expiries().length, auditExpiries().length], [0, 0]);
          assert.ok(plans.some((plan) => /memcore_entry_versions_entry/.test(plan)), 'the trim was reported');
          assert.equal((await store.historySize('u1')).versions, 6000 + 10 + 40 + 20);
          // An append whose retention expires u1's first 100 seconds deletes them (those of the
          // 6,000 and the 70 versions of the writes above, made at NOW), reading the owner's
          // rows by time.
          await store.appendHistory({ userId: 'u1', versions: [], audit: [], maxVersionsPerEntry: 10, notBefore: at(100) });
          assert.ok(expiries().length === 1 && auditExpiries().length === 1, `${expiries().length} and ${auditExpiries().length} expiries reported`);
          assert.deepEqual(expiries().filter((plan) => !byTime(plan)), []);
          assert.deepEqual(auditExpiries().filter((plan) => !/(Index (Only )?Scan using|Bitmap Index Scan on) memcore_audit_(user_at|at) /.test(plan)), []);
          assert.deepEqual(plans.filter((plan) => /Seq Scan on memcore_(entry_versions|audit)\b/.test(plan)), []);
          assert.equal((await store.historySize('u1')).versions, 6000 - 100);
        } finally {
          await store.close();
          await pool.end();
        }
      });

      test('on PostgreSQL a write with history reads the versions of its entry, not every version of the user', async () => {
        // Work counted by PostgreSQL itself: the buffers an EXPLAIN ANALYZE of the write's own
        // statement touches (the append function's statements included), at 210 and at 810
        // versions of the user's other entries — bounded, whatever the planner knows of the table.
        const { store } = backend;
        const { pool } = store;
        const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'a', ...options });
        const value = (() => { let n = 0; return () => `v${(n += 1)}`; })();
        const remember = (key, v) => {
          tools.newTurn();
          return tools.call('rememberFact', { key, value: v });
        };
        const buffersOfNextWrite = async () => {
          const query = pool.query;
          let captured = null;
          pool.query = function (...args) {
            if (captured === null && typeof args[0] === 'string' && /memcore_append_history/.test(args[0])) captured = args;
            return query.apply(this, args);
          };
          try {
            assert.match(await remember('hot', value()), /^✅ Remembered/);
          } finally {
            delete pool.query;
          }
          assert.ok(captured, 'the write went through memcore_append_history');
          const client = await pool.connect();
          try {
            await client.query('BEGIN');
            const [{ 'QUERY PLAN': [plan] }] = (await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${captured[0]}`, captured[1])).rows;
            await client.query('ROLLBACK');
            // The statement's own buffers and its WITH part's (an InitPlan, counted apart).
            const blocks = (n) => n['Shared Hit Blocks'] + n['Shared Read Blocks'];
            return blocks(plan.Plan) + (plan.Plan.Plans ?? []).filter((p) => p['Parent Relationship'] === 'InitPlan').reduce((sum, p) => sum + blocks(p), 0);
          } finally {
            client.release();
          }
        };
        const others = async (from, to) => {
          for (let i = from; i < to; i += 1) {
            for (const v of ['a', 'b', 'c']) assert.match(await remember(`other_${i}`, v), /^✅ Remembered/);
          }
        };
        for (let i = 0; i < 12; i += 1) await remember('hot', value());
        await others(0, 100);
        const few = await buffersOfNextWrite();
        await others(100, 400);
        assert.equal((await store.historySize('u1')).versions, 10 + 800);
        const many = await buffersOfNextWrite();
        // A write's own work: its entry, the indexes of the rows it adds, the entry's versions.
        // A plan through the user's versions read 687 buffers at 210 of them (schema 7's statement,
        // before the planner had statistics of the table).
        assert.ok(few <= 80 && many <= 80, `buffers: ${few} with 210 versions, ${many} with 810`);
      });
    }

    if (kind === 'postgres') {
      test('on PostgreSQL a capped insert with its history costs no statement more than without', async () => {
        const { store } = backend;
        const { pool } = store;
        const connect = pool.connect;
        let statements = 0;
        // The transaction's client: every statement it sends is a round trip.
        pool.connect = async function (...args) {
          const client = await connect.apply(this, args);
          if (args.length === 0) {
            const query = client.query;
            client.query = function (...q) {
              statements += 1;
              return query.apply(this, q);
            };
            const release = client.release;
            client.release = function (...r) {
              client.query = query;
              client.release = release;
              return release.apply(this, r);
            };
          }
          return client;
        };
        const entry = (id, key) => ({ id, userId: 'u1', key, value: 'v', category: 'fact', visibility: 'global', sourceAgentId: null, groupIds: [], createdAt: NOW, updatedAt: NOW, accessCount: 0, conflicted: false });
        const append = (id, key) => ({ userId: 'u1', versions: [], audit: [{ at: NOW, userId: 'u1', operation: 'write', entryId: id, key, actor: { kind: 'rest', id: null } }], maxVersionsPerEntry: 10, notBefore: '2026-01-01T00:00:00.000Z' });
        const trips = async (write) => {
          statements = 0;
          await write();
          return statements;
        };
        try {
          const plain = await trips(() => store.insertWithinCap(entry('p1', 'plain_one'), { maxEntries: 100, evict: [] }));
          const before = await store.historySize('u1');
          const withHistory = await trips(() => store.insertWithHistory(entry('h1', 'history_one'), { maxEntries: 100, evict: [] }, append('h1', 'history_one')));
          assert.equal(withHistory, plain, 'the append rides in the insert statement');
          assert.deepEqual(await store.historySize('u1'), { ...before, audit: before.audit + 1 });
          // The key already held (the row at the identity updated in place): the same, its record kept.
          const again = await trips(() => store.insertWithHistory(entry('h2', 'history_one'), { maxEntries: 100, evict: [] }, append('h2', 'history_one')));
          assert.equal(again, plain, 'the update in place carries the append');
          assert.deepEqual(await store.historySize('u1'), { ...before, audit: before.audit + 2 });
          assert.equal((await store.get('h1')).key, 'history_one');
        } finally {
          pool.connect = connect;
          delete pool.connect;
        }
      });
    }

    test('a failing delete leaves both the entry and its history as they were', async () => {
      const { store } = backend;
      const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'a', ...options });
      assert.match(await tools.call('rememberFact', { key: 'explode', value: 'v1' }), /^✅ Remembered/);
      const before = await store.historySize('u1');
      await sql(FAULTS[dialect].delete.create);
      try {
        assert.match(await tools.call('forgetFact', { key: 'explode' }), /^❌ Failed to forget memory: /);
        assert.deepEqual(await store.historySize('u1'), before);
        const { current, versions } = await m.entryHistory({ store, userId: 'u1', key: 'explode' });
        assert.deepEqual([current.map((e) => e.value), versions], [['v1'], []]);
      } finally {
        await sql(FAULTS[dialect].delete.drop);
      }
      assert.equal(await tools.call('forgetFact', { key: 'explode' }), '✅ Forgotten: explode');
    });

    for (const fault of ['entry', appendFault]) {
      test(`a failing ${fault === 'entry' ? 'entry update' : `${fault} insert`} leaves both the entry and its history as they were`, async () => {
        const { store } = backend;
        const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'a', ...options });
        assert.match(await tools.call('rememberFact', { key: 'explode', value: 'v1' }), /^✅ Remembered/);
        const before = await store.historySize('u1');
        await sql(FAULTS[dialect][fault].create);
        try {
          assert.match(await tools.call('rememberFact', { key: 'explode', value: 'v2' }), /^❌ Failed to store memory: /);
          assert.deepEqual(await store.historySize('u1'), before);
          const { current, versions } = await m.entryHistory({ store, userId: 'u1', key: 'explode' });
          assert.deepEqual([current.map((e) => e.value), versions], [['v1'], []]);
        } finally {
          await sql(FAULTS[dialect][fault].drop);
        }
        // The next call works, and keeps the history.
        assert.match(await tools.call('rememberFact', { key: 'explode', value: 'v3' }), /^✅ Remembered/);
        const { versions } = await m.entryHistory({ store, userId: 'u1', key: 'explode' });
        assert.deepEqual(versions.map((v) => v.value), ['v1']);
      });
    }
  });
}

// The history journal of a SQLite file (docs/reference/storage.md, "History"): a write with
// history journals its append — one row in the write's own transaction — and the 64th journaled
// append folds them all into the history tables (the same statements as a direct append), as
// does every read of history, an erasure (in its own transaction) and `close()`. Counted through
// the file's own tables, never timed; then a fold that fails, and a read-only open.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as m from 'memcore';
import { openSqlite } from 'memcore/adapters/sqlite';

const NOW = '2026-06-01T10:00:00.000Z';

async function withFile(body) {
  const dir = mkdtempSync(join(tmpdir(), 'memcore-journal-'));
  try {
    await body(join(dir, 'memcore.db'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Rows of the journal and of the two history tables, read past the store (no fold). */
function rows(store) {
  return store.database.prepare('SELECT (SELECT count(*) FROM memcore_history_journal) AS journal, (SELECT count(*) FROM memcore_entry_versions) AS versions, (SELECT count(*) FROM memcore_audit) AS audit').get();
}

function tools(store, userId = 'u1') {
  let n = 0;
  let clock = Date.parse(NOW);
  const now = () => new Date((clock += 1000)).toISOString();
  const t = m.createMemoryTools({ store, userId, agentId: 'a', config: { guardrails: { maxWritesPerTurn: 1000 } }, now, newId: () => `${userId}-e${++n}` });
  return async (key, value) => {
    t.newTurn();
    return t.call('rememberFact', { key, value });
  };
}

test('a write journals its history; the 64th journaled write folds all of them, and so does a read of history', async () => {
  await withFile(async (path) => {
    const store = await openSqlite(path);
    try {
      const remember = tools(store);
      for (let i = 0; i < 63; i += 1) assert.match(await remember('city', `c${i}`), /^✅ Remembered/);
      // 63 writes: one new key (an audit record), 62 updates (a version and a record each).
      assert.deepEqual(rows(store), { journal: 63, versions: 0, audit: 0 });
      assert.match(await remember('city', 'c63'), /^✅ Remembered/);
      // maxVersionsPerEntry (10) kept of the 63 versions, every record.
      assert.deepEqual(rows(store), { journal: 0, versions: 10, audit: 64 });
      assert.match(await remember('city', 'c64'), /^✅ Remembered/);
      assert.deepEqual(rows(store), { journal: 1, versions: 10, audit: 64 });
      // A read of history folds first: it reads every append.
      assert.deepEqual(await store.historySize('u1'), { versions: 10, audit: 65 });
      assert.deepEqual(rows(store), { journal: 0, versions: 10, audit: 65 });
      const { versions } = await m.entryHistory({ store, userId: 'u1', key: 'city' });
      assert.deepEqual(versions.map((v) => v.value), ['c63', 'c62', 'c61', 'c60', 'c59', 'c58', 'c57', 'c56', 'c55', 'c54']);
      assert.deepEqual(rows(store).journal, 0);
      assert.equal(await store.foldHistory(), 0);
    } finally {
      await store.close();
    }
  });
});

test('the journal folded keeps what direct appends keep: the same versions and audit records as InMemoryEntryStore', async () => {
  // The same writes (7 keys rewritten in turn, past maxVersionsPerEntry) on a file, journaled
  // and folded twice on the way, and on an InMemoryEntryStore, which appends directly.
  await withFile(async (path) => {
    const file = await openSqlite(path);
    const memory = new m.InMemoryEntryStore();
    try {
      for (const store of [file, memory]) {
        const remember = tools(store, 'u2');
        for (let i = 0; i < 150; i += 1) assert.match(await remember(`k${i % 7}`, `v${i}`), /^✅ Remembered/);
      }
      const strip = (list) => list.map(({ seq, ...record }) => record);
      const fileLog = await m.auditLog({ store: file, userId: 'u2', limit: 1000 });
      assert.equal(fileLog.length, 150);
      assert.deepEqual(strip(fileLog), strip(await m.auditLog({ store: memory, userId: 'u2', limit: 1000 })));
      const seqs = fileLog.map((r) => r.seq);
      assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b));
      for (let k = 0; k < 7; k += 1) {
        const [a, b] = await Promise.all([file, memory].map((store) => m.entryHistory({ store, userId: 'u2', key: `k${k}` })));
        assert.equal(a.versions.length, 10);
        assert.deepEqual(a, b);
      }
    } finally {
      await file.close();
    }
  });
});

test('a fold that fails leaves the journal and the history as they were; the write that triggered it stands; the next fold applies it', async () => {
  await withFile(async (path) => {
    const store = await openSqlite(path);
    try {
      const remember = tools(store);
      for (let i = 0; i < 63; i += 1) assert.match(await remember('tea', `t${i}`), /^✅ Remembered/);
      store.database.exec("CREATE TRIGGER memcore_test_fault BEFORE INSERT ON memcore_audit BEGIN SELECT RAISE(ABORT, 'injected fault'); END");
      // The 64th write commits (entry and journal row); its fold fails and changes nothing.
      assert.match(await remember('tea', 't63'), /^✅ Remembered/);
      assert.deepEqual(rows(store), { journal: 64, versions: 0, audit: 0 });
      assert.equal((await store.get('u1-e1')).value, 't63');
      // A read of history reports the failing fold.
      await assert.rejects(() => store.historySize('u1'), (error) => error.code === 'E_HOST' && /injected fault/.test(error.message));
      await assert.rejects(() => store.foldHistory(), /injected fault/);
      assert.deepEqual(rows(store), { journal: 64, versions: 0, audit: 0 });
      store.database.exec('DROP TRIGGER memcore_test_fault');
      assert.equal(await store.foldHistory(), 64);
      assert.deepEqual(await store.historySize('u1'), { versions: 10, audit: 64 });
    } finally {
      await store.close();
    }
  });
});

test('an erasure removes the journaled appends of the user with the rest, in its own transaction', async () => {
  await withFile(async (path) => {
    const store = await openSqlite(path);
    try {
      const gone = tools(store, 'gone');
      const kept = tools(store, 'kept');
      for (let i = 0; i < 5; i += 1) {
        assert.match(await gone('pet', `p${i}`), /^✅ Remembered/);
        assert.match(await kept('pet', `p${i}`), /^✅ Remembered/);
      }
      assert.deepEqual(rows(store), { journal: 10, versions: 0, audit: 0 });
      const report = await m.eraseUserData('gone', { entries: store });
      assert.equal(report.entries[0], 1);
      assert.deepEqual(rows(store).journal, 0);
      assert.deepEqual(await store.historySize('gone'), { versions: 0, audit: 0 });
      assert.deepEqual(await store.historySize('kept'), { versions: 4, audit: 5 });
      const left = store.database.prepare("SELECT count(*) AS n FROM memcore_entry_versions WHERE user_id = 'gone'").get().n;
      assert.equal(left, 0);
    } finally {
      await store.close();
    }
  });
});

test('a read-only open reads the history as last folded (close() folds); it lists the journal\'s users', async () => {
  await withFile(async (path) => {
    const writer = await openSqlite(path);
    const remember = tools(writer);
    for (let i = 0; i < 3; i += 1) assert.match(await remember('sea', `s${i}`), /^✅ Remembered/);
    // An append of a user with no entry (as deleteWithHistory leaves one), not yet folded.
    await writer.appendHistory({ userId: 'ghost', versions: [], audit: [{ at: NOW, userId: 'ghost', operation: 'write', entryId: 'x1', key: 'k', actor: { kind: 'rest', id: null } }], maxVersionsPerEntry: 10, notBefore: '2026-01-01T00:00:00.000Z' });
    const reader = await openSqlite(path, { readonly: true });
    try {
      assert.deepEqual(rows(writer), { journal: 4, versions: 0, audit: 0 });
      // It cannot fold: the appends since the last fold are not in its answers yet.
      assert.deepEqual(await reader.historySize('u1'), { versions: 0, audit: 0 });
      assert.equal(await reader.foldHistory(), 0);
      assert.deepEqual((await reader.storedUserIds()).map((u) => u.userId).sort(), ['ghost', 'u1']);
      await writer.close();
      assert.deepEqual(await reader.historySize('u1'), { versions: 2, audit: 3 });
      assert.deepEqual(await reader.historySize('ghost'), { versions: 0, audit: 1 });
    } finally {
      await reader.close();
    }
  });
});

test('a tenant\'s journaled append folds into its own rows: ids with the tenant\'s prefix, each body the version\'s JSON text; idHolders reads it before the fold', async () => {
  await withFile(async (path) => {
    const store = await openSqlite(path);
    try {
      const tenant = store.forTenant('acme');
      // Text JSON escapes (a quote, a newline, a control character, a lone surrogate) and text
      // it does not (é, an emoji): the folded body is the version's JSON.stringify, byte for byte.
      const value = 'é "q"\n\u0001 😀 \ud800';
      const version = { id: 'e1~v1', entryId: 'e1', userId: 'u', key: 'k', value, validUntil: NOW, author: { kind: 'agent', id: 'a' }, n: 1.5e-7 };
      const record = { at: NOW, userId: 'u', operation: 'write', entryId: 'e1', key: 'k', actor: { kind: 'agent', id: 'a' } };
      await tenant.appendHistory({ userId: 'u', versions: [version], audit: [record], maxVersionsPerEntry: 10, notBefore: '2026-01-01T00:00:00.000Z' });
      assert.deepEqual(rows(store), { journal: 1, versions: 0, audit: 0 });
      // A new id's check reads the journaled version (no fold); another tenant does not see it.
      assert.deepEqual(await tenant.idHolders(['e1']), [{ id: 'e1', userId: 'u', current: false }]);
      assert.deepEqual(await store.forTenant('other').idHolders(['e1']), []);
      assert.deepEqual(rows(store).journal, 1);
      assert.equal(await store.foldHistory(), 1);
      const stored = store.database.prepare('SELECT id, user_id, entry_id, key, valid_until, body FROM memcore_entry_versions').all();
      assert.deepEqual(stored, [{ id: 'acme\u001fe1~v1', user_id: 'acme\u001fu', entry_id: 'acme\u001fe1', key: 'k', valid_until: NOW, body: JSON.stringify(version) }]);
      const audit = store.database.prepare('SELECT at, user_id, operation, body FROM memcore_audit').all();
      assert.deepEqual(audit, [{ at: NOW, user_id: 'acme\u001fu', operation: 'write', body: JSON.stringify(record) }]);
      assert.deepEqual(await tenant.versions({ userId: 'u' }), [version]);
      assert.deepEqual(await store.versions({ userId: 'u' }), []);
    } finally {
      await store.close();
    }
  });
});

test('a fold cuts an entry to its newest versions through the primary key, not through every version of the user', async () => {
  // SQLite's planner, left to itself, read the trim's rows through the user's index: every version
  // of the user for each entry cut (674 µs a trim for a user with 30,000 versions).
  await withFile(async (path) => {
    const store = await openSqlite(path);
    try {
      const prepared = [];
      const prepare = store.database.prepare.bind(store.database);
      store.database.prepare = (sql) => {
        prepared.push(sql);
        return prepare(sql);
      };
      const remember = tools(store);
      for (let i = 0; i < 64; i += 1) assert.match(await remember('city', `c${i}`), /^✅ Remembered/);
      const trims = prepared.filter((sql) => /^DELETE FROM memcore_entry_versions WHERE .*entry_id/s.test(sql));
      assert.equal(trims.length, 1);
      const plan = prepare(`EXPLAIN QUERY PLAN ${trims[0]}`).all('u1-e1', 'u1', 'u1-e1', 10).map((row) => row.detail);
      assert.match(plan[0], /^SEARCH memcore_entry_versions USING INDEX sqlite_autoindex_memcore_entry_versions_1 \(id=\?\)$/, plan.join('\n'));
      assert.ok(!plan.some((detail) => /user_key|user_until|SCAN/.test(detail)), plan.join('\n'));
    } finally {
      await store.close();
    }
  });
});

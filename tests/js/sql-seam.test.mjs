// The seam of the SQL adapters (js/adapters/sql/storage.js, docs/reference/storage.md "Adding a backend"):
// a backend is a driver + a dialect. A fourth driver written here — asynchronous, with no
// interactive transaction (so SqlStorage takes its batch paths, as for D1) and recording every
// statement — over the same better-sqlite3 file an `openSqlite` store holds, with the SQLite
// dialect, passes the shared tool scenarios, the SQL order vectors, the import and profile
// contracts, and answers what the better-sqlite3 store answers.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import * as m from 'memcore';
import { openSqlite } from 'memcore/adapters/sqlite';
import { replayToolScenario, scenarioEntries, scenarioUsers, toolScenarios } from '../support/tool-scenarios.mjs';

const pkgDir = join(createRequire(import.meta.url).resolve('memcore/package.json'), '..');
const internal = (file) => import(pathToFileURL(join(pkgDir, 'adapters/sql', file)).href);
const { SqlStorage } = await internal('storage.js');
const { SQLITE } = await internal('sqlite-statements.js');
const VECTORS = JSON.parse(readFileSync(new URL('../vectors/sql/order.json', import.meta.url), 'utf8'));
const isCode = (code) => (e) => e instanceof m.MemcoreError && e.code === code;

/** The driver contract, over a better-sqlite3 handle, every call recorded in `log`. */
function recordingDriver(db, log) {
  const exec = (sql, params) => {
    const statement = db.prepare(sql);
    return statement.reader ? { rows: statement.all(...params), changes: 0 } : { rows: [], changes: statement.run(...params).changes };
  };
  return {
    all: async (sql, params) => (log.push('all'), exec(sql, params).rows),
    first: async (sql, params) => (log.push('first'), exec(sql, params).rows[0] ?? null),
    run: async (sql, params) => (log.push('run'), { changes: exec(sql, params).changes }),
    atomic: async (list) => (log.push(`atomic:${list.length}`), db.transaction(() => list.map(([sql, params]) => exec(sql, params))).immediate()),
    // better-sqlite3 binds BLOBs from Buffers only.
    blob: (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    identityViolation: (error) => error?.code === 'SQLITE_CONSTRAINT_UNIQUE' && /memcore_entries\.key/.test(error.message),
    duplicateId: (error) => (error?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' && /memcore_entries\.id/.test(error.message) ? null : undefined),
    profileExists: (error) => error?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' && /memcore_profiles\.path/.test(error.message),
    hostError: (fn, error) => new m.MemcoreError('E_HOST', `${fn}: seam error: ${error?.message}`, { function: fn, transient: false }),
  };
}

class SeamStorage extends SqlStorage {}

describe('SqlStorage over a fourth driver (batch-only, recording) and the SQLite dialect', () => {
  let dir;
  let native;
  let store;
  const log = [];
  const reset = () => native.database.exec('DELETE FROM memcore_entries; DELETE FROM memcore_profiles;');
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'memcore-seam-'));
    native = await openSqlite(join(dir, 'memcore.db'));
    store = new SeamStorage(recordingDriver(native.database, log), SQLITE);
  });
  after(async () => {
    await native?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the shared tool scenarios, byte-exact; the better-sqlite3 store reads the same rows', async () => {
    let ran = 0;
    for (const s of toolScenarios.scenarios) {
      if (s.calls.some((c) => c.failOn?.length)) continue; // fault injection: sql-stores.test.mjs
      reset();
      for (const e of scenarioEntries(s)) await store.upsert(e);
      const storedEntries = async () => (await Promise.all(scenarioUsers(s).map((u) => store.list(u)))).flat();
      await replayToolScenario(s, { label: 'seam', store, storedEntries });
      for (const u of scenarioUsers(s)) assert.deepEqual(await store.list(u), await native.list(u), `${s.name}: ${u}`);
      ran++;
    }
    assert.ok(ran >= 10, `${ran} scenarios`);
  });

  test('the SQL order vectors: recall, oldestOwn and search answer the ids of the vector file, in its order', async () => {
    reset();
    await store.insertAll(VECTORS.entries);
    for (const c of VECTORS.cases) {
      let got;
      if (c.op === 'recall') got = await store.recall({ userId: 'u', agentId: c.agentId, groupId: c.groupId, order: c.order, limit: c.limit });
      else if (c.op === 'oldestOwn') got = await store.oldestOwn({ userId: 'u', agentId: c.agentId, limit: c.limit });
      else got = await store.search('u', c.query);
      assert.deepEqual(got.map((e) => e.id), c.expect, JSON.stringify(c));
    }
  });

  test('the rights report names the store by its class', async () => {
    const report = await m.eraseUserData('nobody', { entries: store });
    assert.equal(report.stores[0].kind, 'SeamStorage');
  });

  test('vectors through the seam: putVectors is one atomic batch (plus one re-check batch for a value stored with its keys in another order); the better-sqlite3 store reads the same', async () => {
    reset();
    const entry = (id, key, value) => ({ ...scenarioEntries({ entries: [{ id, key, value }] })[0] });
    await store.insertAll([entry('v-1', 'a', 'x'), entry('v-2', 'b', { q: 1, p: 2 }), entry('v-3', 'c', 'z')]);
    log.length = 0;
    const rows = [
      { id: 'v-1', key: 'a', value: 'x', model: 'm', vector: Uint8Array.from([0, 128, 255]) },
      { id: 'v-2', key: 'b', value: { p: 2, q: 1 }, model: 'm', vector: Uint8Array.from([1]) },
      { id: 'v-3', key: 'c', value: 'changed', model: 'm', vector: Uint8Array.from([2]) },
    ];
    assert.equal(await store.putVectors(rows), 2);
    assert.deepEqual(log, ['atomic:3', 'all', 'atomic:1']);
    const hex = (rs) => Object.fromEntries(rs.map((r) => [r.id, Buffer.from(r.vector).toString('hex')]));
    assert.deepEqual(hex(await store.vectors('u1', 'm')), { 'v-1': '0080ff', 'v-2': '01' });
    assert.deepEqual(hex(await native.vectors('u1', 'm')), hex(await store.vectors('u1', 'm')));
    assert.deepEqual(await store.unembedded({ model: 'm', limit: 10 }), await native.unembedded({ model: 'm', limit: 10 }));
    assert.deepEqual((await store.unembedded({ model: 'm', limit: 10 })).map((e) => e.id), ['v-3']);
  });

  test('imports, the cap, profiles and errors: the contract, through atomic batches only', async () => {
    reset();
    const entry = (id, key, more = {}) => ({ ...scenarioEntries({ entries: [{ id, key, value: key }] })[0], ...more });
    log.length = 0;
    await store.insertAll([entry('s-1', 'a'), entry('s-2', 'b')], { profile: { path: 'root/u1/memory.md', text: 'one' } });
    assert.deepEqual(log, ['atomic:4']);
    await assert.rejects(store.insertAll([entry('s-3', 'c'), entry('s-1', 'z')]), (e) => isCode('E_HOST')(e) && e.details.reason === 'id-exists' && e.details.id === null);
    await assert.rejects(store.insertAll([entry('s-4', 'd')], { profile: { path: 'root/u1/memory.md', text: 'two' } }), isCode('E_VERSION_CONFLICT'));
    assert.deepEqual((await store.list('u1')).map((e) => e.id), ['s-1', 's-2']);
    await assert.rejects(store.upsert(entry('s-9', 'a')), (e) => isCode('E_HOST')(e) && e.details.reason === 'identity-conflict' && e.details.id === 's-9');
    assert.deepEqual(await store.insertWithinCap(entry('s-5', 'e'), { maxEntries: 2, evict: [] }), { written: false, count: 2 });
    assert.deepEqual(await store.insertWithinCap(entry('s-5', 'e'), { maxEntries: 2, evict: ['s-1'] }), { written: true, count: 2 });
    assert.equal(await native.countUser('u1'), 2);

    const read = await store.read('root/u1/memory.md');
    assert.equal(read.text, 'one');
    const { version } = await store.write('root/u1/memory.md', 'three', { ifVersion: read.version });
    assert.deepEqual(await native.read('root/u1/memory.md'), { text: 'three', version });
    await assert.rejects(store.write('root/u1/memory.md', 'four', { ifVersion: read.version }), (e) => isCode('E_VERSION_CONFLICT')(e) && e.details.actual === version);
    await assert.rejects(store.write('root/u1/memory.md', 'four', { ifAbsent: true }), isCode('E_VERSION_CONFLICT'));
    await store.remove('root/u1/memory.md');
    assert.equal(await native.read('root/u1/memory.md'), null);
    assert.equal(await store.read('\uD800'), null, 'a lone surrogate names nothing stored (the SQLite dialect)');

    native.database.exec('DROP TABLE memcore_profiles');
    await assert.rejects(store.read('root/u1/memory.md'), (e) => isCode('E_HOST')(e) && /^read: seam error: no such table/.test(e.message));
  });
});

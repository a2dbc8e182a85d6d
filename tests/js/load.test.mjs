// The load run of scripts/bench/load.mjs, smaller and deterministic: 50 concurrent clients × 20
// requests (per 10: 3 PUT, 3 recall, 1 search ranked, 1 search hybrid, 2 learn; 10 users seeded
// with 10 entries each) against examples/node-server (memcore) and against the plain Node server
// (scripts/bench/plain-server.mjs), each in a process of its own on 127.0.0.1, on a SQLite file and
// on a throwaway PostgreSQL. Asserts 0 errors for every request kind and 0 lost writes (every
// acknowledged PUT's key and every fact a learn reported written is in the store, read directly
// afterwards) — never timing.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { entryHistory } from 'memcore';
import { openPostgres } from 'memcore/adapters/postgres';
import { openSqlite } from 'memcore/adapters/sqlite';
import { countLost, KINDS, putKey, requestKind, requestOf, runOn } from '../../scripts/bench/load.mjs';
import { benchTexts, embedder, model, turnMarker } from '../../scripts/bench/load-hosts.mjs';
import { openPlainStore } from '../../scripts/bench/plain-server.mjs';
import { startPostgres } from '../support/postgres.mjs';

const SHAPE = { clients: 50, requests: 20, users: 10, seed: 10, probe: 3 };
const N = SHAPE.clients * SHAPE.requests;

const dir = mkdtempSync(join(tmpdir(), 'memcore-load-test-'));
let pg = null;
after(() => {
  pg?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('the request mix is the documented one: 30 % PUT, 30 % recall, 10 % ranked, 10 % hybrid, 20 % learn', () => {
  const counts = {};
  let status = 0;
  for (let i = 0; i < SHAPE.clients; i++) {
    for (let j = 0; j < SHAPE.requests; j++) {
      const kind = requestKind(i, j);
      counts[kind] = (counts[kind] ?? 0) + 1;
      if (kind === 'put' && putKey(i, j) === 'status') status++;
    }
  }
  assert.deepEqual(counts, { put: 0.3 * N, visible: 0.3 * N, ranked: 0.1 * N, hybrid: 0.1 * N, learn: 0.2 * N });
  assert.equal(status, 0.25 * counts.put, "a quarter of the PUTs update status");
  // Deterministic: the same request twice, and every kind's route.
  const { texts } = benchTexts();
  const shape = { users: SHAPE.users, requests: SHAPE.requests, texts };
  assert.deepEqual(requestOf(7, 3, shape), requestOf(7, 3, shape));
  const paths = new Set(Array.from({ length: 10 }, (_, j) => {
    const r = requestOf(0, j, shape);
    return `${r.method} ${r.path.replace(/\?.*mode=(\w+).*/, ' $1').replace(/\?.*/, '').replace(/load-u\d+/, '{u}')}`;
  }));
  assert.deepEqual([...paths].sort(), [
    'GET /usermemorystore/memories/{u}/search hybrid',
    'GET /usermemorystore/memories/{u}/search ranked',
    'GET /usermemorystore/memories/{u}/visible',
    'POST /usermemorystore/memories/{u}/learn',
    'PUT /usermemorystore/memories',
  ]);
});

test('the stand-in model answers two facts from the marked turn, and nothing without a marker', async () => {
  const user = `<stored_facts>\n(none)\n</stored_facts>\n\n<user_message>\nWe moved to Porto.${turnMarker(4, 9)}\n</user_message>`;
  assert.deepEqual(JSON.parse(await model({ purpose: 'extract', system: '', user })), {
    facts: [
      { key: 'recent_topic', value: 'We moved to Porto.', category: 'context' },
      { key: 'note_c4_r9', value: 'We moved to Porto.', category: 'fact' },
    ],
  });
  assert.deepEqual(JSON.parse(await model({ purpose: 'extract', system: '', user: 'no turn here' })), { facts: [] });
  const { vectors } = await embedder.embed({ texts: ['hiking in the mountains', 'hiking in the mountains', ''], purpose: 'document' });
  assert.deepEqual(vectors[0], vectors[1]);
  assert.ok(Math.abs(Math.hypot(...vectors[0]) - 1) < 1e-5, 'unit length');
  assert.ok(vectors[2].some((x) => x !== 0), 'never all zero');
});

function check(r) {
  assert.deepEqual(r.errorSamples, []);
  assert.equal(r.timedOut, false);
  assert.equal(r.seedErrors, 0);
  assert.equal(r.requests, N);
  assert.equal(r.errors, 0);
  for (const kind of KINDS) {
    assert.equal(r.kinds[kind].errors, 0, `${kind}: no errors`);
    assert.ok(r.kinds[kind].n > 0, `${kind} ran`);
    assert.ok(Number.isFinite(r.kinds[kind].alone), `${kind} alone measured`);
  }
  assert.equal(r.puts, 0.3 * N);
  assert.equal(r.learned, 2 * r.kinds.learn.n, 'every turn reported its two facts written');
  assert.equal(r.acked, r.puts + r.learned + r.probeWrites, 'every PUT was acknowledged');
  assert.ok(r.probeWrites > 0);
  assert.equal(r.lost, 0, 'every acknowledged key is in the store');
  assert.ok(r.found.hybrid[0] > 0 && r.found.ranked[0] > 0, 'searches find entries');
  assert.ok(r.rss.peak > 0 && r.rss.start > 0, 'the server process memory was read');
}

test('SQLite file, memcore: 50 clients × 20 requests, 0 errors, 0 lost writes, every version kept', async () => {
  const r = await runOn('memcore', 'sqlite', { dir, ...SHAPE });
  check(r);
  // The lost-write count sees a missing key: drop one acknowledged entry and count again.
  const db = await openSqlite(join(dir, 'memcore.db'));
  try {
    await checkMemcoreHistory(r, db);
    const [userId, key] = r.ackedKeys.find(([, k]) => k.startsWith('c'));
    const [entry] = await db.findByKey(userId, key);
    await db.delete(entry.id);
    assert.equal(await countLost(db, r.ackedKeys), 1);
  } finally {
    await db.close();
  }
});

/** Acknowledged writes of `status` per user (each wrote a new value). */
function statusWrites(r) {
  const puts = {};
  for (const [userId, key] of r.ackedKeys) if (key === 'status') puts[userId] = (puts[userId] ?? 0) + 1;
  assert.equal(Object.keys(puts).length, SHAPE.users);
  return puts;
}

/** The plain server kept every replaced `status` as a version: one fewer than the acknowledged PUTs of it, per user. */
async function checkPlainHistory(r, where) {
  const store = await openPlainStore(where);
  try {
    for (const [userId, n] of Object.entries(statusWrites(r))) assert.equal(await store.versions(userId, 'status'), n - 1, `${userId}: ${n} writes of status`);
  } finally {
    await store.close();
  }
}

/** memcore kept every replaced `status` as a version too (at most maxVersionsPerEntry, 10, by default). */
async function checkMemcoreHistory(r, db) {
  for (const [userId, n] of Object.entries(statusWrites(r))) {
    const { versions } = await entryHistory({ store: db, userId, key: 'status' });
    assert.equal(versions.length, Math.min(n - 1, 10), `${userId}: ${n} writes of status`);
  }
}

test('SQLite file, plain Node server: 50 clients × 20 requests, 0 errors, 0 lost writes, every version kept', async () => {
  const r = await runOn('plain', 'sqlite', { dir, ...SHAPE });
  check(r);
  await checkPlainHistory(r, { kind: 'sqlite', path: join(dir, 'plain.db') });
});

test('PostgreSQL, memcore and the plain Node server: 50 clients × 20 requests each, 0 errors, 0 lost writes, every version kept', async () => {
  pg = await startPostgres({ database: 'memcore_load' });
  const m = await runOn('memcore', 'postgres', { dir, pg, ...SHAPE });
  check(m);
  const db = await openPostgres(pg.url.replace(/\/[^/]*$/, '/load_memcore'));
  try {
    await checkMemcoreHistory(m, db);
  } finally {
    await db.close();
  }
  const r = await runOn('plain', 'postgres', { dir, pg, ...SHAPE });
  check(r);
  await checkPlainHistory(r, { kind: 'postgres', url: pg.url.replace(/\/[^/]*$/, '/load_plain') });
});

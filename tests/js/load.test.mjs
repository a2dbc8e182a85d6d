// The load run of scripts/bench/load.mjs, smaller and deterministic: 50 concurrent clients × 20
// requests (40 % PUT of new keys, 40 % visible/list, 20 % count/search, 10 users) against the
// examples/node-server handler over node:http on 127.0.0.1, on a SQLite file and on a throwaway
// PostgreSQL. Asserts 0 errors and 0 lost writes (every acknowledged PUT's key is in the store,
// read directly afterwards) — never timing.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from 'memcore/adapters/sqlite';
import { openPostgres } from 'memcore/adapters/postgres';
import { countLost, requestKind, runLoad } from '../../scripts/bench/load.mjs';
import { startPostgres } from '../support/postgres.mjs';

const SHAPE = { clients: 50, requests: 20, users: 10 };

const cleanups = [];
after(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

test('the request mix is the documented one: 40 % PUT, 20 % visible, 20 % list, 10 % count, 10 % search', () => {
  const counts = {};
  for (let i = 0; i < SHAPE.clients; i++) for (let j = 0; j < SHAPE.requests; j++) counts[requestKind(i, j)] = (counts[requestKind(i, j)] ?? 0) + 1;
  const n = SHAPE.clients * SHAPE.requests;
  assert.deepEqual(counts, { put: 0.4 * n, visible: 0.2 * n, list: 0.2 * n, count: 0.1 * n, search: 0.1 * n });
});

function check(r) {
  assert.deepEqual(r.errorSamples, []);
  assert.equal(r.requests, SHAPE.clients * SHAPE.requests);
  assert.equal(r.errors, 0);
  assert.equal(r.puts, 0.4 * r.requests);
  assert.equal(r.acked, r.puts, 'every PUT was acknowledged');
  assert.equal(r.lost, 0, 'every acknowledged key is in the store');
}

test('SQLite file: 50 clients × 20 requests, 0 errors, 0 lost writes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'memcore-load-'));
  const db = await openSqlite(join(dir, 'load.db'));
  cleanups.push(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const r = await runLoad(db, SHAPE);
  check(r);
  // Every user holds exactly the keys acknowledged for it (the cap of 500 is not reached).
  let total = 0;
  for (let u = 0; u < SHAPE.users; u++) total += await db.countUser(`load-u${u}`);
  assert.equal(total, r.acked);
  // The lost-write count sees a missing key: drop one acknowledged entry and count again.
  const [userId, key] = r.ackedKeys[17];
  const [entry] = await db.findByKey(userId, key);
  await db.delete(entry.id);
  assert.equal(await countLost(db, r.ackedKeys), 1);
});

test('PostgreSQL: 50 clients × 20 requests, 0 errors, 0 lost writes', async () => {
  const server = await startPostgres({ database: 'memcore_load' });
  const db = await openPostgres(server.url);
  cleanups.push(async () => {
    await db.close();
    server.stop();
  });
  const r = await runLoad(db, SHAPE);
  check(r);
  let total = 0;
  for (let u = 0; u < SHAPE.users; u++) total += await db.countUser(`load-u${u}`);
  assert.equal(total, r.acked);
});

// Concurrency across real processes (issue 12): 4 Node processes × 100 new entries for one user
// at a cap of 200, through insertWithinCap, against PostgreSQL and SQLite (WAL); 2 processes × 16
// ContextMemory rewrites of one profile through SQL profile storage (and, for comparison, through
// FileSystemProfileStorage). Each test prints its figures.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { openSqlite } from 'memcore/adapters/sqlite';
import { openPostgres } from 'memcore/adapters/postgres';
import { FileSystemProfileStorage } from 'memcore/adapters/fs';
import { startPostgres } from '../support/postgres.mjs';

const run = promisify(execFile);
const writer = fileURLToPath(new URL('../support/sql-writer.mjs', import.meta.url));
const PATH = 'user-memory/u1/memory.md';
const H = ['Identity', 'Communication Preferences', 'Work Context', 'Skills & Expertise', 'Recent Topics', 'Follow-ups'];
const PROFILE = '---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-01-01T00:00:00+00:00\nturn_count: 0\n---\n\n# User Memory\n\n'
  + H.map((h, i) => `## ${h}\n${i === 0 ? '- Ana, analyst' : '_(empty)_'}`).join('\n\n') + '\n';

let server;
let dir;
before(async () => {
  server = await startPostgres();
  dir = mkdtempSync(join(tmpdir(), 'memcore-conc-'));
});
after(() => {
  server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function processes(k, args) {
  const outputs = await Promise.all(Array.from({ length: k }, (_, w) => run(process.execPath, [writer, ...args(w)], { timeout: 120000 })));
  return outputs.map(({ stdout }) => JSON.parse(stdout.trim().split('\n').at(-1)));
}

for (const kind of ['postgres', 'sqlite']) {
  test(`${kind}: 4 processes × 100 new entries at a cap of 200 never exceed it; every accepted write is stored`, async () => {
    const target = kind === 'postgres' ? server.url : join(dir, 'cap.db');
    const store = kind === 'postgres' ? await openPostgres(target) : await openSqlite(target);
    const t0 = performance.now();
    const results = await processes(4, (w) => ['cap', kind, target, String(w), '100', '200']);
    const ms = performance.now() - t0;
    const accepted = results.flatMap((r) => r.accepted);
    const refused = results.reduce((n, r) => n + r.refused, 0);
    const stored = await store.list('cap-user');
    console.log(`# ${kind}: ${accepted.length} accepted, ${refused} refused, ${stored.length} stored, highest count seen ${Math.max(...results.map((r) => r.maxCount))}, ${ms.toFixed(0)} ms`);
    assert.equal(accepted.length, 200);
    assert.equal(refused, 200);
    assert.equal(stored.length, 200);
    assert.deepEqual(stored.map((e) => e.id).sort(), accepted.sort());
    assert.ok(results.every((r) => r.maxCount <= 200));
    await store.close();
  });
}

async function lostUpdates(kind, target, storage) {
  await storage.write(PATH, PROFILE);
  const results = await processes(2, (w) => ['turns', kind, target, String(w), '16']);
  const text = (await storage.read(PATH)).text;
  const facts = [0, 1].flatMap((w) => Array.from({ length: 16 }, (_, i) => `p${w}-${i}`));
  const lost = facts.filter((f) => !text.includes(`- fact ${f}\n`));
  return { lost, results };
}

test('2 processes × 16 afterTurn rewrites through SQL profile storage lose no update (SQLite WAL and PostgreSQL); the file system for comparison', async () => {
  const sqlitePath = join(dir, 'turns.db');
  const lite = await openSqlite(sqlitePath);
  const pg = await openPostgres(server.url);
  const fsDir = join(dir, 'fs');
  const figures = {};
  for (const [kind, target, storage] of [['sqlite', sqlitePath, lite], ['postgres', server.url, pg], ['fs', fsDir, new FileSystemProfileStorage({ baseDir: fsDir })]]) {
    const { lost, results } = await lostUpdates(kind, target, storage);
    figures[kind] = { lost: lost.length, outcomes: results.map((r) => r.outcomes) };
    console.log(`# ${kind}: ${lost.length} of 32 updates lost; outcomes ${JSON.stringify(results.map((r) => r.outcomes))}`);
    if (kind !== 'fs') {
      assert.deepEqual(lost, [], kind);
      assert.ok(results.every((r) => r.outcomes.updated === 16), `${kind}: ${JSON.stringify(results)}`);
    }
  }
  await lite.close();
  await pg.close();
});

// Concurrency and faults with real components (issue 12): 4 Node processes × 100 rememberFact of new
// keys for one user at a cap of 200 (the core's capped insert is the store's insertWithinCap
// transaction), against PostgreSQL and SQLite (WAL); 2 processes × 16
// ContextMemory rewrites of one profile through SQL profile storage (and, for comparison, through
// FileSystemProfileStorage); the database going away mid-run and coming back. Each test prints
// its figures.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ContextMemory, createMemoryTools, MemcoreError } from 'memcore';
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
  test(`${kind}: 4 processes × 100 rememberFact of new keys at maxEntriesPerUser 200 (reject) never exceed it; every accepted write is stored`, async () => {
    const target = kind === 'postgres' ? server.url : join(dir, 'cap.db');
    const store = kind === 'postgres' ? await openPostgres(target) : await openSqlite(target);
    const t0 = performance.now();
    const results = await processes(4, (w) => ['cap', kind, target, String(w), '100', '200']);
    const ms = performance.now() - t0;
    const accepted = results.flatMap((r) => r.accepted);
    const refused = results.reduce((n, r) => n + r.refused, 0);
    const stored = await store.list('cap-user');
    console.log(`# ${kind}: ${accepted.length} rememberFact accepted, ${refused} refused with the capacity message, ${stored.length} stored (cap 200), ${ms.toFixed(0)} ms`);
    assert.deepEqual(results.flatMap((r) => r.others), [], 'every answer is a write or the capacity message');
    assert.deepEqual([...new Set(results.flatMap((r) => r.refusals))], ['⚠️ Memory capacity reached (200/200). Cannot store more facts.']);
    assert.equal(accepted.length, 200);
    assert.equal(refused, 200);
    assert.equal(stored.length, 200);
    assert.deepEqual(stored.map((e) => e.key).sort(), accepted.sort());
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

// The database going away mid-run: PostgreSQL stopped, the SQLite handle closed.

const body = (line) => PROFILE.replace('- Ana, analyst', `- Ana, analyst\n${line}`).split('---\n\n')[1];

async function faultRun(kind) {
  const sqlitePath = join(dir, 'faults.db');
  let store = kind === 'postgres' ? await openPostgres(server.url) : await openSqlite(sqlitePath);
  const reopen = async () => (kind === 'postgres' ? openPostgres(server.url) : openSqlite(sqlitePath));
  const tools = (s) => createMemoryTools({ store: s, userId: 'fault-user', agentId: 'a', now: () => '2026-06-01T00:00:00Z' });
  assert.match(await tools(store).call('rememberFact', { key: 'city', value: 'Porto', category: 'fact' }), /^✅ Remembered/);
  await store.write('user-memory/fault-user/memory.md', PROFILE.replace('u1', 'fault-user'));
  let gone = false;
  const goAway = async () => {
    if (gone) return;
    gone = true;
    if (kind === 'postgres') server.halt();
    else await store.close();
  };
  // A turn whose database disappears between the read and the conditional write.
  const memory = new ContextMemory({ storage: store, model: { complete: async (r) => { if (r.purpose === 'gate') return 'UPDATE'; await goAway(); return body('- moved'); } }, now: () => '2026-06-01T00:00:00Z' });
  const turn = { userId: 'fault-user', enabled: true, userMessage: 'I moved.', assistantMessage: 'ok' };
  const during = await memory.afterTurn(turn);
  assert.equal(during.outcome, 'write-failed', JSON.stringify(during));
  const t = tools(store);
  const answers = {
    remember: await t.call('rememberFact', { key: 'job', value: 'analyst', category: 'fact' }),
    recall: await t.call('recallMemories', {}),
    search: await t.call('searchMemory', { query: 'porto' }),
    forget: await t.call('forgetFact', { key: 'city' }),
  };
  assert.match(answers.remember, /^❌ Failed to store memory: .+/);
  assert.match(answers.recall, /^❌ Failed to recall memory: .+/);
  assert.match(answers.search, /^❌ Failed to search memory: .+/);
  assert.match(answers.forget, /^❌ Failed to forget memory: .+/);
  // The SQL store is also the entry store the restriction flag is read from: unreadable counts
  // as restricted (Art. 18), before the profile is read.
  const after = await memory.afterTurn(turn);
  assert.equal(after.outcome, 'restricted');
  assert.match(after.reason, /^the restriction flag could not be read: E_HOST: /);
  assert.equal((await memory.load({ userId: 'fault-user', enabled: true })).outcome, 'no-memory');
  const direct = await store.list('fault-user').then(() => null, (e) => e);
  assert.ok(direct instanceof MemcoreError && direct.code === 'E_HOST', String(direct));
  console.log(`# ${kind} gone: ${answers.recall}; transient=${direct.details.transient}`);
  if (kind === 'postgres') {
    assert.equal(direct.details.transient, true);
    server.resume();
  } else {
    store = await reopen();
  }
  const back = tools(store);
  assert.equal(await back.call('recallMemories', {}), '• city = Porto [fact, self]');
  assert.match((await store.read('user-memory/fault-user/memory.md')).text, /- Ana, analyst\n/);
  assert.doesNotMatch((await store.read('user-memory/fault-user/memory.md')).text, /- moved/);
  await store.close();
}

test('PostgreSQL stopped mid-run: ❌ answers, write-failed then restricted and no-memory, transient errors, nothing throws; data intact after the restart', () => faultRun('postgres'));
test('SQLite handle closed mid-run: ❌ answers, write-failed then restricted and no-memory, nothing throws; data intact when reopened', () => faultRun('sqlite'));

// The SQL stores under real contention and failure (issue 12): child processes
// (tests/js/fixtures/sql-race-worker.mjs) racing on one user's entries at the cap and on one
// profile, against SQLite (a WAL file) and PostgreSQL (the Debian server, started by the test),
// and the database going away mid-run. Figures are printed as diagnostics.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ContextMemory, createMemoryTools, parseProfile } from 'memcore';
import { FileSystemProfileStorage } from 'memcore/adapters/fs';
import { openSqlite } from 'memcore/adapters/sqlite';
import { openPostgres } from 'memcore/adapters/postgres';
import { startPostgres } from '../support/postgres.mjs';

const WORKER = fileURLToPath(new URL('./fixtures/sql-race-worker.mjs', import.meta.url));
const TIMEOUT = { timeout: 240_000 }; // only a hang comes near it
const CAP = 200;
const FULL = `⚠️ Memory capacity reached (${CAP}/${CAP}). Cannot store more facts.`;
const PATH = 'user-memory/u1/memory.md';

const dir = mkdtempSync(join(tmpdir(), 'memcore-sql-race-'));
const pg = await startPostgres();
after(async () => {
  await pg.stop();
  rmSync(dir, { recursive: true, force: true });
});

let databases = 0;
/** A fresh database of `kind`: its target for the workers and an opener for this process. */
async function fresh(kind) {
  databases += 1;
  if (kind === 'sqlite') {
    const file = join(dir, `race-${databases}.db`);
    return { target: file, open: () => openSqlite(file) };
  }
  const url = await pg.createDatabase(`race_${databases}`);
  return { target: url, open: () => openPostgres(url) };
}

/** Fork one worker per id, start them together once all are ready, resolve to their reports. */
function race(mode, kind, target, ids, count, config) {
  const children = ids.map((id) => fork(WORKER, [mode, kind, target, id, String(count)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  let ready = 0;
  const reports = children.map(
    (child, i) =>
      new Promise((resolve, reject) => {
        let report = null;
        child.on('message', (message) => {
          if (message.type === 'ready' && ++ready === children.length) for (const c of children) c.send({ type: 'go', config });
          else if (message.type === 'done') report = message;
          else if (message.type === 'error') reject(new Error(`worker ${ids[i]}: ${message.code ?? ''} ${message.message}`));
        });
        child.on('error', reject);
        child.on('close', (code) => (code === 0 && report ? resolve(report) : reject(new Error(`worker ${ids[i]} exited with ${code}`))));
      }),
  );
  return Promise.all(reports).finally(() => {
    for (const child of children) if (child.exitCode === null) child.kill();
  });
}

for (const kind of ['sqlite', 'postgres']) {
  test(`${kind}: 4 processes × 100 rememberFact of new keys at maxEntriesPerUser ${CAP} (reject): never over the cap, every accepted write stored`, TIMEOUT, async (t) => {
    const db = await fresh(kind);
    const ids = ['a', 'b', 'c', 'd'];
    const config = { maxEntriesPerUser: CAP, onCapReached: 'reject' };
    const reports = await race('remember', kind, db.target, ids, 100, config);
    const store = await db.open();
    try {
      const stored = await store.list('u1');
      const keys = new Set(stored.map((e) => e.key));
      let accepted = 0;
      let refused = 0;
      for (const r of reports) {
        r.answers.forEach((answer, i) => {
          const key = `${r.workerId}-${i}`;
          if (answer === `✅ Remembered: ${key} = v${i} [fact, self]`) {
            accepted += 1;
            assert.ok(keys.has(key), `${key} was accepted and must be stored`);
          } else {
            assert.equal(answer, FULL, `${key}: an answer that is neither a write nor the capacity message`);
            assert.ok(!keys.has(key), `${key} was refused and must not be stored`);
            refused += 1;
          }
        });
      }
      t.diagnostic(`${kind}: ${accepted} accepted, ${refused} refused with the capacity message, ${stored.length} stored (cap ${CAP})`);
      assert.equal(stored.length, accepted);
      assert.equal(accepted, CAP, 'the cap is reached exactly');
      assert.equal(refused, 400 - CAP);
    } finally {
      await store.close();
    }
  });
}

/** Identity bullets of u1's profile in `storage`. */
async function facts(storage) {
  const stored = await storage.read(PATH);
  return (stored?.text ?? '').split('\n').filter((l) => l.startsWith('- fact ')).map((l) => l.slice(7)).sort();
}

for (const kind of ['sqlite', 'postgres', 'fs']) {
  test(`${kind}: 2 processes × 16 afterTurn rewrites of one profile: lost updates counted`, TIMEOUT, async (t) => {
    let target;
    let storage;
    let close = () => {};
    if (kind === 'fs') {
      target = mkdtempSync(join(dir, 'fs-'));
      storage = new FileSystemProfileStorage({ baseDir: target });
    } else {
      const db = await fresh(kind);
      target = db.target;
      storage = await db.open();
      close = () => storage.close();
    }
    try {
      const reports = await race('turns', kind, target, ['p', 'q'], 16);
      const want = ['p', 'q'].flatMap((id) => Array.from({ length: 16 }, (_, i) => `${id}:${i}`)).sort();
      const have = await facts(storage);
      const lost = want.filter((f) => !have.includes(f));
      const outcomes = reports.flatMap((r) => r.outcomes).reduce((m, o) => ({ ...m, [o]: (m[o] ?? 0) + 1 }), {});
      t.diagnostic(`${kind}: ${lost.length} of 32 updates lost; outcomes ${JSON.stringify(outcomes)}`);
      assert.equal(lost.length, 0, `lost: ${lost.join(', ')}`);
      assert.deepEqual(outcomes, { updated: 32 });
      assert.equal(parseProfile((await storage.read(PATH)).text).frontmatter.turnCount, 32);
    } finally {
      await close();
    }
  });
}

const CONSOLIDATE = (request) => {
  const current = /<current_profile>\n?([\s\S]*?)\n?<\/current_profile>/.exec(request.user)?.[1] ?? '';
  return current.replace('## Identity\n', '## Identity\n- Ana\n').replace('_(empty)_\n\n## Communication', '\n## Communication');
};

test('postgres goes away mid-run: tools answer ❌, afterTurn resolves write-failed / no-memory, nothing throws; after a restart the data is intact', TIMEOUT, async (t) => {
  const db = await fresh('postgres');
  const store = await db.open();
  const model = { complete: (r) => (r.purpose === 'gate' ? 'UPDATE' : CONSOLIDATE(r)) };
  const memory = new ContextMemory({ storage: store, model, now: () => '2026-11-30T12:00:00Z' }, { timeouts: { storageMs: 5000 } });
  const tools = createMemoryTools({ store, userId: 'u1', agentId: 'a', now: () => '2026-11-30T12:00:00Z', newId: () => 'e1' });
  assert.equal(await tools.call('rememberFact', { key: 'k', value: 'v' }), '✅ Remembered: k = v [fact, self]');
  assert.equal((await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'I am Ana', assistantMessage: 'ok' })).outcome, 'updated');
  const before = (await store.read(PATH)).text;

  await pg.stopServer();
  try {
    for (const [tool, args, prefix] of [['recallMemories', {}, '❌ Failed to recall memory: '], ['rememberFact', { key: 'k2', value: 'w' }, '❌ Failed to store memory: '], ['searchMemory', { query: 'k' }, '❌ Failed to search memory: '], ['forgetFact', { key: 'k' }, '❌ Failed to forget memory: ']]) {
      const answer = await tools.call(tool, args);
      assert.ok(answer.startsWith(prefix), `${tool}: ${answer}`);
      t.diagnostic(`${tool} while the server is down: ${answer}`);
    }
    const turn = await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'I moved to Lisbon', assistantMessage: 'ok' });
    assert.ok(['write-failed', 'no-memory'].includes(turn.outcome), JSON.stringify(turn));
    assert.equal((await memory.load({ userId: 'u1', enabled: true })).outcome, 'no-memory');
  } finally {
    await pg.startServer();
  }
  // The pool reconnects; nothing was lost or half-written.
  assert.equal(await tools.call('recallMemories', {}), '• k = v [fact, self]');
  assert.equal((await store.read(PATH)).text, before);
  await store.close();
});

test('sqlite: the handle closed mid-run: tools answer ❌, afterTurn resolves write-failed / no-memory; reopened, the data is intact', TIMEOUT, async () => {
  const db = await fresh('sqlite');
  const store = await db.open();
  const model = { complete: (r) => (r.purpose === 'gate' ? 'UPDATE' : CONSOLIDATE(r)) };
  const memory = new ContextMemory({ storage: store, model, now: () => '2026-11-30T12:00:00Z' });
  const tools = createMemoryTools({ store, userId: 'u1', agentId: 'a', now: () => '2026-11-30T12:00:00Z', newId: () => 'e1' });
  assert.equal(await tools.call('rememberFact', { key: 'k', value: 'v' }), '✅ Remembered: k = v [fact, self]');
  assert.equal((await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'I am Ana', assistantMessage: 'ok' })).outcome, 'updated');
  const before = (await store.read(PATH)).text;
  await store.close();
  assert.ok((await tools.call('recallMemories', {})).startsWith('❌ Failed to recall memory: '));
  assert.ok((await tools.call('rememberFact', { key: 'k2', value: 'w' })).startsWith('❌ Failed to store memory: '));
  const turn = await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'I moved', assistantMessage: 'ok' });
  assert.ok(['write-failed', 'no-memory'].includes(turn.outcome), JSON.stringify(turn));
  const reopened = await db.open();
  assert.deepEqual((await reopened.list('u1')).map((e) => [e.key, e.value]), [['k', 'v']]);
  assert.equal((await reopened.read(PATH)).text, before);
  await reopened.close();
});

// Compare-and-swap of the file-system profile storage under real contention: child processes
// (tests/js/fixtures/fs-cas-worker.mjs) and several instances in one process racing on one file
// that does not exist at the start. No lost update is allowed; the conflict tallies are printed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemcoreError } from 'memcore';
import { FileSystemProfileStorage } from 'memcore/adapters/fs';

const PATH = 'user-memory/u1/memory.md';
const WORKER = fileURLToPath(new URL('./fixtures/fs-cas-worker.mjs', import.meta.url));
const LOOPS = 16;
const ROUNDS = 3;
const TIMEOUT = { timeout: 120_000 }; // only a hang would come near it
const isCode = (code) => (e) => e instanceof MemcoreError && e.code === code;

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), 'memcore-cas-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Fork one worker per id, start them together once all are ready, resolve to their reports. */
function race(mode, baseDir, ids, loops = LOOPS) {
  const children = ids.map((id) => fork(WORKER, [mode, baseDir, PATH, id, String(loops)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  let ready = 0;
  const reports = children.map(
    (child, i) =>
      new Promise((resolve, reject) => {
        let report = null;
        child.on('message', (message) => {
          if (message.type === 'ready' && ++ready === children.length) for (const c of children) c.send({ type: 'go' });
          else if (message.type === 'done') report = message;
          else if (message.type === 'error') reject(new Error(`worker ${ids[i]}: ${message.code ?? ''} ${message.message}`));
        });
        child.on('error', reject);
        // 'close' comes after the exit and after the IPC channel is drained, so a sent report has arrived.
        child.on('close', (code) => (code === 0 && report ? resolve(report) : reject(new Error(`worker ${ids[i]} exited with ${code}`))));
      }),
  );
  return Promise.all(reports).finally(() => {
    for (const child of children) if (child.exitCode === null) child.kill();
  });
}

function expectedLines(ids, loops = LOOPS) {
  return ids.flatMap((id) => Array.from({ length: loops }, (_, i) => `${id}:${i}`)).sort();
}

function storedLines(base) {
  const text = readFileSync(join(base, PATH), 'utf8');
  assert.ok(text.endsWith('\n'));
  return text.slice(0, -1).split('\n').sort();
}

test('two processes × 16 concurrent read-append-CAS loops on a new file lose no update (3 rounds)', TIMEOUT, async (t) => {
  for (let round = 1; round <= ROUNDS; round++) {
    const base = tempDir(t);
    const ids = ['a', 'b'];
    const reports = await race('cas', base, ids);
    const tally = reports.map((r) => `${r.workerId}: ${r.writes} writes, ${r.conflicts} conflicts retried`).join('; ');
    t.diagnostic(`cross-process round ${round}: ${tally}`);
    assert.deepEqual(reports.map((r) => r.writes), [LOOPS, LOOPS]);
    assert.deepEqual(storedLines(base), expectedLines(ids), `round ${round}: every line survives exactly once`);
    assert.deepEqual(readdirSync(join(base, 'user-memory', 'u1')), ['memory.md'], 'no lock or temp file left');
  }
});

test('a stale lock left by a crashed process: two racing processes break it and still lose nothing (3 rounds)', TIMEOUT, async (t) => {
  for (let round = 1; round <= ROUNDS; round++) {
    const base = tempDir(t);
    const dir = join(base, 'user-memory', 'u1');
    mkdirSync(dir, { recursive: true });
    const lock = join(dir, '.memory.md.lock');
    writeFileSync(lock, JSON.stringify({ pid: 999999999, hostname: 'crashed', acquiredAt: '2020-01-01T00:00:00.000Z' }));
    const past = Date.now() / 1000 - 120;
    utimesSync(lock, past, past);
    const ids = ['p', 'q'];
    const reports = await race('cas', base, ids, 8);
    t.diagnostic(`stale-lock round ${round}: conflicts retried ${reports.map((r) => `${r.workerId}=${r.conflicts}`).join(' ')}`);
    assert.deepEqual(storedLines(base), expectedLines(ids, 8));
    assert.deepEqual(readdirSync(dir), ['memory.md'], 'stale lock, break lock and set-aside files all gone');
  }
});

test('two processes that both read null and both write with ifAbsent: exactly one creates the file (3 rounds)', TIMEOUT, async (t) => {
  for (let round = 1; round <= ROUNDS; round++) {
    const base = tempDir(t);
    const reports = await race('create', base, ['a', 'b']);
    const winners = reports.filter((r) => r.outcome === 'ok');
    const losers = reports.filter((r) => r.outcome === 'conflict');
    assert.equal(winners.length, 1, `round ${round}: ${JSON.stringify(reports)}`);
    assert.equal(losers.length, 1);
    const text = `created by ${winners[0].workerId}\n`;
    assert.equal(readFileSync(join(base, PATH), 'utf8'), text);
    const { version } = await new FileSystemProfileStorage({ baseDir: base }).read(PATH);
    assert.deepEqual(losers[0].details, { path: PATH, expected: null, actual: version });
    assert.match(losers[0].message, /already exists/);
  }
});

test('one process, two instances on the same baseDir, 2 × 16 concurrent loops: 0 lost (3 rounds)', TIMEOUT, async (t) => {
  for (let round = 1; round <= ROUNDS; round++) {
    const base = tempDir(t);
    const stores = [new FileSystemProfileStorage({ baseDir: base }), new FileSystemProfileStorage({ baseDir: base })];
    const ids = ['x', 'y'];
    const conflicts = [0, 0];
    const loop = async (k, line) => {
      for (;;) {
        const current = await stores[k].read(PATH);
        const options = current ? { ifVersion: current.version } : { ifAbsent: true };
        try {
          return await stores[k].write(PATH, `${current?.text ?? ''}${line}\n`, options);
        } catch (error) {
          if (!isCode('E_VERSION_CONFLICT')(error)) throw error;
          conflicts[k] += 1;
        }
      }
    };
    await Promise.all(ids.flatMap((id, k) => Array.from({ length: LOOPS }, (_, i) => loop(k, `${id}:${i}`))));
    t.diagnostic(`same-process round ${round}: conflicts retried x=${conflicts[0]} y=${conflicts[1]}`);
    assert.deepEqual(storedLines(base), expectedLines(ids));
    assert.deepEqual(readdirSync(join(base, 'user-memory', 'u1')), ['memory.md']);
  }
});

test('in one process, two writers that both read null and write with ifAbsent: one wins, one conflicts', async (t) => {
  const base = tempDir(t);
  const a = new FileSystemProfileStorage({ baseDir: base });
  const b = new FileSystemProfileStorage({ baseDir: base });
  assert.deepEqual(await Promise.all([a.read(PATH), b.read(PATH)]), [null, null]);
  const results = await Promise.allSettled([a.write(PATH, 'from a', { ifAbsent: true }), b.write(PATH, 'from b', { ifAbsent: true, ifVersion: null })]);
  const won = results.findIndex((r) => r.status === 'fulfilled');
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
  const lost = results[1 - won];
  assert.ok(isCode('E_VERSION_CONFLICT')(lost.reason));
  const text = won === 0 ? 'from a' : 'from b';
  assert.equal(readFileSync(join(base, PATH), 'utf8'), text);
  assert.deepEqual(lost.reason.details, { path: PATH, expected: null, actual: results[won].value.version });
});

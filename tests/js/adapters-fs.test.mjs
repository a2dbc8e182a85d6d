// The file-system profile storage through the installed package: layout, version = content hash,
// atomic writes (simulated crash before the rename), conflicts, create-only writes, lock files
// (timeout, stale locks), path refusal, concurrency. Cross-process races: adapters-fs-cas.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemcoreError } from 'memcore';
import { FileSystemProfileStorage } from 'memcore/adapters/fs';

const PATH = 'user-memory/u1/memory.md';
const LOCK = '.memory.md.lock';
const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest('hex');
const isCode = (code) => (e) => e instanceof MemcoreError && e.code === code;

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), 'memcore-fs-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('the <base>/<rootFolder>/<userId>/memory.md layout, version = SHA-256 of the content', async (t) => {
  const base = tempDir(t);
  const s = new FileSystemProfileStorage({ baseDir: base });
  assert.equal(s.baseDir, base);
  await s.ensureRoot('user-memory');
  assert.ok(existsSync(join(base, 'user-memory')));
  assert.equal(await s.read(PATH), null);
  const text = '## Identity\n- Zoë\n';
  const { version } = await s.write(PATH, text, { ifVersion: null, contentType: 'text/markdown', skipIngestion: true, hideInChat: true });
  assert.equal(version, sha256(text));
  assert.equal(readFileSync(join(base, 'user-memory', 'u1', 'memory.md'), 'utf8'), text);
  assert.deepEqual(await s.read(PATH), { text, version });
  // No temp files left after a successful write.
  assert.deepEqual(readdirSync(join(base, 'user-memory', 'u1')), ['memory.md']);
});

test('a hand edit changes the version, so a conditional write over it conflicts', async (t) => {
  const base = tempDir(t);
  const s = new FileSystemProfileStorage({ baseDir: base });
  const { version } = await s.write(PATH, 'one');
  writeFileSync(join(base, PATH), 'edited by hand');
  await assert.rejects(s.write(PATH, 'two', { ifVersion: version }), (e) => {
    assert.ok(isCode('E_VERSION_CONFLICT')(e));
    assert.deepEqual(e.details, { path: PATH, expected: sha256('one'), actual: sha256('edited by hand') });
    return true;
  });
  assert.equal(readFileSync(join(base, PATH), 'utf8'), 'edited by hand');
  assert.deepEqual(readdirSync(join(base, 'user-memory', 'u1')), ['memory.md'], 'the temp file of the refused write is removed');
  const next = await s.write(PATH, 'two', { ifVersion: sha256('edited by hand') });
  assert.equal(next.version, sha256('two'));
});

test('ifVersion against a missing file is a conflict; null writes', async (t) => {
  const s = new FileSystemProfileStorage({ baseDir: tempDir(t) });
  await assert.rejects(s.write(PATH, 'x', { ifVersion: sha256('x') }), (e) => {
    assert.ok(isCode('E_VERSION_CONFLICT')(e));
    assert.equal(e.details.actual, null);
    return true;
  });
  assert.equal((await s.write(PATH, 'x', { ifVersion: null })).version, sha256('x'));
});

test('a crash between the temp write and the rename leaves the old file intact; read ignores the temp file', async (t) => {
  const base = tempDir(t);
  const good = new FileSystemProfileStorage({ baseDir: base });
  const old = await good.write(PATH, 'old profile\n');
  let seen;
  const crashing = new FileSystemProfileStorage({
    baseDir: base,
    beforeRename(info) {
      seen = info;
      throw new Error('simulated crash');
    },
  });
  await assert.rejects(crashing.write(PATH, 'new profile that never lands\n', { ifVersion: old.version }), /simulated crash/);
  // The temp file was complete and fsynced, in the same directory, with a name read never opens.
  assert.equal(seen.path, PATH);
  assert.equal(seen.targetPath, join(base, PATH));
  assert.equal(join(seen.tempPath, '..'), join(base, 'user-memory', 'u1'));
  assert.equal(readFileSync(seen.tempPath, 'utf8'), 'new profile that never lands\n');
  assert.equal(readFileSync(join(base, PATH), 'utf8'), 'old profile\n');
  assert.deepEqual(await good.read(PATH), { text: 'old profile\n', version: old.version });
  // The leftover temp file does not disturb later writes either.
  assert.equal((await good.write(PATH, 'after', { ifVersion: old.version })).version, sha256('after'));
  assert.equal((await good.read(PATH)).text, 'after');
});

test('a crash before the first write leaves no profile behind', async (t) => {
  const base = tempDir(t);
  const crashing = new FileSystemProfileStorage({ baseDir: base, beforeRename: () => Promise.reject(new Error('crash')) });
  await assert.rejects(crashing.write(PATH, 'never'), /crash/);
  assert.equal(await new FileSystemProfileStorage({ baseDir: base }).read(PATH), null);
});

test('concurrent conditional writes on one version: exactly one wins, the file holds its text', async (t) => {
  const base = tempDir(t);
  const s = new FileSystemProfileStorage({ baseDir: base });
  const other = new FileSystemProfileStorage({ baseDir: base });
  const { version } = await s.write(PATH, 'base');
  const results = await Promise.allSettled(
    Array.from({ length: 10 }, (_, i) => (i % 2 ? other : s).write(PATH, `writer ${i}`, { ifVersion: version })),
  );
  const won = results.map((r, i) => [r, i]).filter(([r]) => r.status === 'fulfilled');
  assert.equal(won.length, 1);
  assert.ok(results.filter((r) => r.status === 'rejected').every((r) => isCode('E_VERSION_CONFLICT')(r.reason)));
  assert.equal(readFileSync(join(base, PATH), 'utf8'), `writer ${won[0][1]}`);
  assert.deepEqual(readdirSync(join(base, 'user-memory', 'u1')), ['memory.md']);
});

test('ifAbsent: true creates a missing file, conflicts on an existing one, and works again after remove', async (t) => {
  const base = tempDir(t);
  const s = new FileSystemProfileStorage({ baseDir: base });
  assert.deepEqual(await s.write(PATH, 'first', { ifAbsent: true, ifVersion: null }), { version: sha256('first') });
  await assert.rejects(s.write(PATH, 'second', { ifAbsent: true }), (e) => {
    assert.ok(isCode('E_VERSION_CONFLICT')(e));
    assert.deepEqual(e.details, { path: PATH, expected: null, actual: sha256('first') });
    assert.match(e.message, /already exists/);
    return true;
  });
  assert.equal(readFileSync(join(base, PATH), 'utf8'), 'first');
  assert.deepEqual(readdirSync(join(base, 'user-memory', 'u1')), ['memory.md'], 'temp file of the refused write removed, lock released');
  // A file written by hand counts as existing too.
  writeFileSync(join(base, 'user-memory', 'u1', 'other.md'), 'by hand');
  await assert.rejects(s.write('user-memory/u1/other.md', 'x', { ifAbsent: true }), (e) => e.details.actual === sha256('by hand'));
  // ifAbsent: false / null are no condition.
  assert.equal((await s.write(PATH, 'third', { ifAbsent: false })).version, sha256('third'));
  assert.equal((await s.write(PATH, 'fourth', { ifAbsent: null, ifVersion: sha256('third') })).version, sha256('fourth'));
  await s.remove(PATH);
  assert.deepEqual(await s.write(PATH, 'again', { ifAbsent: true }), { version: sha256('again') });
  assert.deepEqual(await s.read(PATH), { text: 'again', version: sha256('again') });
});

test('ifAbsent must be a boolean or null; together with an ifVersion it is refused before touching the disk', async (t) => {
  const base = tempDir(t);
  const s = new FileSystemProfileStorage({ baseDir: base });
  for (const ifAbsent of ['yes', 1, []]) {
    await assert.rejects(s.write(PATH, 'x', { ifAbsent }), (e) => isCode('E_ARGUMENT')(e) && e.details.argument === 'options.ifAbsent');
  }
  await assert.rejects(s.write(PATH, 'x', { ifAbsent: true, ifVersion: sha256('x') }), (e) => {
    assert.ok(isCode('E_ARGUMENT')(e));
    assert.deepEqual(e.details, { function: 'write', argument: 'options' });
    return true;
  });
  assert.deepEqual(readdirSync(base), []);
});

test('the lock is taken only around the check and the rename, not while the temp file is written', async (t) => {
  const base = tempDir(t);
  const dir = join(base, 'user-memory', 'u1');
  let during;
  const s = new FileSystemProfileStorage({ baseDir: base, beforeRename: () => { during = readdirSync(dir); } });
  await s.write(PATH, 'x', { ifAbsent: true });
  assert.equal(during.length, 1);
  assert.match(during[0], /^\.memory\.md\.\d+\.[0-9a-f-]{36}\.tmp$/);
  assert.deepEqual(readdirSync(dir), ['memory.md']);
});

test('a lock held elsewhere (fresh mtime): writes and removes fail with transient E_HOST after lockTimeoutMs; read still works', async (t) => {
  const base = tempDir(t);
  const dir = join(base, 'user-memory', 'u1');
  const lockPath = join(dir, LOCK);
  const s = new FileSystemProfileStorage({ baseDir: base, lockTimeoutMs: 100 });
  const { version } = await s.write(PATH, 'old');
  writeFileSync(lockPath, JSON.stringify({ pid: 999999999, hostname: 'elsewhere', acquiredAt: new Date().toISOString() }));
  const heldLock = (e) => {
    assert.ok(isCode('E_HOST')(e), e.code);
    assert.equal(e.details.transient, true);
    assert.equal(e.details.path, PATH);
    assert.equal(e.details.lockPath, lockPath);
    assert.ok(e.message.includes(lockPath), e.message);
    return true;
  };
  await assert.rejects(s.write(PATH, 'new', { ifVersion: version }), heldLock);
  await assert.rejects(s.write(PATH, 'new'), heldLock);
  await assert.rejects(s.write(PATH, 'new', { ifAbsent: true }), heldLock);
  await assert.rejects(s.remove(PATH), heldLock);
  assert.deepEqual(await s.read(PATH), { text: 'old', version });
  assert.deepEqual(readdirSync(dir).sort(), [LOCK, 'memory.md'], 'temp files removed, the foreign lock left alone');

  // The same lock, now older than staleLockMs (default 30 s): taken as left by a crashed process.
  const past = Date.now() / 1000 - 120;
  utimesSync(lockPath, past, past);
  assert.equal((await s.write(PATH, 'new', { ifVersion: version })).version, sha256('new'));
  assert.equal(readFileSync(join(base, PATH), 'utf8'), 'new');
  assert.deepEqual(readdirSync(dir), ['memory.md'], 'stale lock gone, nothing set aside left behind');
});

test('staleLockMs is configurable; a stale lock also does not block remove or a first write', async (t) => {
  const base = tempDir(t);
  const dir = join(base, 'user-memory', 'u1');
  mkdirSync(dir, { recursive: true });
  const s = new FileSystemProfileStorage({ baseDir: base, staleLockMs: 2000, lockTimeoutMs: 100 });
  const ago = (seconds) => Date.now() / 1000 - seconds;
  writeFileSync(join(dir, LOCK), '');
  utimesSync(join(dir, LOCK), ago(1), ago(1)); // younger than 2 s: still live
  await assert.rejects(s.write(PATH, 'x', { ifAbsent: true }), (e) => isCode('E_HOST')(e) && e.details.transient === true);
  utimesSync(join(dir, LOCK), ago(10), ago(10));
  assert.equal((await s.write(PATH, 'x', { ifAbsent: true })).version, sha256('x'));
  writeFileSync(join(dir, LOCK), '');
  utimesSync(join(dir, LOCK), ago(10), ago(10));
  await s.remove(PATH);
  assert.deepEqual(readdirSync(dir), []);
});

test('a breaker that crashed mid-break (stale .lock.break) does not block later writes', async (t) => {
  const base = tempDir(t);
  const dir = join(base, 'user-memory', 'u1');
  mkdirSync(dir, { recursive: true });
  const past = Date.now() / 1000 - 120;
  for (const name of [LOCK, `${LOCK}.break`]) {
    writeFileSync(join(dir, name), '');
    utimesSync(join(dir, name), past, past);
  }
  const s = new FileSystemProfileStorage({ baseDir: base });
  assert.equal((await s.write(PATH, 'x')).version, sha256('x'));
  assert.deepEqual(readdirSync(dir), ['memory.md']);
});

test('a lock path that is not a file is a non-transient E_HOST', async (t) => {
  const base = tempDir(t);
  mkdirSync(join(base, 'user-memory', 'u1', LOCK), { recursive: true });
  const s = new FileSystemProfileStorage({ baseDir: base, lockTimeoutMs: 100 });
  await assert.rejects(s.write(PATH, 'x'), (e) => isCode('E_HOST')(e) && e.details.transient === false && e.details.lockPath.endsWith(LOCK));
  assert.deepEqual(readdirSync(join(base, 'user-memory', 'u1')), [LOCK]);
});

test('names of lock, break, stale and temp files are refused as storage paths', async (t) => {
  const base = tempDir(t);
  const s = new FileSystemProfileStorage({ baseDir: base });
  await s.write(PATH, 'x');
  const reserved = [`user-memory/u1/${LOCK}`, `user-memory/u1/${LOCK}.break`, `user-memory/u1/${LOCK}.1.abc.stale`,
    'user-memory/u1/.memory.md.1.abc.tmp', 'user-memory/.u1.lock/memory.md', '.x.tmp'];
  for (const path of reserved) {
    for (const call of [() => s.read(path), () => s.write(path, 'x'), () => s.remove(path)]) {
      await assert.rejects(call(), (e) => isCode('E_ARGUMENT')(e) && e.details.path === path && /reserved/.test(e.details.reason), path);
    }
  }
  // Similar names without the leading dot or the suffix are ordinary files.
  for (const path of ['user-memory/u1/memory.md.lock', 'user-memory/u1/.hidden', 'user-memory/u1/.lock']) {
    await s.write(path, path);
    assert.equal((await s.read(path)).text, path);
  }
});

test('remove deletes; a missing file is fine', async (t) => {
  const base = tempDir(t);
  const s = new FileSystemProfileStorage({ baseDir: base });
  await s.write(PATH, 'x');
  await s.remove(PATH);
  assert.equal(await s.read(PATH), null);
  await s.remove(PATH);
  await s.remove('user-memory/nobody/memory.md');
});

test('read before the base directory exists is null', async (t) => {
  const s = new FileSystemProfileStorage({ baseDir: join(tempDir(t), 'not', 'yet') });
  assert.equal(await s.read(PATH), null);
});

test('paths outside baseDir are refused with E_ARGUMENT: "..", absolute, backslash, empty segments', async (t) => {
  const base = tempDir(t);
  const s = new FileSystemProfileStorage({ baseDir: join(base, 'store') });
  writeFileSync(join(base, 'secret.md'), 'outside');
  const bad = ['../secret.md', 'user-memory/../../secret.md', 'user-memory/../u1/memory.md', join(base, 'secret.md'), '/etc/passwd',
    'C:\\x\\memory.md', 'user-memory\\..\\x', 'user-memory//memory.md', './memory.md', 'user-memory/u1/\0.md'];
  for (const path of bad) {
    for (const call of [() => s.read(path), () => s.write(path, 'pwned'), () => s.remove(path)]) {
      await assert.rejects(call(), (e) => {
        assert.ok(isCode('E_ARGUMENT')(e), `${path}: ${e.code}`);
        assert.equal(e.details.path, path);
        assert.match(e.message, /inside baseDir/);
        return true;
      });
    }
  }
  await assert.rejects(s.ensureRoot('..'), isCode('E_ARGUMENT'));
  assert.equal(readFileSync(join(base, 'secret.md'), 'utf8'), 'outside');
});

test('a symlinked directory pointing outside baseDir is refused for read, write, remove and ensureRoot', async (t) => {
  const base = tempDir(t);
  const store = join(base, 'store');
  const outside = join(base, 'outside');
  mkdirSync(join(store, 'user-memory'), { recursive: true });
  mkdirSync(join(outside, 'u1'), { recursive: true });
  writeFileSync(join(outside, 'u1', 'memory.md'), 'not yours');
  symlinkSync(outside, join(store, 'user-memory', 'evil'));
  symlinkSync(outside, join(store, 'escape'));
  const s = new FileSystemProfileStorage({ baseDir: store });
  for (const path of ['user-memory/evil/u1/memory.md', 'user-memory/evil/new/memory.md', 'escape/u1/memory.md']) {
    await assert.rejects(s.read(path), isCode('E_ARGUMENT'), path);
    await assert.rejects(s.write(path, 'pwned'), isCode('E_ARGUMENT'), path);
    await assert.rejects(s.remove(path), isCode('E_ARGUMENT'), path);
  }
  await assert.rejects(s.ensureRoot('escape'), isCode('E_ARGUMENT'));
  assert.equal(readFileSync(join(outside, 'u1', 'memory.md'), 'utf8'), 'not yours');
  assert.deepEqual(readdirSync(outside), ['u1']);
});

test('a memory.md that is a symlink to a file outside is refused for read', async (t) => {
  const base = tempDir(t);
  const store = join(base, 'store');
  mkdirSync(join(store, 'user-memory', 'u1'), { recursive: true });
  writeFileSync(join(base, 'secret'), 'secret');
  symlinkSync(join(base, 'secret'), join(store, PATH));
  const s = new FileSystemProfileStorage({ baseDir: store });
  await assert.rejects(s.read(PATH), isCode('E_ARGUMENT'));
});

test('a symlinked baseDir itself and symlinks that stay inside are fine', async (t) => {
  const base = tempDir(t);
  mkdirSync(join(base, 'real', 'shared'), { recursive: true });
  symlinkSync(join(base, 'real'), join(base, 'link'));
  const s = new FileSystemProfileStorage({ baseDir: join(base, 'link') });
  symlinkSync(join(base, 'real', 'shared'), join(base, 'real', 'user-memory'));
  await s.write(PATH, 'inside');
  assert.equal(readFileSync(join(base, 'real', 'shared', 'u1', 'memory.md'), 'utf8'), 'inside');
  assert.equal((await s.read(PATH)).text, 'inside');
});

test('bad options are E_CONFIG with the field path', () => {
  assert.throws(() => new FileSystemProfileStorage(), (e) => isCode('E_CONFIG')(e) && e.details.path === 'options');
  assert.throws(() => new FileSystemProfileStorage({}), (e) => isCode('E_CONFIG')(e) && e.details.path === 'baseDir');
  assert.throws(() => new FileSystemProfileStorage({ baseDir: '' }), (e) => isCode('E_CONFIG')(e) && e.details.path === 'baseDir');
  assert.throws(
    () => new FileSystemProfileStorage({ baseDir: '.', beforeRename: 1 }),
    (e) => isCode('E_CONFIG')(e) && e.details.path === 'beforeRename',
  );
  for (const name of ['lockTimeoutMs', 'staleLockMs']) {
    for (const value of [0, -1, 1.5, '100', null, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      assert.throws(
        () => new FileSystemProfileStorage({ baseDir: '.', [name]: value }),
        (e) => isCode('E_CONFIG')(e) && e.details.path === name && /positive integer/.test(e.message),
        `${name}: ${String(value)}`,
      );
    }
    assert.doesNotThrow(() => new FileSystemProfileStorage({ baseDir: '.', [name]: 1 }));
  }
});

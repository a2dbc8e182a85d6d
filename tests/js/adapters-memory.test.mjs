// The in-memory profile storage through the installed package: versions, conditional writes
// (ifVersion and create-only ifAbsent), conflicts and the test helpers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemcoreError } from 'memcore';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';

const PATH = 'user-memory/u1/memory.md';
const isCode = (code) => (e) => e instanceof MemcoreError && e.code === code;

test('read of a missing file is null; versions count up per path as strings', async () => {
  const s = new InMemoryProfileStorage();
  assert.equal(await s.read(PATH), null);
  assert.deepEqual(await s.write(PATH, 'a'), { version: '1' });
  assert.deepEqual(await s.write(PATH, 'b', { ifVersion: null }), { version: '2' });
  assert.deepEqual(await s.write('user-memory/u2/memory.md', 'x'), { version: '1' });
  assert.deepEqual(await s.read(PATH), { text: 'b', version: '2' });
});

test('a matching ifVersion writes; a stale one is E_VERSION_CONFLICT with path, expected, actual', async () => {
  const s = new InMemoryProfileStorage();
  const { version } = await s.write(PATH, 'one');
  assert.deepEqual(await s.write(PATH, 'two', { ifVersion: version }), { version: '2' });
  await assert.rejects(s.write(PATH, 'three', { ifVersion: version }), (e) => {
    assert.ok(isCode('E_VERSION_CONFLICT')(e));
    assert.deepEqual(e.details, { path: PATH, expected: '1', actual: '2' });
    assert.match(e.message, /re-read/);
    return true;
  });
  assert.equal((await s.read(PATH)).text, 'two');
});

test('an ifVersion against a missing file is a conflict; null is not', async () => {
  const s = new InMemoryProfileStorage();
  await assert.rejects(s.write(PATH, 'x', { ifVersion: '1' }), (e) => {
    assert.ok(isCode('E_VERSION_CONFLICT')(e));
    assert.deepEqual(e.details, { path: PATH, expected: '1', actual: null });
    return true;
  });
  assert.deepEqual(await s.write(PATH, 'x', { ifVersion: null }), { version: '1' });
});

test('versions never restart after remove, so an old version cannot match a new file', async () => {
  const s = new InMemoryProfileStorage();
  await s.write(PATH, 'a');
  await s.remove(PATH);
  await s.remove(PATH); // missing is fine
  assert.equal(await s.read(PATH), null);
  assert.deepEqual(await s.write(PATH, 'b'), { version: '2' });
  await assert.rejects(s.write(PATH, 'c', { ifVersion: '1' }), isCode('E_VERSION_CONFLICT'));
  assert.deepEqual(s.removes, [PATH, PATH]);
});

test('snapshot, writes log and ensureRoot record what the core did', async () => {
  const s = new InMemoryProfileStorage({ files: { 'user-memory/b/memory.md': 'B' } });
  await s.ensureRoot('user-memory');
  const options = { ifVersion: null, contentType: 'text/markdown', skipIngestion: true, hideInChat: true };
  await s.write('user-memory/a/memory.md', 'A', options);
  await assert.rejects(s.write('user-memory/a/memory.md', 'A2', { ifVersion: '9' }));
  assert.deepEqual(s.snapshot(), { 'user-memory/a/memory.md': 'A', 'user-memory/b/memory.md': 'B' });
  assert.deepEqual(Object.keys(s.snapshot()), ['user-memory/a/memory.md', 'user-memory/b/memory.md']);
  assert.deepEqual(s.writes, [{ path: 'user-memory/a/memory.md', options }]);
  assert.deepEqual(s.roots, ['user-memory']);
  assert.deepEqual(await s.read('user-memory/b/memory.md'), { text: 'B', version: '1' });
});

test('concurrent conditional writes on one version: exactly one wins', async () => {
  const s = new InMemoryProfileStorage();
  const { version } = await s.write(PATH, 'base');
  const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => s.write(PATH, `w${i}`, { ifVersion: version })));
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
  assert.ok(results.filter((r) => r.status === 'rejected').every((r) => isCode('E_VERSION_CONFLICT')(r.reason)));
});

test('ifAbsent: true creates a missing file; an existing one is E_VERSION_CONFLICT with expected null', async () => {
  const s = new InMemoryProfileStorage();
  assert.deepEqual(await s.write(PATH, 'first', { ifAbsent: true }), { version: '1' });
  await assert.rejects(s.write(PATH, 'second', { ifAbsent: true, ifVersion: null }), (e) => {
    assert.ok(isCode('E_VERSION_CONFLICT')(e));
    assert.deepEqual(e.details, { path: PATH, expected: null, actual: '1' });
    assert.match(e.message, /already exists/);
    assert.match(e.message, /re-read/);
    return true;
  });
  assert.deepEqual(await s.read(PATH), { text: 'first', version: '1' });
  // false and null mean "no create-only condition".
  assert.deepEqual(await s.write(PATH, 'third', { ifAbsent: false }), { version: '2' });
  assert.deepEqual(await s.write(PATH, 'fourth', { ifAbsent: null, ifVersion: '2' }), { version: '3' });
  // After remove the path is free again; versions still never restart.
  await s.remove(PATH);
  assert.deepEqual(await s.write(PATH, 'again', { ifAbsent: true }), { version: '4' });
  assert.deepEqual(s.writes.map((w) => w.options), [{ ifAbsent: true }, { ifAbsent: false }, { ifAbsent: null, ifVersion: '2' }, { ifAbsent: true }]);
});

test('concurrent ifAbsent creations of one path: exactly one wins', async () => {
  const s = new InMemoryProfileStorage();
  const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => s.write(PATH, `c${i}`, { ifAbsent: true })));
  const won = results.findIndex((r) => r.status === 'fulfilled');
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
  assert.equal((await s.read(PATH)).text, `c${won}`);
  for (const r of results.filter((r) => r.status === 'rejected')) {
    assert.ok(isCode('E_VERSION_CONFLICT')(r.reason));
    assert.deepEqual(r.reason.details, { path: PATH, expected: null, actual: '1' });
  }
});

test('ifAbsent must be a boolean or null; ifAbsent: true with an ifVersion is contradictory', async () => {
  const s = new InMemoryProfileStorage({ files: { [PATH]: 'x' } });
  for (const ifAbsent of [1, 'true', {}, 0]) {
    await assert.rejects(s.write(PATH, 'y', { ifAbsent }), (e) => {
      assert.ok(isCode('E_ARGUMENT')(e));
      assert.deepEqual(e.details, { function: 'write', argument: 'options.ifAbsent' });
      return true;
    });
  }
  await assert.rejects(s.write(PATH, 'y', { ifAbsent: true, ifVersion: '1' }), (e) => {
    assert.ok(isCode('E_ARGUMENT')(e));
    assert.deepEqual(e.details, { function: 'write', argument: 'options' });
    assert.match(e.message, /contradicts/);
    return true;
  });
  // ifAbsent: false with an ifVersion is just the ifVersion condition.
  assert.deepEqual(await s.write(PATH, 'y', { ifAbsent: false, ifVersion: '1' }), { version: '2' });
  assert.deepEqual(s.snapshot(), { [PATH]: 'y' });
});

test('bad arguments are E_ARGUMENT', async () => {
  const s = new InMemoryProfileStorage();
  await assert.rejects(s.read(''), isCode('E_ARGUMENT'));
  await assert.rejects(s.write(PATH, 42), isCode('E_ARGUMENT'));
  await assert.rejects(s.write(PATH, 'x', { ifVersion: 3 }), isCode('E_ARGUMENT'));
  assert.throws(() => new InMemoryProfileStorage({ files: { [PATH]: 1 } }), isCode('E_ARGUMENT'));
});

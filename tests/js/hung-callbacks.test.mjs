// Host callbacks that never settle (issue 8, item 9), through the installed package: every host
// call of a turn has a deadline, so a hung model, write or notice cannot hold the user's lock; the
// model's AbortSignal is aborted when its deadline passes; a deletion never waits behind a turn and
// the turn then writes nothing; a store that never answers cannot hold the tools' queue. The
// deadlines here are short (tens of milliseconds) so the tests end quickly; nothing asserts on time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as m from 'memcore';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import { createMemoryHandler } from 'memcore/server';

const PATH = 'user-memory/u1/memory.md';
const body = (identity) =>
  `# User Memory\n\n## Identity\n${identity}\n\n## Communication Preferences\n_(empty)_\n\n## Work Context\n_(empty)_\n\n` +
  '## Skills & Expertise\n_(empty)_\n\n## Recent Topics\n_(empty)_\n\n## Follow-ups\n_(empty)_\n';
const STORED = '---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-01-01T00:00:00+00:00\nturn_count: 2\n---\n\n' + body('- Name: Dana');
const never = () => new Promise(() => {});
const turn = { userId: 'u1', enabled: true, userMessage: 'I moved to Lyon', assistantMessage: 'Noted.' };
const SHORT = { timeouts: { modelMs: 40, storageMs: 40, noticeMs: 20 } };

test('a model that never answers: the gate fails open, the rewrite is model-failed, its AbortSignal is aborted, the lock is free', async () => {
  const storage = new InMemoryProfileStorage({ files: { [PATH]: STORED } });
  const signals = [];
  const notices = [];
  const memory = new m.ContextMemory(
    {
      storage,
      model: (request) => {
        signals.push(request.signal);
        return never();
      },
      onNotice: (n) => notices.push(n.kind),
    },
    SHORT,
  );
  const report = await memory.afterTurn(turn);
  assert.equal(report.gate, 'update');
  assert.match(report.gateError, /model\.complete did not answer within 40 ms/);
  assert.equal(report.outcome, 'model-failed');
  assert.match(report.reason, /model\.complete did not answer within 40 ms/);
  assert.deepEqual(notices, ['show', 'clear']);
  assert.equal(signals.length, 2);
  assert.ok(signals.every((s) => s instanceof AbortSignal && s.aborted), 'each abandoned call was aborted');
  assert.equal(storage.snapshot()[PATH], STORED);
  // The user's lock is free: an edit, a deletion and another turn all settle.
  await memory.updateMyContextMemory('u1', body('- Edited'));
  assert.equal(await memory.deleteContextMemory('u1'), true);
  assert.equal((await memory.afterTurn(turn)).outcome, 'model-failed');
});

test('a write and a notice that never settle time out; the turn reports it and the next one runs', async () => {
  const files = new InMemoryProfileStorage({ files: { [PATH]: STORED } });
  let hangWrites = true;
  const storage = {
    read: (p) => files.read(p),
    write: (p, t, o) => (hangWrites ? never() : files.write(p, t, o)),
    remove: (p) => files.remove(p),
  };
  let hangNotices = false;
  const model = ({ purpose }) => (purpose === 'gate' ? 'UPDATE' : body('- Name: Dana\n- Lives in Lyon'));
  const memory = new m.ContextMemory({ storage, model, onNotice: () => (hangNotices ? never() : undefined) }, SHORT);
  const hung = await memory.afterTurn(turn);
  assert.equal(hung.outcome, 'write-failed');
  assert.match(hung.reason, /storage\.write did not answer within 40 ms/);
  hangWrites = false;
  hangNotices = true;
  const next = await memory.afterTurn(turn);
  assert.equal(next.outcome, 'updated', 'a notice that never settles does not block the turn');
  assert.match(files.snapshot()[PATH], /Lives in Lyon/);
});

test('reads that never settle: load is no-memory, the Settings functions reject E_HOST, a deletion rejects', async () => {
  const storage = { read: never, write: never, remove: never };
  const memory = new m.ContextMemory({ storage, model: () => 'NOOP' }, SHORT);
  const load = await memory.load({ userId: 'u1', enabled: true });
  assert.equal(load.outcome, 'no-memory');
  assert.match(load.reason, /storage\.read did not answer/);
  const timedOut = (e) => e.code === 'E_HOST' && e.details.timedOut === true && e.details.transient === true;
  await assert.rejects(memory.getMyContextMemory('u1'), timedOut);
  await assert.rejects(memory.updateMyContextMemory('u1', body('- x')), timedOut);
  await assert.rejects(memory.deleteContextMemory('u1'), timedOut);
});

test('a deletion never waits behind a turn’s model call, and the turn writes nothing after it', async () => {
  const storage = new InMemoryProfileStorage({ files: { [PATH]: STORED } });
  let release;
  const held = new Promise((resolve) => (release = resolve));
  let rewriteStarted;
  const started = new Promise((resolve) => (rewriteStarted = resolve));
  const model = async ({ purpose }) => {
    if (purpose === 'gate') return 'UPDATE';
    rewriteStarted();
    await held;
    return body('- Name: Dana\n- Lives in Lyon');
  };
  // Long deadlines: the deletion must not be waiting for a timeout either.
  const memory = new m.ContextMemory({ storage, model }, { timeouts: { modelMs: 600000 } });
  const running = memory.afterTurn(turn);
  await started;
  assert.equal(await memory.deleteContextMemory('u1'), true, 'the deletion finished while the turn waits on its model');
  assert.equal(storage.snapshot()[PATH], undefined);
  release();
  const report = await running;
  assert.equal(report.outcome, 'write-failed');
  assert.equal(report.reason, 'profile-deleted');
  assert.equal(storage.snapshot()[PATH], undefined, 'the deleted profile is not re-created');
});

test('a store that never answers fails one tool call and never holds the tools’ queue', async () => {
  let hang = true;
  const inner = new m.InMemoryEntryStore();
  const store = {
    list: (u) => (hang ? never() : inner.list(u)),
    get: (id) => inner.get(id),
    upsert: (e) => inner.upsert(e),
    delete: (id) => inner.delete(id),
    incrementAccess: (ids) => inner.incrementAccess(ids),
  };
  const tools = m.createMemoryTools({ store, userId: 'u', agentId: 'a', storeTimeoutMs: 30 });
  const [a, b] = await Promise.all([
    tools.call('recallMemories', {}),
    tools.call('rememberFact', { key: 'k', value: 'v', category: 'fact' }),
  ]);
  assert.equal(a, '❌ Failed to recall memory: store.list did not answer within 30 ms');
  assert.equal(b, '❌ Failed to store memory: store.list did not answer within 30 ms');
  hang = false;
  assert.equal(await tools.call('rememberFact', { key: 'k', value: 'v', category: 'fact' }), '✅ Remembered: k = v [fact, self]');
});

test('timeouts are validated: 1 ms to 1 hour, with the field path', () => {
  const storage = new InMemoryProfileStorage();
  for (const [timeouts, path] of [[{ modelMs: 0 }, 'timeouts.modelMs'], [{ storageMs: 3600001 }, 'timeouts.storageMs'], [{ noticeMs: -1 }, 'timeouts.noticeMs'], [{ noticeMs: 1.5 }, 'timeouts.noticeMs']]) {
    assert.throws(() => new m.ContextMemory({ storage }, { timeouts }), (e) => e.code === 'E_CONFIG' && e.details.path === path, path);
  }
  assert.throws(() => m.createMemoryTools({ store: new m.InMemoryEntryStore(), userId: 'u', agentId: 'a', storeTimeoutMs: 0 }), (e) => e.code === 'E_CONFIG' && e.details.path === 'storeTimeoutMs');
});

test('every store-using export takes storeTimeoutMs: a store that never answers fails at the given deadline', async () => {
  const hung = { list: never, get: never, upsert: never, delete: never, incrementAccess: never };
  // An entry store that also holds profiles: the rights functions' profile side has the same deadline.
  const hungProfiles = { ...hung, read: never, write: never, remove: never };
  const timedOut = (ms) => (e) => e.code === 'E_HOST' && e.details.timedOut === true && e.message.includes(`did not answer within ${ms} ms`);
  const doc = await m.exportUserData('u1', { entries: new m.InMemoryEntryStore(), now: () => '2026-12-01T00:00:00Z' });
  const calls = {
    readProperties: (ms) => m.readProperties(hung, 'u1', { storeTimeoutMs: ms }),
    mergeProperties: (ms) => m.mergeProperties(hung, 'u1', { theme: 'dark' }, { storeTimeoutMs: ms }),
    deleteProperties: (ms) => m.deleteProperties(hung, 'u1', { storeTimeoutMs: ms }),
    persistLongTermProperties: (ms) => m.persistLongTermProperties(hung, [{ name: 'theme', value: 'dark' }], { userId: 'u1', agentId: 'a', storeTimeoutMs: ms }),
    setProcessingRestriction: (ms) => m.setProcessingRestriction(hung, 'u1', true, { admin: true, storeTimeoutMs: ms }),
    isProcessingRestricted: (ms) => m.isProcessingRestricted(hung, 'u1', { storeTimeoutMs: ms }),
    eraseUserData: (ms) => m.eraseUserData('u1', { entries: hung, storeTimeoutMs: ms }),
    exportUserData: (ms) => m.exportUserData('u1', { entries: hung, storeTimeoutMs: ms }),
    importUserData: (ms) => m.importUserData(doc, { entries: hung, storeTimeoutMs: ms }),
    listUserMemories: (ms) => m.listUserMemories(hung, 'u1', { storeTimeoutMs: ms }),
    deleteAllUserMemories: (ms) => m.deleteAllUserMemories(hung, 'u1', { storeTimeoutMs: ms }),
  };
  for (const [name, call] of Object.entries(calls)) {
    await assert.rejects(call(25), timedOut(25), `${name} with storeTimeoutMs: 25`);
    await assert.rejects(call(0), (e) => e.code === 'E_CONFIG' && e.details.path === 'storeTimeoutMs', `${name} with storeTimeoutMs: 0`);
  }
  // The profile side: erasure removes the entries first, so a profile-only store reaches the profile calls.
  const profileOnly = { ...hungProfiles, list: async () => [], delete: async () => false };
  await assert.rejects(m.eraseUserData('u1', { entries: profileOnly, storeTimeoutMs: 25 }), timedOut(25), 'the profile side of eraseUserData');
  await assert.rejects(m.exportUserData('u1', { entries: profileOnly, storeTimeoutMs: 25 }), timedOut(25), 'the profile side of exportUserData');
  // The migration reports a failed insert as data, with the deadline it was given.
  const plan = m.planPropertiesMigration([{ _id: 'd1', userId: 'u1', theme: 'dark' }], {});
  const report = await m.applyPropertiesMigration(plan, hung, { storeTimeoutMs: 25, now: () => '2026-06-17T12:00:00Z', newId: () => 'mig-1' });
  assert.match(JSON.stringify(report), /did not answer within 25 ms/);
  await assert.rejects(m.applyPropertiesMigration(plan, hung, { storeTimeoutMs: 0 }), (e) => e.code === 'E_CONFIG' && e.details.path === 'storeTimeoutMs');
});

test("the server's storeTimeoutMs reaches the admin rights routes: erase, export and restriction fail at its deadline", async () => {
  const hung = { list: never, get: never, upsert: never, delete: never, incrementAccess: never };
  const authenticate = () => ({ userId: 'admin', admin: true });
  const handler = createMemoryHandler({ entries: hung, authenticate, storeTimeoutMs: 25 });
  for (const [method, path, body] of [['DELETE', ''], ['GET', '/export'], ['GET', '/restriction'], ['PUT', '/restriction', { restricted: true }]]) {
    const init = body ? { method, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : { method };
    const res = await handler(new Request(`http://x/admin/gdpr/u7${path}`, init));
    const answer = await res.json();
    assert.equal(answer.error?.code, 'E_HOST', `${method} ${path}: ${JSON.stringify(answer)}`);
    assert.match(answer.error.message, /did not answer within 25 ms/, `${method} ${path}`);
  }
});

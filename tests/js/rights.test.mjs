// Data-subject rights through the installed package (SPEC §4.3, issue 14 items 3–5): the Art. 18
// restriction on every write path (tools, properties, afterTurn, Dream), Art. 17 erasure of entries
// and profile (folder included) with a turn racing it, and the Art. 15/20 export → import round trip.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as m from 'memcore';
import { FileSystemProfileStorage } from 'memcore/adapters/fs';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';

const NOW = () => '2026-11-30T12:00:00Z';
const PATH = 'user-memory/u1/memory.md';
const RESTRICTED = '⚠️ Memory processing is restricted for this user. Nothing new is stored.';
const isCode = (code) => (e) => e instanceof m.MemcoreError && e.code === code;
const H = ['Identity', 'Communication Preferences', 'Work Context', 'Skills & Expertise', 'Recent Topics', 'Follow-ups'];
const body = (identity) => '# User Memory\n\n' + H.map((h, i) => `## ${h}\n${i === 0 ? identity : '_(empty)_'}`).join('\n\n') + '\n';

/** A plain JS entry store; `fail` names operations that throw. */
class JsStore {
  constructor(entries = []) {
    this.entries = entries.map((e) => structuredClone(e));
    this.fail = new Set();
  }
  check(op) {
    if (this.fail.has(op)) throw new Error('database unavailable');
  }
  async list(userId) {
    this.check('list');
    return structuredClone(this.entries.filter((e) => e.userId === userId));
  }
  async get(id) {
    this.check('get');
    return structuredClone(this.entries.find((e) => e.id === id) ?? null);
  }
  async upsert(entry) {
    this.check('upsert');
    this.entries = [...this.entries.filter((e) => e.id !== entry.id), structuredClone(entry)];
  }
  async delete(id) {
    this.check('delete');
    const before = this.entries.length;
    this.entries = this.entries.filter((e) => e.id !== id);
    return this.entries.length < before;
  }
  async incrementAccess(ids) {
    for (const e of this.entries) if (ids.includes(e.id)) e.accessCount += 1;
  }
}

function ids(prefix = 'id') {
  let n = 0;
  return () => `${prefix}-${++n}`;
}

/** A model that counts its calls and appends one Identity bullet per consolidation. */
function countingModel() {
  const model = {
    calls: 0,
    complete(request) {
      model.calls += 1;
      return request.purpose === 'gate' ? 'UPDATE' : body('- Ana');
    },
  };
  return model;
}

test('setProcessingRestriction is admin only: without { admin: true } it rejects and writes nothing', async () => {
  const store = new m.InMemoryEntryStore();
  await assert.rejects(m.setProcessingRestriction(store, 'u1', true), isCode('E_ARGUMENT'));
  await assert.rejects(m.setProcessingRestriction(store, 'u1', true, { admin: false }), (e) => isCode('E_ARGUMENT')(e) && e.details.argument === 'options.admin');
  await assert.rejects(m.setProcessingRestriction(store, 'u1', 'yes', { admin: true }), isCode('E_ARGUMENT'));
  await assert.rejects(m.setProcessingRestriction(store, '../x', true, { admin: true }), isCode('E_INVALID_USER_ID'));
  assert.equal(store.size, 0);
  assert.equal(await m.isProcessingRestricted(store, 'u1'), false);
});

test('while restricted nothing new is stored on any write path; reading works; lifting restores writes', async (t) => {
  const store = new m.InMemoryEntryStore();
  const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'a', now: NOW, newId: ids() });
  assert.equal(await tools.call('rememberFact', { key: 'k', value: 'v' }), '✅ Remembered: k = v [fact, self]');
  assert.deepEqual(await m.setProcessingRestriction(store, 'u1', true, { admin: true, now: NOW, newId: () => 'flag' }), { restricted: true, changed: true });
  assert.deepEqual(await m.setProcessingRestriction(store, 'u1', true, { admin: true, now: NOW, newId: () => 'flag2' }), { restricted: true, changed: false });
  assert.equal(await m.isProcessingRestricted(store, 'u1'), true);
  const flag = store.get('flag');
  assert.deepEqual([flag.key, flag.visibility, flag.value], ['_gdpr_processing_restricted', 'global', { restricted: true, since: '2026-11-30T12:00:00.000Z' }]);

  // 1. the tools refuse every write; recall still reads (and does not show the flag)
  tools.newTurn();
  assert.equal(await tools.call('rememberFact', { key: 'k2', value: 'w' }), RESTRICTED);
  assert.equal(await tools.call('recallMemories', {}), '• k = v [fact, self]');
  // 2. properties are not persisted
  const persisted = await m.persistLongTermProperties(store, [{ name: 'tz', value: 'CET' }], { userId: 'u1', agentId: 'a', now: NOW, newId: ids('p') });
  assert.equal(persisted.restricted, true);
  assert.deepEqual(persisted.stored, []);
  // 3. afterTurn with the entry store: `restricted`, the model is never called, nothing written
  const storage = new InMemoryProfileStorage();
  const model = countingModel();
  const memory = new m.ContextMemory({ storage, model, entries: store, now: NOW });
  const turn = await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'I am Ana', assistantMessage: 'Hi Ana' });
  assert.equal(turn.outcome, 'restricted');
  assert.equal(model.calls, 0);
  assert.equal(await storage.read(PATH), null);
  // 4. Dream skips the user
  const report = await m.dream({ store, model: { complete: () => '[]' }, userId: 'u1', agentId: 'a', config: { dream: { enabled: true, pruneStaleAfterDays: 1 } }, now: '2027-06-01T00:00:00Z' });
  assert.equal(report.restricted, true);
  assert.equal(report.pruned, 0);
  assert.equal(store.list('u1').length, 2, 'the stale entry was not pruned');
  t.diagnostic(`while restricted: tools "${RESTRICTED}", properties restricted, afterTurn ${turn.outcome}, Dream restricted`);

  // Lifted: every path writes again.
  assert.deepEqual(await m.setProcessingRestriction(store, 'u1', false, { admin: true }), { restricted: false, changed: true });
  assert.deepEqual(await m.setProcessingRestriction(store, 'u1', false, { admin: true }), { restricted: false, changed: false });
  tools.newTurn();
  assert.equal(await tools.call('rememberFact', { key: 'k2', value: 'w' }), '✅ Remembered: k2 = w [fact, self]');
  assert.equal((await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'I am Ana', assistantMessage: 'Hi Ana' })).outcome, 'updated');
});

test('an unreadable restriction flag counts as restricted: afterTurn ends restricted, the tools refuse', async () => {
  const store = new JsStore([]);
  store.fail.add('list');
  const model = countingModel();
  const memory = new m.ContextMemory({ storage: new InMemoryProfileStorage(), model, entries: store, now: NOW });
  const turn = await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'I am Ana', assistantMessage: 'ok' });
  assert.equal(turn.outcome, 'restricted');
  assert.match(turn.reason, /^the restriction flag could not be read: .*database unavailable/);
  assert.equal(model.calls, 0);
  const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'a', now: NOW });
  assert.equal(await tools.call('rememberFact', { key: 'k', value: 'v' }), '❌ Failed to store memory: database unavailable');
  await assert.rejects(m.isProcessingRestricted(store, 'u1'), /database unavailable/);
  // A bad hosts.entries is refused at construction, naming the argument.
  assert.throws(() => new m.ContextMemory({ storage: new InMemoryProfileStorage(), entries: { list() {} } }), (e) => isCode('E_ARGUMENT')(e) && /hosts\.entries/.test(e.message));
});

test('eraseUserData (Art. 17): every entry (_gdpr_ included), the profile and the folder; others untouched; twice is fine', async (t) => {
  const baseDir = mkdtempSync(join(tmpdir(), 'memcore-erase-'));
  t.after(() => rmSync(baseDir, { recursive: true, force: true }));
  const store = new m.InMemoryEntryStore();
  const storage = new FileSystemProfileStorage({ baseDir });
  const memory = new m.ContextMemory({ storage, model: countingModel(), entries: store, now: NOW });
  for (const user of ['u1', 'u2']) {
    const tools = m.createMemoryTools({ store, userId: user, agentId: 'a', now: NOW, newId: ids(user) });
    await tools.call('rememberFact', { key: 'k', value: 'v' });
    await tools.call('rememberFact', { key: 'g', value: 'w', visibility: 'global' });
    assert.equal((await memory.afterTurn({ userId: user, enabled: true, userMessage: 'I am Ana', assistantMessage: 'ok' })).outcome, 'updated');
  }
  await m.setProcessingRestriction(store, 'u1', true, { admin: true, now: NOW, newId: () => 'u1-flag' });
  const report = await m.eraseUserData('u1', { entries: store, memory });
  assert.deepEqual(report, {
    userId: 'u1',
    // No key store given, none held by the entry store.
    keys: 0,
    entries: [3],
    // Two writes and the restriction were audit records; no write replaced a state; no other user's record named u1.
    history: [{ versions: 0, audit: 3, renamed: { audit: 0, versions: 0 } }],
    episodes: [0],
    profiles: [{ removed: true, folderRemoved: true }],
    stores: [
      { option: 'options.entries', kind: 'InMemoryEntryStore', entries: 3, history: { versions: 0, audit: 3, renamed: { audit: 0, versions: 0 } }, profile: null, keys: null, episodes: 0 },
      { option: 'options.memory', kind: 'ContextMemory', entries: null, history: null, profile: { removed: true, folderRemoved: true }, keys: null, episodes: null },
    ],
  });
  assert.deepEqual(store.list('u1'), []);
  assert.ok(!existsSync(join(baseDir, 'user-memory', 'u1')), 'the user folder is gone');
  assert.deepEqual(readdirSync(join(baseDir, 'user-memory')), ['u2']);
  assert.equal(store.list('u2').length, 2);
  assert.ok(await storage.read('user-memory/u2/memory.md'));
  // Idempotent.
  assert.deepEqual(await m.eraseUserData('u1', { entries: [store], memory: [memory] }), {
    userId: 'u1',
    keys: 0,
    entries: [0],
    // Nothing is kept under u1's id: the first erasure's record is under its pseudonym, and stays.
    history: [{ versions: 0, audit: 0, renamed: { audit: 0, versions: 0 } }],
    episodes: [0],
    profiles: [{ removed: false, folderRemoved: false }],
    stores: [
      { option: 'options.entries[0]', kind: 'InMemoryEntryStore', entries: 0, history: { versions: 0, audit: 0, renamed: { audit: 0, versions: 0 } }, profile: null, keys: null, episodes: 0 },
      { option: 'options.memory[0]', kind: 'ContextMemory', entries: null, history: null, profile: { removed: false, folderRemoved: false }, keys: null, episodes: null },
    ],
  });
  // A folder holding the host's own files stays (the profile still goes).
  mkdirSync(join(baseDir, 'user-memory', 'u2', 'attachments'));
  writeFileSync(join(baseDir, 'user-memory', 'u2', 'attachments', 'x.txt'), 'host data');
  assert.deepEqual((await m.eraseUserData('u2', { memory })).profiles, [{ removed: true, folderRemoved: false }]);
  // Misuse.
  await assert.rejects(m.eraseUserData('u1', {}), isCode('E_ARGUMENT'));
  await assert.rejects(m.eraseUserData('u1', { memory: {} }), isCode('E_ARGUMENT'));
  await assert.rejects(m.eraseUserData('', { entries: store }), isCode('E_INVALID_USER_ID'));
});

test('an erase while a turn of the user runs wins: the turn finishes without resurrecting the profile', async () => {
  const storage = new InMemoryProfileStorage({ files: { [PATH]: `---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-01-01T00:00:00+00:00\nturn_count: 1\n---\n\n${body('- Ana')}` } });
  let release;
  let started;
  const gate = new Promise((r) => (release = r));
  let consolidating = new Promise((r) => (started = r));
  const model = {
    async complete(request) {
      if (request.purpose === 'gate') return 'UPDATE';
      started(); // the turn has read the profile; the erase happens while the model "thinks"
      await gate;
      return body('- Ana\n- Lives in Basel');
    },
  };
  const memory = new m.ContextMemory({ storage, model, now: NOW });
  // Another instance (another process, in effect) erases.
  const other = new m.ContextMemory({ storage, now: NOW });
  const turn = memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'I live in Basel', assistantMessage: 'ok' });
  await consolidating;
  assert.deepEqual((await m.eraseUserData('u1', { memory: other })).profiles, [{ removed: true, folderRemoved: false }]);
  release();
  const report = await turn;
  assert.equal(report.outcome, 'write-failed');
  assert.equal(report.reason, 'profile-deleted');
  assert.equal(await storage.read(PATH), null, 'not re-created');
  // The same erase through the turn's own instance.
  await storage.write(PATH, `---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-01-01T00:00:00+00:00\nturn_count: 1\n---\n\n${body('- Ana')}`, { ifAbsent: true });
  let release2;
  const gate2 = new Promise((r) => (release2 = r));
  consolidating = new Promise((r) => (started = r));
  model.complete = async (request) => (request.purpose === 'gate' ? 'UPDATE' : (started(), await gate2, body('- Ana\n- Basel')));
  const turn2 = memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'Basel', assistantMessage: 'ok' });
  await consolidating;
  await m.eraseUserData('u1', { memory });
  release2();
  assert.equal((await turn2).outcome, 'write-failed');
  assert.equal(await storage.read(PATH), null);
});

test('exportUserData → importUserData (Art. 15/20) is lossless across store kinds; import refuses non-empty stores and bad documents', async (t) => {
  const baseDir = mkdtempSync(join(tmpdir(), 'memcore-export-'));
  t.after(() => rmSync(baseDir, { recursive: true, force: true }));
  const store = new m.InMemoryEntryStore();
  const memory = new m.ContextMemory({ storage: new FileSystemProfileStorage({ baseDir }), model: countingModel(), now: NOW });
  const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'a', group: 'G', now: NOW, newId: ids() });
  await tools.call('rememberFact', { key: 'k', value: { nested: [1, 2.5, 'ü', null, { deep: true }] } });
  await tools.call('rememberFact', { key: 'g', value: 'group fact', visibility: 'group', category: 'preference' });
  await tools.call('recallMemories', {});
  await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'I am Ana', assistantMessage: 'ok' });
  await m.setProcessingRestriction(store, 'u1', true, { admin: true, now: NOW, newId: () => 'flag' });

  const doc = await m.exportUserData('u1', { entries: store, memory, now: () => '2026-12-01T00:00:00Z' });
  assert.equal(doc.format, 'memcore.user-data');
  assert.equal(doc.version, 1);
  assert.equal(doc.exportedAt, '2026-12-01T00:00:00.000Z');
  assert.equal(doc.restricted, true);
  assert.equal(doc.entries.length, 3);
  assert.equal(doc.profile, (await new FileSystemProfileStorage({ baseDir }).read(PATH)).text);

  // Into another kind of store: a plain JS host store and in-memory profile storage.
  const target = new JsStore([]);
  const targetStorage = new InMemoryProfileStorage();
  const targetMemory = new m.ContextMemory({ storage: targetStorage, now: NOW });
  assert.deepEqual(await m.importUserData(JSON.parse(JSON.stringify(doc)), { entries: target, memory: targetMemory }), {
    entries: 3,
    profile: true,
    secrets: [],
    // A host store without history: no version restored; an export carries no vectors.
    history: { imported: 0, dropped: 0 },
    vectors: { dropped: 2, embedded: 0, reindex: true }, episodes: 0, // the `_gdpr_` flag is not embedded
    stores: [
      { option: 'options.entries', kind: 'JsStore', entries: 3, profile: null },
      { option: 'options.memory', kind: 'ContextMemory', entries: null, profile: true },
    ],
  });
  const again = await m.exportUserData('u1', { entries: target, memory: targetMemory, now: () => '2026-12-01T00:00:00Z' });
  // `historySize` reports the store exported from, not the user's data.
  assert.deepEqual({ ...again, historySize: undefined }, { ...doc, historySize: undefined }, 'the round trip is lossless');
  assert.equal((await targetStorage.read(PATH)).text, doc.profile);

  // Refusals, before anything is written.
  await assert.rejects(m.importUserData(doc, { entries: target, memory: targetMemory }), (e) => isCode('E_ARGUMENT')(e) && /already holds 3 entries/.test(e.message));
  await assert.rejects(m.importUserData(doc, { entries: new JsStore([]), memory: targetMemory }), isCode('E_VERSION_CONFLICT'));
  const empty = new JsStore([]);
  await assert.rejects(m.importUserData({ ...doc, format: 'other' }, { entries: empty }), isCode('E_ARGUMENT'));
  await assert.rejects(m.importUserData({ ...doc, version: 2 }, { entries: empty }), isCode('E_ARGUMENT'));
  await assert.rejects(m.importUserData({ ...doc, restricted: false }, { entries: empty }), (e) => isCode('E_ARGUMENT')(e) && /restricted/.test(e.message));
  await assert.rejects(m.importUserData({ ...doc, entries: [{ ...doc.entries[0], userId: 'u2' }], restricted: false }, { entries: empty }), isCode('E_ARGUMENT'));
  await assert.rejects(m.importUserData({ ...doc, entries: [doc.entries[0], doc.entries[0]], restricted: false }, { entries: empty }), isCode('E_ARGUMENT'));
  await assert.rejects(m.importUserData({ ...doc, extra: 1 }, { entries: empty }), isCode('E_ARGUMENT'));
  await assert.rejects(m.importUserData(doc, { entries: empty }), (e) => isCode('E_ARGUMENT')(e) && e.details.argument === 'options.memory' && /neither a ContextMemory .* nor an entry store that holds profiles/.test(e.message));
  assert.equal(empty.entries.length, 0, 'a missing profile target is refused before anything is written');
  await assert.rejects(m.importUserData(42, { entries: new JsStore([]) }), isCode('E_ARGUMENT'));
});

/** An entry store that is also profile storage (as the SQL stores are): a JsStore with an InMemoryProfileStorage's methods. */
class JsStoreWithProfiles extends JsStore {
  constructor(entries = [], files = {}) {
    super(entries);
    this.profiles = new InMemoryProfileStorage({ files });
    this.failWrite = false;
  }
  read(path) {
    return this.profiles.read(path);
  }
  async write(path, text, options) {
    if (this.failWrite) throw new Error('profile write failed');
    return this.profiles.write(path, text, options);
  }
  remove(path) {
    return this.profiles.remove(path);
  }
  ensureRoot(root) {
    return this.profiles.ensureRoot(root);
  }
}

/** A user's document: six entries (the restriction flag among them) and a profile. */
async function sampleExport() {
  const source = new JsStoreWithProfiles([], { [PATH]: 'profile of u1' });
  const tools = m.createMemoryTools({ store: source, userId: 'u1', agentId: 'a', now: NOW, newId: ids('e') });
  for (const [key, value] of [['a', 1], ['b', 'two'], ['c', { x: [3] }], ['d', 'vier'], ['e', 'ü']]) await tools.call('rememberFact', { key, value });
  await m.setProcessingRestriction(source, 'u1', true, { admin: true, now: NOW, newId: () => 'e-flag' });
  const doc = await m.exportUserData('u1', { entries: source, now: NOW });
  assert.equal(doc.entries.length, 6);
  assert.equal(doc.profile, 'profile of u1', 'the profile comes from the entry store when it holds profiles');
  return doc;
}

test('{ entries } alone: an entry store that holds profiles serves the profile side of erase, export and import (rootFolder included)', async () => {
  const store = new JsStoreWithProfiles([], { [PATH]: 'profile of u1', 'user-memory/u2/memory.md': 'profile of u2', 'memories/u1/memory.md': 'elsewhere' });
  const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'a', now: NOW, newId: ids() });
  await tools.call('rememberFact', { key: 'k', value: 'v' });
  const report = await m.eraseUserData('u1', { entries: store });
  assert.deepEqual(report, {
    userId: 'u1',
    keys: 0,
    entries: [1],
    history: [null],
    episodes: [null],
    profiles: [{ removed: true, folderRemoved: false }],
    stores: [{ option: 'options.entries', kind: 'JsStoreWithProfiles', entries: 1, history: null, profile: { removed: true, folderRemoved: false }, keys: null, episodes: null }],
  });
  assert.deepEqual(store.profiles.snapshot(), { 'memories/u1/memory.md': 'elsewhere', 'user-memory/u2/memory.md': 'profile of u2' });
  // Another root folder, by the core's rule.
  assert.deepEqual((await m.eraseUserData('u1', { entries: store, rootFolder: 'memories' })).profiles, [{ removed: true, folderRemoved: false }]);
  assert.deepEqual(Object.keys(store.profiles.snapshot()), ['user-memory/u2/memory.md']);
  for (const rootFolder of ['', '../x', 'a\\b']) {
    await assert.rejects(m.eraseUserData('u1', { entries: store, rootFolder }), (e) => isCode('E_ARGUMENT')(e) && e.details.argument === 'options.rootFolder');
  }
  await assert.rejects(m.eraseUserData('u1', { entries: store, rootFolder: 3 }), (e) => isCode('E_ARGUMENT')(e) && e.details.argument === 'options.rootFolder');
  // Export → import with { entries } alone, into another such store.
  const doc = await sampleExport();
  const target = new JsStoreWithProfiles();
  const imported = await m.importUserData(doc, { entries: target });
  assert.deepEqual(imported, { entries: 6, profile: true, secrets: [], history: { imported: 0, dropped: 0 }, vectors: { dropped: 5, embedded: 0, reindex: true }, episodes: 0, stores: [{ option: 'options.entries', kind: 'JsStoreWithProfiles', entries: 6, profile: true }] });
  assert.deepEqual(await m.exportUserData('u1', { entries: target, now: NOW }), doc);
  // A store without profile methods holds no profiles: its report says null.
  assert.deepEqual((await m.eraseUserData('u1', { entries: [new JsStore([]), target] })).stores, [
    { option: 'options.entries[0]', kind: 'JsStore', entries: 0, history: null, profile: null, keys: null, episodes: null },
    { option: 'options.entries[1]', kind: 'JsStoreWithProfiles', entries: 6, history: null, profile: { removed: true, folderRemoved: false }, keys: null, episodes: null },
  ]);
  // A plain object store is an 'object'.
  const plain = { list: () => [], get: () => null, upsert() {}, delete: () => false, incrementAccess() {} };
  assert.deepEqual((await m.eraseUserData('u1', { entries: plain })).stores, [{ option: 'options.entries', kind: 'object', entries: 0, history: null, profile: null, keys: null, episodes: null }]);
});

test('a store given as entries and as a ContextMemory\'s storage has its profile erased once, through the ContextMemory', async () => {
  const store = new JsStoreWithProfiles([], { [PATH]: 'profile of u1' });
  const memory = new m.ContextMemory({ storage: store, entries: store, now: NOW });
  const report = await m.eraseUserData('u1', { entries: [store, store], memory });
  assert.deepEqual(report.stores, [
    { option: 'options.entries[0]', kind: 'JsStoreWithProfiles', entries: 0, history: null, profile: null, keys: null, episodes: null },
    { option: 'options.entries[1]', kind: 'JsStoreWithProfiles', entries: 0, history: null, profile: null, keys: null, episodes: null },
    { option: 'options.memory', kind: 'ContextMemory', entries: null, history: null, profile: { removed: true, folderRemoved: false }, keys: null, episodes: null },
  ]);
  assert.deepEqual(report.profiles, [{ removed: true, folderRemoved: false }]);
  assert.deepEqual(store.profiles.removes, [PATH], 'removed once');
  // The same object twice as entries: its profile once.
  store.profiles.removes.length = 0;
  assert.deepEqual((await m.eraseUserData('u1', { entries: [store, store] })).stores.map((s) => s.profile), [{ removed: false, folderRemoved: false }, null]);
  assert.deepEqual(store.profiles.removes, [PATH]);
});

/** A plain JS store whose `failAt`-th upsert throws, before or after storing the entry. */
function failingStore(failAt, { afterStoring }) {
  const store = new JsStore([]);
  let upserts = 0;
  const upsert = store.upsert.bind(store);
  store.upsert = async (entry) => {
    upserts += 1;
    if (upserts === failAt) {
      if (afterStoring) await upsert(entry);
      throw new Error(`write ${failAt} failed`);
    }
    return upsert(entry);
  };
  store.heal = () => {
    failAt = 0;
  };
  return store;
}

test('an import whose 5th write fails leaves nothing (also when the write stored the entry); the retry restores everything', async () => {
  const doc = await sampleExport();
  for (const afterStoring of [false, true]) {
    const store = failingStore(5, { afterStoring });
    const storage = new InMemoryProfileStorage();
    const memory = new m.ContextMemory({ storage, now: NOW });
    await assert.rejects(m.importUserData(doc, { entries: store, memory }), (e) => {
      assert.ok(isCode('E_HOST')(e), e.message);
      assert.equal(e.message, 'write 5 failed', 'the original error');
      assert.deepEqual(e.details.undo, { entries: 5, profileRemoved: false, failed: [] });
      return true;
    });
    assert.deepEqual(store.entries, [], `nothing of the import is left (afterStoring: ${afterStoring})`);
    assert.deepEqual(storage.snapshot(), {});
    store.heal();
    assert.deepEqual((await m.importUserData(doc, { entries: store, memory })).entries, 6);
    assert.deepEqual(await m.exportUserData('u1', { entries: store, memory, now: NOW }), doc);
  }
});

test('an undo that fails is reported: the message says so and details.undo.failed names the entry', async () => {
  const doc = await sampleExport();
  const store = failingStore(5, { afterStoring: true });
  const del = store.delete.bind(store);
  store.delete = async (id) => {
    if (id === doc.entries[1].id) throw new Error('delete refused');
    return del(id);
  };
  await assert.rejects(m.importUserData(doc, { entries: store, memory: new m.ContextMemory({ storage: new InMemoryProfileStorage(), now: NOW }) }), (e) => {
    assert.match(e.message, /^write 5 failed; undoing the import failed for 1 of what it wrote \(details\.undo\.failed\)/);
    assert.deepEqual(e.details.undo, { entries: 4, profileRemoved: false, failed: [{ entryId: doc.entries[1].id, code: 'E_HOST', message: 'delete refused' }] });
    return true;
  });
  assert.deepEqual(store.entries.map((e) => e.id), [doc.entries[1].id]);
});

test('a store with insertAll gets every entry in one call (no upsert); an id another user holds is refused before any write of a one-by-one store', async () => {
  const doc = await sampleExport();
  const store = new JsStoreWithProfiles();
  const calls = [];
  store.insertAll = async (entries) => {
    calls.push(entries.map((e) => e.id));
    for (const e of entries) await JsStore.prototype.upsert.call(store, e);
  };
  store.upsert = () => assert.fail('no upsert');
  await m.importUserData(doc, { entries: store });
  assert.deepEqual(calls, [doc.entries.map((e) => e.id)]);
  // A failing insertAll wrote nothing (its contract): the error comes back as is.
  const atomic = new JsStore([]);
  atomic.insertAll = async () => {
    throw new Error('rolled back');
  };
  await assert.rejects(m.importUserData({ ...doc, profile: null }, { entries: atomic }), (e) => e.message === 'rolled back' && e.details.undo === undefined);
  // One by one: another user's entry with an imported id stays untouched.
  const other = { ...doc.entries[2], userId: 'u2' };
  const shared = new JsStore([other]);
  await assert.rejects(m.importUserData({ ...doc, profile: null }, { entries: shared }), (e) => isCode('E_CONFLICT')(e) && e.details.entryId === other.id && /held by another entry/.test(e.message));
  assert.deepEqual(shared.entries, [other]);
});

test('a profile write that fails after the entries were written undoes the entries; the retry succeeds', async () => {
  const doc = await sampleExport();
  // The entry store holds the profiles itself.
  const both = new JsStoreWithProfiles();
  both.failWrite = true;
  await assert.rejects(m.importUserData(doc, { entries: both }), (e) => e.message === 'profile write failed' && e.details.undo.entries === 6 && e.details.undo.failed.length === 0);
  assert.deepEqual(both.entries, []);
  both.failWrite = false;
  assert.equal((await m.importUserData(doc, { entries: both })).profile, true);
  // A ContextMemory's storage whose write throws, with an atomic entry store.
  const atomic = new JsStore([]);
  atomic.insertAll = async (entries) => {
    for (const e of entries) await JsStore.prototype.upsert.call(atomic, e);
  };
  const storage = new InMemoryProfileStorage();
  storage.write = async () => {
    throw new Error('disk full');
  };
  await assert.rejects(m.importUserData(doc, { entries: atomic, memory: new m.ContextMemory({ storage, now: NOW }) }), (e) => e.message === 'disk full' && e.details.undo.entries === 6);
  assert.deepEqual(atomic.entries, []);
});

test('one store holding both sides with insertAll gets entries and profile in one call; a store that ignores the profile option still gets its profile', async () => {
  const doc = await sampleExport();
  // Honours the option: one call, no separate profile write.
  const atomic = new JsStoreWithProfiles();
  const calls = [];
  atomic.insertAll = async (entries, options) => {
    calls.push({ entries: entries.length, profile: options?.profile ?? null });
    for (const e of entries) await JsStore.prototype.upsert.call(atomic, e);
    if (options?.profile) await atomic.profiles.write(options.profile.path, options.profile.text, { ifAbsent: true });
  };
  let writes = 0;
  const write = atomic.write.bind(atomic);
  atomic.write = async (...args) => (writes++, write(...args));
  const report = await m.importUserData(doc, { entries: atomic });
  assert.deepEqual([report.entries, report.profile, writes], [6, true, 0]);
  assert.deepEqual(calls, [{ entries: 6, profile: { path: PATH, text: 'profile of u1' } }]);
  assert.deepEqual(await m.exportUserData('u1', { entries: atomic, now: NOW }), doc);
  // The same object as a ContextMemory's storage: one call too, under its root folder.
  const shared = new JsStoreWithProfiles();
  const seen = [];
  shared.insertAll = async (entries, options) => {
    seen.push(options?.profile?.path ?? null);
    for (const e of entries) await JsStore.prototype.upsert.call(shared, e);
    if (options?.profile) await shared.profiles.write(options.profile.path, options.profile.text, { ifAbsent: true });
  };
  const memory = new m.ContextMemory({ storage: shared, now: NOW }, { rootFolder: 'memories' });
  await m.importUserData({ ...doc }, { entries: shared, memory });
  assert.deepEqual(seen, ['memories/u1/memory.md']);
  // Ignores the option (an older host store): the core reads the profile back and writes it.
  const older = new JsStoreWithProfiles();
  older.insertAll = async (entries) => {
    for (const e of entries) await JsStore.prototype.upsert.call(older, e);
  };
  const again = await m.importUserData(doc, { entries: older });
  assert.deepEqual([again.entries, again.profile], [6, true]);
  assert.equal((await older.read(PATH)).text, 'profile of u1');
});

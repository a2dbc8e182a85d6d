// Bad input never traps: every export, every argument position, every wrong type gives either a
// normal result (where the value is acceptable, e.g. an optional argument) or a MemcoreError —
// and the instance keeps working after each error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as m from 'memcore';

const NOW = '2026-06-17T12:00:00Z';
// A valid call for every function export; each argument is then replaced by each bad value.
const VALID = {
  version: [],
  parseProfile: ['## Identity\n- x\n'],
  renderProfile: [m.parseProfile('## Identity\n- x\n')],
  emptyProfile: ['u1', NOW],
  profileBody: ['x'],
  normaliseModelBody: ['x'],
  isWellFormedBody: ['x'],
  assembleProfile: ['## Identity\n', { userId: 'u1', turnCount: 1, now: NOW }],
  memorySystemPromptSection: ['## Identity\n- x\n'],
  memoryPath: ['u1', 'root'],
  checkUserId: ['u1'],
  checkMemoryRoots: [[{ name: 'user-memory', active: true }], 'user-memory'],
  resolveEnablement: [{ companyId: 'c1', featureFlag: 'true' }],
  orchestratorMemoryEnabled: [true],
  editableBody: ['x'],
  memoryView: ['x'],
  applyUserEdit: [null, 'x', { userId: 'u1', now: NOW }],
  loadTokenizer: [new Uint8Array(4)],
  hasTokenizer: ['o200k_base'],
  countTokens: ['x', { encoding: 'o200k_base' }],
  encodeTokens: ['x', { encoding: 'o200k_base' }],
  enforceTokenCap: ['x', 10],
  condenseProfile: ['x', 10],
  parseUserMemoryConfig: [{}],
  resolveMemoryTools: [{ enableMemoryTools: true }, { enableBuiltInTools: true }],
  searchTerms: ['dog name'],
  indexColumns: [[{ key: 'dog', updatedAt: NOW, valueJson: '"Rex"' }]],
  searchPrefilter: ['dog name'],
  matchesQuery: ['dog', { id: 'i', userId: 'u', key: 'dog', value: 'x', category: 'fact', visibility: 'global', createdAt: NOW, updatedAt: NOW }],
  isVisible: [{ id: 'i', userId: 'u', key: 'dog', value: 'x', category: 'fact', visibility: 'global', createdAt: NOW, updatedAt: NOW }, 'a', null],
  filterClientContext: [{ groupId: 'g' }],
  resolveGroupContext: [{ injectedContext: { groupId: 'g' } }],
  validateMemoryWrite: [{ userId: 'u', key: 'k', visibility: 'global' }, { surface: 'rest' }],
  toolDefinitions: [{}],
  createMemoryTools: [{ store: new m.InMemoryEntryStore(), userId: 'u', agentId: 'a' }],
  InMemoryEntryStore: [],
  buildGatePrompt: ['b', 'u', 'a', { reasoningModel: false }],
  buildConsolidationPrompt: ['b', 'u', 'a', { now: NOW, maxTokens: 2000 }],
  buildCondensePrompt: ['b', { maxTokens: 2000 }],
  parseGateDecision: ['NOOP'],
  parseConsolidation: ['NOOP'],
  ContextMemory: [{ storage: { read() {}, write() {}, remove() {} }, model: () => 'NOOP' }, { maxTokens: 2000 }],
  DreamMetrics: [],
  validateDreamSchedule: [{ userId: 'u', agentId: 'a', metadata: { dreamType: 'dream_consolidation' } }],
  detectCredential: [{ password: 'x' }],
  redactSecrets: ['token=abc'],
  planPropertiesMigration: [[{ _id: 'd', userId: 'u', k: 1 }], { u: ['a'] }, { skipKeys: ['userInfo'] }],
  planLegacyCleanup: [[{ id: 'i', userId: 'u', key: 'userInfo', value: 'x', category: 'legacy', visibility: 'global', createdAt: NOW, updatedAt: NOW }], { skipKeys: ['userInfo'] }],
};
// Async exports: a rejected Promise must be a MemcoreError too.
const VALID_ASYNC = {
  ready: ['o200k_base'],
  fitProfile: ['## Identity\n', { maxTokens: 600 }],
  persistLongTermProperties: [new m.InMemoryEntryStore(), [{ name: 'a', value: 1 }], { userId: 'u', agentId: 'a' }],
  readProperties: [new m.InMemoryEntryStore(), 'u'],
  mergeProperties: [new m.InMemoryEntryStore(), 'u', { a: 1 }],
  deleteProperties: [new m.InMemoryEntryStore(), 'u'],
  setProcessingRestriction: [new m.InMemoryEntryStore(), 'u', true, { admin: true }],
  isProcessingRestricted: [new m.InMemoryEntryStore(), 'u'],
  eraseUserData: ['u', { entries: new m.InMemoryEntryStore() }],
  eraseInvalidUserData: ['a/b', { entries: new m.InMemoryEntryStore() }],
  findInvalidUserIds: [{ list: () => [], get: () => null, upsert() {}, delete: () => false, incrementAccess() {}, storedUserIds: () => [{ tenantId: null, userId: 'a/b' }] }],
  exportUserData: ['u', { entries: new m.InMemoryEntryStore() }],
  importUserData: [{ format: 'memcore.user-data', version: 1, userId: 'u', exportedAt: '2026-01-01T00:00:00Z', restricted: false, entries: [], profile: null }, { entries: new m.InMemoryEntryStore() }],
  listUserMemories: [new m.InMemoryEntryStore(), 'u'],
  getVisibleMemories: [new m.InMemoryEntryStore(), { userId: 'u', agentId: 'a', limit: 5 }, { config: {} }],
  searchUserMemories: [new m.InMemoryEntryStore(), 'u', 'dog'],
  getMemoryByKey: [new m.InMemoryEntryStore(), 'u', 'k', { agentId: 'a' }],
  countUserMemories: [new m.InMemoryEntryStore(), 'u'],
  upsertUserMemory: [new m.InMemoryEntryStore(), { userId: 'u', key: 'k', visibility: 'global' }, { surface: 'rest', now: () => NOW }],
  deleteUserMemory: [new m.InMemoryEntryStore(), 'id', { userId: 'u' }],
  deleteAllUserMemories: [new m.InMemoryEntryStore(), 'u'],
  entryHistory: [{ store: new m.InMemoryEntryStore(), userId: 'u', key: 'k' }],
  restoreVersion: [{ store: new m.InMemoryEntryStore(), userId: 'u', versionId: 'e~0' }],
  auditLog: [{ store: new m.InMemoryEntryStore(), userId: 'u', limit: 5 }],
  applyPropertiesMigration: [{ inserts: [{ userId: 'u', key: 'k', value: 1 }] }, new m.InMemoryEntryStore(), { now: () => NOW, newId: () => 'id' }],
  relevantMemories: [{ store: new m.InMemoryEntryStore(), userId: 'u', agentId: 'a', query: 'dog', maxTokens: 50 }],
  searchEpisodes: [new m.InMemoryEntryStore(), 'u', 'wedding'],
  reindexEmbeddings: [new m.InMemoryEntryStore(), { model: 'm', embed: ({ texts }) => ({ vectors: texts.map(() => [1, 0]) }) }, { userId: 'u' }],
  dream: [{ store: new m.InMemoryEntryStore(), model: () => '[]', userId: 'u', agentId: 'a', now: NOW, config: { dream: { enabled: true, summarizeInteractions: true } } }],
  learnFromTurn: [{ store: new m.InMemoryEntryStore(), model: () => '{"facts":[]}', userId: 'u', agentId: 'a', conversationId: 'c', messages: [{ role: 'user', content: 'hi' }], now: NOW }],
};
const BAD = [undefined, null, 42, -1, NaN, true, '', 'x', [], ['a'], {}, { a: 1 }, () => 1, Symbol('s'), 10n, new Date(NaN)];

function stillAlive() {
  assert.equal(m.parseProfile('## Identity\n- ok\n').sections[0].lines[0], '- ok');
  assert.equal(m.countTokens('hello world'), 2);
}

test('every function export has a valid call listed here', () => {
  const fns = Object.entries(m).filter(([name, v]) => typeof v === 'function' && name !== 'MemcoreError').map(([n]) => n);
  assert.deepEqual(fns.filter((n) => !(n in VALID) && !(n in VALID_ASYNC)), []);
});

test('async exports reject with MemcoreError for every wrong argument', async () => {
  for (const [name, args] of Object.entries(VALID_ASYNC)) {
    for (let i = 0; i < args.length; i++) {
      for (const bad of BAD) {
        const call = [...args];
        call[i] = bad;
        try {
          await m[name](...call);
        } catch (error) {
          assert.ok(error instanceof m.MemcoreError, `${name} arg ${i} = ${String(bad)}: ${error}`);
        }
      }
    }
  }
  stillAlive();
});

test('wrong types for every argument: a result or a MemcoreError, never a trap', () => {
  for (const [name, args] of Object.entries(VALID)) {
    for (let i = 0; i < Math.max(args.length, 1); i++) {
      for (const bad of BAD) {
        const call = [...args];
        call[i] = bad;
        try {
          if (name === 'InMemoryEntryStore' || name === 'ContextMemory' || name === 'DreamMetrics') new m[name](...call);
          else m[name](...call);
        } catch (error) {
          assert.ok(error instanceof m.MemcoreError, `${name} arg ${i} = ${String(bad)}: ${error}`);
          assert.match(error.code, /^E_[A-Z_]+$/);
          if (error.code === 'E_ARGUMENT') assert.equal(error.details.function, name);
        }
      }
    }
  }
  stillAlive();
});

test('required strings: number, undefined, null, array and object are E_ARGUMENT naming the argument', () => {
  for (const bad of [undefined, null, 7, [], {}]) {
    assert.throws(() => m.parseProfile(bad), (e) => e.code === 'E_ARGUMENT' && e.details.argument === 'text' && /parseProfile/.test(e.message));
    assert.throws(() => m.memoryPath(bad), (e) => e.code === 'E_ARGUMENT' && e.details.argument === 'userId');
  }
  assert.throws(() => m.renderProfile({ sections: [] }), (e) => e.code === 'E_ARGUMENT' && /frontmatter/.test(e.message));
  assert.throws(() => m.assembleProfile('x', { userId: 'u', now: NOW }), (e) => e.details.argument === 'options.turnCount');
  assert.throws(() => m.applyUserEdit(null, 'x', { userId: 'u', now: 'yesterday' }), (e) => e.details.argument === 'options.now');
  stillAlive();
});

test('lone surrogates are read as U+FFFD, never a trap', () => {
  const parsed = m.parseProfile('## Identity\n- a\uD800b \uDFFF\n');
  assert.equal(parsed.sections[0].lines[0], '- a\uFFFDb \uFFFD');
  assert.equal(m.memoryPath('a\uD800'), 'user-memory/a\uFFFD/memory.md');
  assert.equal(m.countTokens('\uD800'), m.countTokens('\uFFFD'));
  stillAlive();
});

test('a 10 MB profile is parsed, rendered and counted (linear time), and the instance keeps working', () => {
  const bullet = '- Works on the quarterly report with the Zurich team, prefers tables.\n';
  const big = '## Identity\n' + bullet.repeat(Math.ceil((10 * 1024 * 1024) / bullet.length));
  assert.ok(big.length >= 10 * 1024 * 1024);
  const parsed = m.parseProfile(big);
  assert.equal(parsed.sections[0].heading, 'Identity');
  const rendered = m.renderProfile(parsed);
  assert.ok(rendered.length > big.length - 1000);
  assert.ok(m.countTokens(big) > 1_000_000);
  assert.throws(() => m.applyUserEdit(null, big, { userId: 'u', now: NOW }), (e) => e.code === 'E_TOO_LARGE');
  stillAlive();
});

test('an argument error never quotes the value: strings, enum variants and numbers are elided in the one decoder', async () => {
  const secret = 'sk-live-4f9a8b7c6d5e4f3a2b1c';
  const store = new m.InMemoryEntryStore();
  const cases = [
    () => m.upsertUserMemory(store, { userId: 'u', key: 'k', value: 'v' }, { surface: secret }),
    () => m.countUserMemories(store, 'u', { storeTimeoutMs: secret }),
    () => m.countUserMemories(store, 'u', { storeTimeoutMs: 4111111111111111.5 }),
  ];
  for (const run of cases) {
    await assert.rejects(run, (e) => {
      assert.equal(e.code, 'E_ARGUMENT', e.message);
      assert.ok(!e.message.includes(secret) && !e.message.includes('4111111111111111'), e.message);
      assert.ok(!JSON.stringify(e.details).includes(secret), JSON.stringify(e.details));
      return true;
    });
  }
});

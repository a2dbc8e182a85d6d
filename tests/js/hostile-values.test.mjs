// A property test (fixed seed): random hostile JavaScript values — deep and cyclic structures,
// getters, Proxies (throwing or revoked), toJSON that throws, BigInt, symbols, functions,
// non-finite numbers, lone surrogates — fed to every export that takes structured input, to the
// tools' arguments and as the answers of host stores and storages. Every call must return, throw a
// MemcoreError or resolve/reject with one, and the instance must never trap (`replaced` stays 0).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as m from 'memcore';
import { instance } from 'memcore/testing';
import { prng } from '../support/prng.mjs';

const SEED = 20261201;


function generator(random) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const scalars = [
    () => undefined, () => null, () => 0, () => -1, () => 1.5, () => NaN, () => Infinity, () => -Infinity, () => 2 ** 53 + 2,
    () => 1e308, () => true, () => '', () => 'x', () => '\uD800', () => 'é'.repeat(300), () => 10n, () => Symbol('s'),
    () => () => 1, () => new Date(NaN), () => new Date(0), () => '2026-01-01T00:00:00Z', () => 'user-memory', () => 'u1',
  ];
  function value(depth) {
    const roll = random();
    if (depth > 4 || roll < 0.3) return pick(scalars)();
    if (roll < 0.4) {
      let v = pick(scalars)();
      const levels = pick([130, 1000, 5000, 20000]);
      for (let i = 0; i < levels; i++) v = random() < 0.5 ? [v] : { k: v };
      return v;
    }
    if (roll < 0.5) {
      const o = { a: value(depth + 1) };
      o.self = random() < 0.5 ? o : { back: o };
      return o;
    }
    if (roll < 0.58) return Object.defineProperty({ ok: 1 }, pick(['key', 'value', 'userId', 'text', 'maxTokens', 'x']), { enumerable: true, get() { throw new Error('getter'); } });
    if (roll < 0.64) return new Proxy({ key: 'k' }, { get() { throw new Error('proxy get'); }, ownKeys() { throw new Error('proxy keys'); } });
    if (roll < 0.68) {
      const { proxy, revoke } = Proxy.revocable([], {});
      revoke();
      return proxy;
    }
    if (roll < 0.72) return { toJSON() { throw new Error('toJSON'); } };
    if (roll < 0.75) return { toJSON() { const o = {}; o.o = o; return o; } };
    if (roll < 0.78) return new Map([['k', 1]]);
    if (roll < 0.8) return new Uint8Array([1, 2, 3]);
    if (roll < 0.9) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
    if (roll < 0.92) {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return Object.setPrototypeOf({ key: 'k', value: 1 }, proxy);
    }
    const o = {};
    for (const key of ['userId', 'key', 'value', 'visibility', 'category', 'agentId', 'maxTokens', 'now', 'sections', 'frontmatter', '__proto__', 'groupIds', 'text']) {
      if (random() < 0.4) Object.defineProperty(o, key, { value: value(depth + 1), enumerable: true, writable: true, configurable: true });
    }
    return o;
  }
  return value;
}

const NOW = '2026-06-17T12:00:00Z';
const ENTRY = { id: 'i', userId: 'u', key: 'dog', value: 'x', category: 'fact', visibility: 'global', createdAt: NOW, updatedAt: NOW };
const sync = {
  renderProfile: () => [m.parseProfile('## Identity\n- x\n')],
  emptyProfile: () => ['u1', NOW],
  assembleProfile: () => ['## Identity\n', { userId: 'u1', turnCount: 1, now: NOW }],
  checkMemoryRoots: () => [[{ name: 'user-memory', active: true }], 'user-memory'],
  resolveEnablement: () => [{ companyId: 'c1', featureFlag: 'true' }],
  orchestratorMemoryEnabled: () => [true],
  applyUserEdit: () => [null, 'x', { userId: 'u1', now: NOW }],
  countTokens: () => ['x', { encoding: 'o200k_base' }],
  encodeTokens: () => ['x', { encoding: 'o200k_base' }],
  enforceTokenCap: () => ['x', 10],
  condenseProfile: () => ['x', 10],
  parseUserMemoryConfig: () => [{}],
  resolveMemoryTools: () => [{ enableMemoryTools: true }, { enableBuiltInTools: true }],
  matchesQuery: () => ['dog', ENTRY],
  isVisible: () => [ENTRY, 'a', null],
  filterClientContext: () => [{ groupId: 'g' }],
  resolveGroupContext: () => [{ injectedContext: { groupId: 'g' } }],
  validateMemoryWrite: () => [{ userId: 'u', key: 'k', visibility: 'global' }, { surface: 'rest' }],
  toolDefinitions: () => [{}],
  createMemoryTools: () => [{ store: new m.InMemoryEntryStore(), userId: 'u', agentId: 'a' }],
  buildGatePrompt: () => ['b', 'u', 'a', { reasoningModel: false }],
  buildConsolidationPrompt: () => ['b', 'u', 'a', { now: NOW, maxTokens: 2000 }],
  buildCondensePrompt: () => ['b', { maxTokens: 2000 }],
  ContextMemory: () => [{ storage: { read() {}, write() {}, remove() {} }, model: () => 'NOOP' }, { maxTokens: 2000 }],
  validateDreamSchedule: () => [{ userId: 'u', agentId: 'a', metadata: { dreamType: 'dream_consolidation' } }],
  detectCredential: () => [{ password: 'x' }],
  redactSecrets: () => ['token=abc'],
  planPropertiesMigration: () => [[{ _id: 'd', userId: 'u', k: 1 }], { u: ['a'] }, { skipKeys: ['userInfo'] }],
  planLegacyCleanup: () => [[{ ...ENTRY, category: 'legacy' }], { skipKeys: ['userInfo'] }],
  InMemoryEntryStore_upsert: () => [ENTRY],
  InMemoryEntryStore_incrementAccess: () => [['i']],
};
const asyncs = {
  fitProfile: () => ['## Identity\n', { maxTokens: 600 }],
  persistLongTermProperties: () => [new m.InMemoryEntryStore(), [{ name: 'a', value: 1 }], { userId: 'u', agentId: 'a' }],
  readProperties: () => [new m.InMemoryEntryStore(), 'u'],
  mergeProperties: () => [new m.InMemoryEntryStore(), 'u', { a: 1 }],
  deleteProperties: () => [new m.InMemoryEntryStore(), 'u'],
  setProcessingRestriction: () => [new m.InMemoryEntryStore(), 'u', true, { admin: true }],
  isProcessingRestricted: () => [new m.InMemoryEntryStore(), 'u'],
  eraseUserData: () => ['u', { entries: new m.InMemoryEntryStore() }],
  exportUserData: () => ['u', { entries: new m.InMemoryEntryStore() }],
  importUserData: () => [{ format: 'memcore.user-data', version: 1, userId: 'u', exportedAt: '2026-01-01T00:00:00Z', restricted: false, entries: [], profile: null }, { entries: new m.InMemoryEntryStore() }],
  listUserMemories: () => [new m.InMemoryEntryStore(), 'u'],
  getVisibleMemories: () => [new m.InMemoryEntryStore(), { userId: 'u', agentId: 'a', limit: 5 }, { config: {} }],
  searchUserMemories: () => [new m.InMemoryEntryStore(), 'u', 'dog'],
  getMemoryByKey: () => [new m.InMemoryEntryStore(), 'u', 'k', { agentId: 'a' }],
  countUserMemories: () => [new m.InMemoryEntryStore(), 'u'],
  upsertUserMemory: () => [new m.InMemoryEntryStore(), { userId: 'u', key: 'k', visibility: 'global' }, { surface: 'mcp' }],
  deleteUserMemory: () => [new m.InMemoryEntryStore(), 'id', { userId: 'u' }],
  deleteAllUserMemories: () => [new m.InMemoryEntryStore(), 'u'],
  applyPropertiesMigration: () => [{ inserts: [{ userId: 'u', key: 'k', value: 1 }] }, new m.InMemoryEntryStore()],
  dream: () => [{ store: new m.InMemoryEntryStore(), model: () => '[]', userId: 'u', agentId: 'a', now: NOW, config: { dream: { enabled: true, summarizeInteractions: true } } }],
};

function callSync(name, args) {
  if (name === 'ContextMemory') return new m.ContextMemory(...args);
  if (name.startsWith('InMemoryEntryStore_')) return new m.InMemoryEntryStore()[name.split('_')[1]](...args);
  return m[name](...args);
}

const memcoreError = (error, label) => {
  assert.ok(error instanceof m.MemcoreError, `${label}: ${error?.stack ?? error}`);
  assert.match(error.code, /^E_[A-Z_]+$/, label);
  assert.notEqual(error.code, 'E_INTERNAL', `${label}: ${error.message}`);
};

test('hostile values at every structured argument: a result or a MemcoreError, never a trap', async () => {
  const random = prng(SEED);
  const value = generator(random);
  const names = [...Object.keys(sync), ...Object.keys(asyncs)];
  let tried = 0;
  let refused = 0;
  for (let trial = 0; trial < 1500; trial++) {
    const name = names[trial % names.length];
    const isAsync = name in asyncs;
    const args = (isAsync ? asyncs : sync)[name]();
    const position = Math.floor(random() * args.length);
    args[position] = value(0);
    const label = `${name} arg ${position} (trial ${trial})`;
    tried += 1;
    try {
      const result = isAsync ? await m[name](...args) : callSync(name, args);
      if (result && typeof result.then === 'function') await result;
    } catch (error) {
      memcoreError(error, label);
      refused += 1;
    }
  }
  console.log(`hostile arguments: ${tried} values tried, ${refused} refused with a MemcoreError, ${tried - refused} accepted, ${instance().replaced} traps`);
  assert.equal(instance().replaced, 0);
});

test('hostile tool arguments: every call answers, none rejects, no trap', async () => {
  const random = prng(SEED + 1);
  const value = generator(random);
  const tools = m.createMemoryTools({ store: new m.InMemoryEntryStore(), userId: 'u', agentId: 'a' });
  const names = ['rememberFact', 'recallMemories', 'searchMemory', 'forgetFact', 'nope'];
  let tried = 0;
  for (let trial = 0; trial < 600; trial++) {
    const args = random() < 0.5 ? value(0) : { key: value(1), value: value(1), category: 'fact', query: value(1) };
    const text = await tools.call(names[trial % names.length], args);
    assert.equal(typeof text, 'string');
    assert.ok(!text.includes('internal error'), text);
    tried += 1;
  }
  console.log(`hostile tool arguments: ${tried} calls, ${tried} answered, ${instance().replaced} traps`);
  assert.equal(instance().replaced, 0);
});

test('hostile host answers: stores and storages that answer anything fail cleanly', async () => {
  const random = prng(SEED + 2);
  const value = generator(random);
  let tried = 0;
  for (let trial = 0; trial < 300; trial++) {
    const answer = value(0);
    const asPromise = random() < 0.5;
    const give = () => (asPromise ? Promise.resolve(answer) : answer);
    const store = { list: give, get: give, upsert: give, delete: give, incrementAccess: give, countUser: give, search: give };
    const tools = m.createMemoryTools({ store, userId: 'u', agentId: 'a' });
    for (const [name, args] of [['recallMemories', {}], ['searchMemory', { query: 'dog' }], ['rememberFact', { key: 'k', value: 'v', category: 'fact' }], ['forgetFact', { key: 'k' }]]) {
      const text = await tools.call(name, args);
      assert.equal(typeof text, 'string');
      tried += 1;
    }
    const storage = { read: give, write: give, remove: give, ensureRoot: give };
    const memory = new m.ContextMemory({ storage, model: () => answer });
    const load = await memory.load({ userId: 'u1', enabled: true });
    assert.ok(['loaded', 'no-profile', 'no-memory'].includes(load.outcome), load.outcome);
    const report = await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'hi', assistantMessage: 'ok' });
    assert.equal(typeof report.outcome, 'string');
    for (const run of [() => memory.getMyContextMemory('u1'), () => memory.updateMyContextMemory('u1', '## Identity\n'), () => memory.deleteContextMemory('u1')]) {
      try {
        await run();
      } catch (error) {
        memcoreError(error, `settings with a hostile answer (trial ${trial})`);
      }
    }
    tried += 4;
  }
  console.log(`hostile host answers: ${tried} calls over 300 answers, ${instance().replaced} traps`);
  assert.equal(instance().replaced, 0);
});

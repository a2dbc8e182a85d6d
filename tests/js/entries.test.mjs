// Entry memory through the package: the shared tool scenarios (byte-exact answers) against the
// bundled in-memory store and against a plain JS store with fault injection, plus the pure rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as m from 'memcore';
import { vectors } from './vectors.mjs';
import { fullEntry, matchesPartial, replayToolScenario, scenarioEntries, scenarioUsers, toolScenarios as scenarios } from '../support/tool-scenarios.mjs';

const isCode = (code) => (e) => e instanceof m.MemcoreError && e.code === code;

/** A straightforward JS entry store with the host interface; `fail` names operations that throw. */
export class JsStore {
  constructor(entries = []) {
    this.entries = entries.map((e) => structuredClone(e));
    this.fail = new Set();
  }
  check(op) {
    if (this.fail.has(op)) throw new Error('database unavailable');
  }
  async list(userId) {
    this.check('list');
    return this.entries.filter((e) => e.userId === userId).map((e) => structuredClone(e));
  }
  async get(id) {
    this.check('get');
    return structuredClone(this.entries.find((e) => e.id === id) ?? null);
  }
  async upsert(entry) {
    this.check('upsert');
    const i = this.entries.findIndex((e) => e.id === entry.id);
    if (i >= 0) this.entries[i] = structuredClone(entry);
    else this.entries.push(structuredClone(entry));
  }
  async delete(id) {
    this.check('delete');
    const before = this.entries.length;
    this.entries = this.entries.filter((e) => e.id !== id);
    return this.entries.length < before;
  }
  // A pushed-down search that declines (null → the core searches `list`), failing on demand.
  async search() {
    this.check('search');
    return null;
  }
  async incrementAccess(ids) {
    this.check('incrementAccess');
    for (const e of this.entries) if (ids.includes(e.id)) e.accessCount += 1;
  }
}

const reserved = (key) => key.trim().startsWith('_gdpr_');
const newestFirst = (a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The JS store with every pushed-down method (recall, findByKey, oldestOwn, countUser, search,
 * insertWithinCap), written as a SQL adapter would. `over: true` makes every query over-return —
 * all users' entries, any key, any visibility, in no order — as a buggy or hostile adapter could:
 * the core must still answer exactly what the scenarios expect. A failing `list` fails every read.
 */
export class PushedStore extends JsStore {
  constructor(entries, { over = false } = {}) {
    super(entries);
    this.over = over;
    this.calls = new Map();
  }
  check(op) {
    this.calls.set(op, (this.calls.get(op) ?? 0) + 1);
    const reads = ['list', 'recall', 'findByKey', 'oldestOwn', 'countUser', 'search'];
    if (this.fail.has('list') && reads.includes(op)) throw new Error('database unavailable');
    if (this.fail.has('upsert') && op === 'insertWithinCap') throw new Error('database unavailable');
    super.check(op);
  }
  checkEvict(evict) {
    // Evictions happen inside insertWithinCap's transaction: a failing delete fails it.
    if (evict.length > 0 && this.fail.has('delete')) throw new Error('database unavailable');
  }
  everything() {
    return [...this.entries].reverse().map((e) => structuredClone(e));
  }
  async recall({ userId, agentId, groupId, order, limit }) {
    this.check('recall');
    if (this.over) return this.everything();
    const visible = this.entries.filter((e) => e.userId === userId && !reserved(e.key) && (e.visibility === 'global' || (e.visibility === 'self' && e.sourceAgentId === agentId) || (e.visibility === 'group' && !!groupId && e.groupIds.includes(groupId))));
    const recent = [...visible].sort(newestFirst).slice(0, limit);
    if (order === 'most_recent') return structuredClone(recent);
    const accessed = [...visible].sort((a, b) => b.accessCount - a.accessCount || newestFirst(a, b)).slice(0, limit);
    return structuredClone([...accessed, ...recent]); // the union, repeats and all
  }
  async findByKey(userId, key) {
    this.check('findByKey');
    if (this.over) return this.everything();
    return structuredClone(this.entries.filter((e) => e.userId === userId && e.key === key));
  }
  async oldestOwn({ userId, agentId, limit }) {
    this.check('oldestOwn');
    if (this.over) return this.everything();
    const own = this.entries.filter((e) => e.userId === userId && e.sourceAgentId === agentId && !reserved(e.key));
    const oldestFirst = (a, b) => Date.parse(a.updatedAt) - Date.parse(b.updatedAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    return structuredClone(own.sort(oldestFirst).slice(0, limit));
  }
  async countUser(userId) {
    this.check('countUser');
    return this.entries.filter((e) => e.userId === userId && !reserved(e.key)).length;
  }
  async search(userId) {
    this.check('search');
    return this.over ? this.everything() : structuredClone(this.entries.filter((e) => e.userId === userId));
  }
  async insertWithinCap(entry, { maxEntries, evict }) {
    this.check('insertWithinCap');
    this.checkEvict(evict);
    const before = this.entries;
    this.entries = this.entries.filter((e) => !(evict.includes(e.id) && e.userId === entry.userId));
    const count = this.entries.filter((e) => e.userId === entry.userId && !reserved(e.key)).length;
    if (count >= maxEntries) {
      this.entries = before;
      return { written: false, count };
    }
    this.entries.push(structuredClone(entry));
    return { written: true, count: count + 1 };
  }
}

async function replay(scenario, kind) {
  const entries = scenarioEntries(scenario);
  let store;
  if (kind === 'native') {
    store = new m.InMemoryEntryStore();
    for (const e of entries) store.upsert(e);
  } else if (kind === 'pushed' || kind === 'over') {
    store = new PushedStore(entries, { over: kind === 'over' });
  } else {
    store = new JsStore(entries);
  }
  await replayToolScenario(scenario, {
    label: kind,
    store,
    setFail: kind !== 'native' ? (ops) => { store.fail = new Set(ops); } : undefined,
    storedEntries: async () => (kind === 'native'
      ? scenarioUsers(scenario).flatMap((u) => store.list(u)).filter((e, i, arr) => arr.findIndex((x) => x.id === e.id) === i)
      : store.entries),
  });
}

test('tool scenarios against the bundled in-memory store (byte-exact answers)', async () => {
  let ran = 0;
  for (const s of scenarios.scenarios) {
    if (s.calls.some((c) => c.failOn)) continue; // fault injection needs the JS store
    await replay(s, 'native');
    ran++;
  }
  assert.ok(ran >= 20, `${ran} scenarios`);
});

test('tool scenarios against a plain JS store, with store failures', async () => {
  for (const s of scenarios.scenarios) await replay(s, 'js');
});

test('tool scenarios against a store with every pushed-down method (no list on the hot paths), with store failures', async () => {
  for (const s of scenarios.scenarios) await replay(s, 'pushed');
  // The tools ask the store's queries, not for the whole set: recall, remember and forget of the
  // scenarios never list (Dream and the GDPR functions still do).
  const store = new PushedStore([fullEntry({ id: 'e1', key: 'k', value: 'v', sourceAgentId: 'a' })]);
  const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'a', now: () => '2026-03-01T00:00:00Z', newId: () => 'e2' });
  assert.equal(await tools.call('recallMemories', {}), '• k = v [fact, global]');
  assert.equal(await tools.call('rememberFact', { key: 'k2', value: 'w' }), '✅ Remembered: k2 = w [fact, self]');
  assert.equal(await tools.call('rememberFact', { key: 'k2', value: 'x' }), '✅ Remembered: k2 = x [fact, self]');
  assert.equal(await tools.call('forgetFact', { key: 'k' }), '✅ Forgotten: k');
  assert.equal(store.calls.get('list'), undefined, JSON.stringify([...store.calls]));
  assert.ok(store.calls.get('insertWithinCap') === 1 && store.calls.get('findByKey') >= 3 && store.calls.get('recall') === 1, JSON.stringify([...store.calls]));
});

test('a store whose queries over-return (other users, other agents, _gdpr_ keys, any order) cannot widen what the tools show or touch', async () => {
  for (const s of scenarios.scenarios) await replay(s, 'over');
});

test('concurrent writers at the cap through insertWithinCap: the store refuses the one over, the answer is the capacity message', async () => {
  const entries = Array.from({ length: 3 }, (_, i) => fullEntry({ id: `e${i}`, key: `k${i}`, value: 'v', sourceAgentId: 'a' }));
  const store = new PushedStore(entries);
  const config = { maxEntriesPerUser: 4, onCapReached: 'reject' };
  const make = (agentId) => m.createMemoryTools({ store, config, userId: 'u1', agentId, now: () => '2026-03-01T00:00:00Z', newId: () => `${agentId}-new` });
  // Both count 3 < 4 before either inserts (countUser answers first for both), then the store's
  // transaction lets one in.
  const [a, b] = await Promise.all([make('a').call('rememberFact', { key: 'x', value: '1' }), make('b').call('rememberFact', { key: 'y', value: '2' })]);
  const refused = [a, b].filter((t) => t === '⚠️ Memory capacity reached (4/4). Cannot store more facts.');
  const written = [a, b].filter((t) => t === '✅ Remembered: x = 1 [fact, self]' || t === '✅ Remembered: y = 2 [fact, self]');
  assert.equal(refused.length, 1, `${a} | ${b}`);
  assert.equal(written.length, 1, `${a} | ${b}`);
  assert.ok(store.calls.get('countUser') >= 2 && store.calls.get('insertWithinCap') === 2, JSON.stringify([...store.calls]));
  assert.equal(store.entries.length, 4);
  // evict_oldest: a full store makes the core re-plan with victims, inside the same transaction.
  const evicting = m.createMemoryTools({ store, config: { maxEntriesPerUser: 4 }, userId: 'u1', agentId: 'a', now: () => '2026-03-02T00:00:00Z', newId: () => 'z-new' });
  assert.equal(await evicting.call('rememberFact', { key: 'z', value: '3' }), '✅ Remembered: z = 3 [fact, self]');
  assert.equal(store.entries.length, 4);
  assert.ok(!store.entries.some((e) => e.id === 'e0'), `the stalest own entry was evicted: ${JSON.stringify(store.entries)}`);
});

test('the seed examples, verbatim', async () => {
  const store = new m.InMemoryEntryStore();
  const tools = m.createMemoryTools({ store, userId: 'user-123', agentId: 'agent-456', now: () => '2026-03-29T14:22:00Z' });
  assert.equal(await tools.call('rememberFact', { key: 'favorite_color', value: 'blue', category: 'preference' }), '✅ Remembered: favorite_color = blue [preference, self]');
  assert.equal(await tools.call('rememberFact', { key: 'favorite_color', value: 'blue', category: 'preference' }), '✅ Already remembered (unchanged): favorite_color = blue [preference, self]');
  assert.equal(await tools.call('rememberFact', { key: 'dog_name', value: 'Rex', category: 'fact' }), '✅ Remembered: dog_name = Rex [fact, self]');
  for (const q of ['dog name', 'dog_name', 'dog-name']) assert.equal(await tools.call('searchMemory', { query: q }), '• dog_name = Rex [fact, self]');
  assert.equal(await tools.call('searchMemory', { query: '!!!' }), "No memories matching '!!!' found.");
  assert.equal(await tools.call('forgetFact', { key: 'favorite_color' }), '✅ Forgotten: favorite_color');
  assert.equal(await tools.call('forgetFact', { key: 'favorite_color' }), "No memory with key 'favorite_color' found.");
  assert.equal(tools.writesThisTurn, 2); // forgetting does not count toward maxWritesPerTurn
});

test('messy model arguments get answers, never exceptions', async () => {
  const tools = m.createMemoryTools({ store: new m.InMemoryEntryStore(), userId: 'u', agentId: 'a' });
  for (const [name, args] of [
    ['rememberFact', undefined], ['rememberFact', null], ['rememberFact', 42], ['rememberFact', 'not json'],
    ['rememberFact', { key: { a: 1 }, value: 1, category: 'fact' }], ['rememberFact', { key: 'k', value: () => 1 }],
    ['searchMemory', { query: 10n }], ['forgetFact', []], ['nope', {}], [undefined, {}], [42, {}],
  ]) {
    const text = await tools.call(name, args);
    assert.equal(typeof text, 'string');
    assert.ok(text.length > 0);
  }
  assert.equal(await tools.call('rememberFact', '{"key":"n","value":7,"category":"fact"}'), '✅ Remembered: n = 7 [fact, self]');
  assert.equal(await tools.call('rememberFact', { key: 'o', value: { a: [1, true] }, category: 'fact' }), '✅ Remembered: o = {"a":[1,true]} [fact, self]');
});

test('parallel calls run in order and respect maxWritesPerTurn', async () => {
  const tools = m.createMemoryTools({ store: new m.InMemoryEntryStore(), userId: 'u', agentId: 'a', config: { guardrails: { maxWritesPerTurn: 3 } } });
  const answers = await Promise.all([1, 2, 3, 4, 5].map((i) => tools.call('rememberFact', { key: `k${i}`, value: i, category: 'fact' })));
  assert.deepEqual(answers.slice(3), ['⚠️ Maximum writes per turn (3) reached. Try again in the next turn.', '⚠️ Maximum writes per turn (3) reached. Try again in the next turn.']);
  tools.newTurn();
  assert.equal(await tools.call('rememberFact', { key: 'k4', value: 4, category: 'fact' }), '✅ Remembered: k4 = 4 [fact, self]');
});

test('createMemoryTools validates its options', () => {
  assert.throws(() => m.createMemoryTools(), isCode('E_ARGUMENT'));
  assert.throws(() => m.createMemoryTools({ store: {}, userId: 'u', agentId: 'a' }), (e) => e.code === 'E_ARGUMENT' && /list/.test(e.message));
  assert.throws(() => m.createMemoryTools({ store: new m.InMemoryEntryStore(), agentId: 'a' }), (e) => e.details.argument === 'options.userId');
  assert.throws(() => m.createMemoryTools({ store: new m.InMemoryEntryStore(), userId: 'u', agentId: 'a', config: { recallOrder: 'random' } }), (e) => e.code === 'E_CONFIG' && e.details.path === 'recallOrder');
  const t = m.createMemoryTools({ store: new m.InMemoryEntryStore(), userId: 'u', agentId: 'a' });
  assert.deepEqual(t.definitions.openai.map((d) => d.function.name), ['rememberFact', 'recallMemories', 'searchMemory', 'forgetFact', 'memoryHistory']);
  assert.deepEqual(t.definitions.anthropic.map((d) => d.name), ['rememberFact', 'recallMemories', 'searchMemory', 'forgetFact', 'memoryHistory']);
  assert.ok(t.definitions.mcp.every((d) => d.inputSchema.type === 'object'));
});

test('config vectors (the seed example parses as is)', () => {
  for (const c of vectors('entries/config.json').cases) {
    if (c.errorPath !== undefined) assert.throws(() => m.parseUserMemoryConfig(c.input), (e) => e.code === 'E_CONFIG' && e.details.path === c.errorPath, c.name);
    else assert.deepEqual(m.parseUserMemoryConfig(c.input), c.expect, c.name);
  }
});

test('tool attachment vectors', () => {
  for (const c of vectors('entries/tool_attachment.json').cases) {
    assert.deepEqual(m.resolveMemoryTools(c.agent, c.task), { attached: c.attached, warning: c.warning }, c.name);
  }
});

test('search vectors (Unicode decisions pinned)', () => {
  const v = vectors('entries/search.json');
  for (const c of v.terms) assert.deepEqual(m.searchTerms(c.query), c.terms, c.query);
  for (const c of v.matches) {
    const entry = fullEntry({ id: 'x', key: c.key, value: c.value, visibility: 'global' });
    assert.equal(m.matchesQuery(c.query, entry), c.matches, `${c.query} ~ ${c.key}=${JSON.stringify(c.value)}`);
  }
});

test('write rule vectors (REST and MCP; every violation at once)', () => {
  for (const c of vectors('entries/write_rules.json').cases) {
    assert.deepEqual(m.validateMemoryWrite(c.request, { surface: c.surface }).map((v) => v.field), c.fields, c.name);
  }
  assert.throws(() => m.validateMemoryWrite({}, { surface: 'grpc' }), isCode('E_ARGUMENT'));
});

test('context vectors: forged groupId removed, earlier-step groups need the host attestation', () => {
  const v = vectors('entries/context.json');
  for (const c of v.filter) assert.deepEqual(m.filterClientContext(c.input), c.output);
  for (const c of v.group) {
    const got = m.resolveGroupContext({
      injectedContext: c.injected == null ? {} : { groupId: c.injected },
      earlierSteps: c.earlier == null ? [] : [{ groupId: c.earlier }],
      hostAttestation: c.attestation,
    });
    assert.equal(got, c.group, c.name);
  }
});

test('visibility across three agents and two groups', () => {
  const e = (visibility, agent, groups = []) => fullEntry({ id: `${visibility}-${agent}`, key: 'k', value: 'v', visibility, sourceAgentId: agent, groupIds: groups });
  const entries = [e('global', 'a'), e('self', 'a'), e('self', 'b'), e('group', 'a', ['G1']), e('group', 'c', ['G2'])];
  const visible = (agent, group) => entries.filter((x) => m.isVisible(x, agent, group)).map((x) => x.id);
  assert.deepEqual(visible('a', 'G1'), ['global-a', 'self-a', 'group-a']);
  assert.deepEqual(visible('b', 'G1'), ['global-a', 'self-b', 'group-a']);
  assert.deepEqual(visible('c', 'G2'), ['global-a', 'group-c']);
  assert.deepEqual(visible('c', null), ['global-a']);
});

test('long-term properties and the legacy flat view; _gdpr_ keys untouchable', async () => {
  for (const store of [new m.InMemoryEntryStore(), new JsStore()]) {
    let n = 0;
    const opts = { userId: 'u1', agentId: 'a', config: { defaultVisibility: 'global' }, now: () => '2026-06-17T12:00:00Z', newId: () => `p${++n}` };
    const report = await m.persistLongTermProperties(store, [{ name: 'lang', value: 'de' }, { name: 'note', value: 'x', visibility: 'group' }, { name: '_gdpr_x', value: 1 }], opts);
    assert.deepEqual(report.stored, ['lang', 'note']);
    assert.equal(report.refused.length, 1);
    assert.deepEqual(await m.readProperties(store, 'u1'), { lang: 'de' });
    assert.equal(await m.mergeProperties(store, 'u1', { theme: 'dark' }, { now: () => '2026-06-17T12:00:01Z', newId: () => `p${++n}` }), 1);
    assert.deepEqual(await m.readProperties(store, 'u1'), { lang: 'de', theme: 'dark' });
    await assert.rejects(m.mergeProperties(store, 'u1', { _gdpr_processing_restricted: true }), isCode('E_ARGUMENT'));
    assert.equal(await m.deleteProperties(store, 'u1'), 2);
    assert.deepEqual(await m.readProperties(store, 'u1'), {});
  }
});

test('unchanged vectors: rememberFact and persistLongTermProperties agree on when a write changes nothing', async () => {
  const v = vectors('entries/unchanged.json');
  const d = v.defaults;
  assert.ok(v.cases.length >= 4);
  for (const c of v.cases) {
    for (const path of ['tool', 'property']) {
      const store = new m.InMemoryEntryStore();
      store.upsert(fullEntry(c.existing));
      let n = 0;
      const scope = { userId: d.userId, agentId: d.agentId, group: c.write.group ?? undefined, conversationId: d.conversationId, config: d.config, now: () => d.now, newId: () => `id-${++n}` };
      const label = `${c.name} [${path}]`;
      if (path === 'tool') {
        const tools = m.createMemoryTools({ store, ...scope });
        const answer = await tools.run('rememberFact', { key: c.write.key, value: c.write.value, category: 'property', visibility: c.write.visibility });
        assert.equal(answer.text, c.tool, label);
        assert.equal(answer.wrote, c.property === 'stored', label);
      } else {
        const report = await m.persistLongTermProperties(store, [{ name: c.write.key, value: c.write.value, visibility: c.write.visibility }], scope);
        assert.deepEqual(report[c.property], [c.write.key], `${label} ${JSON.stringify(report)}`);
        assert.deepEqual(report[c.property === 'stored' ? 'unchanged' : 'stored'], [], label);
      }
      const all = store.list(d.userId);
      assert.equal(all.length, c.expectStore.length, label);
      for (const expected of c.expectStore) {
        assert.ok(all.some((a) => matchesPartial(a, expected)), `${label}: store holds ${JSON.stringify(expected)}\n${JSON.stringify(all)}`);
      }
    }
  }
});

test('InMemoryEntryStore implements the host interface and validates entries', () => {
  const s = new m.InMemoryEntryStore();
  s.upsert(fullEntry({ id: 'a', key: 'k', value: 1 }));
  s.upsert(fullEntry({ id: 'b', key: '_gdpr_x', value: 1 }));
  assert.equal(s.countUser('u1'), 1);
  assert.equal(s.size, 2);
  s.incrementAccess(['a', 'missing']);
  assert.equal(s.get('a').accessCount, 1);
  assert.equal(s.get('missing'), null);
  assert.equal(s.delete('a'), true);
  assert.equal(s.delete('a'), false);
  assert.throws(() => s.upsert({ id: 'x' }), isCode('E_ARGUMENT'));
  assert.throws(() => s.list(5), isCode('E_ARGUMENT'));
});

test('pushed-down methods that answer nonsense give ❌ answers naming the method; the next call works', async () => {
  const store = new PushedStore([fullEntry({ id: 'e1', key: 'k', value: 'v', sourceAgentId: 'a' })]);
  const broken = new Set();
  // The tools read the store's methods once, when they are created: break them behind a switch.
  for (const [name, bad] of [['recall', async () => ({ not: 'a list' })], ['insertWithinCap', async () => 'yes'], ['findByKey', async () => { throw new Error('connection reset'); }]]) {
    const good = store[name].bind(store);
    store[name] = (...args) => (broken.has(name) ? bad() : good(...args));
  }
  const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'a', now: () => '2026-03-01T00:00:00Z', newId: () => 'e2' });
  broken.add('recall');
  assert.match(await tools.call('recallMemories', {}), /^❌ Failed to recall memory: store\.recall returned an unusable value/);
  broken.add('insertWithinCap');
  assert.match(await tools.call('rememberFact', { key: 'k2', value: 'w' }), /^❌ Failed to store memory: store\.insertWithinCap returned an unusable value/);
  broken.add('findByKey');
  assert.equal(await tools.call('forgetFact', { key: 'k' }), '❌ Failed to forget memory: connection reset');
  broken.clear();
  assert.equal(await tools.call('recallMemories', {}), '• k = v [fact, global]');
  assert.equal(await tools.call('rememberFact', { key: 'k2', value: 'w' }), '✅ Remembered: k2 = w [fact, self]');
});

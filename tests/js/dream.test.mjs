// Dream through the installed package: the shared vectors (tests/vectors/dream, replayed by the
// Rust suite too) over the bundled InMemoryEntryStore and over a plain JS host store that counts
// and fails operations; the model is the only fake (recorded answers). Then the metrics parsed by
// a real Prometheus text-format parser, schedules, the model adapter's errors and deadlines, and
// misuse.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import parsePrometheus from 'parse-prometheus-text-format';
import * as m from 'memcore';

const dir = new URL('../vectors/dream/', import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => [f, JSON.parse(readFileSync(new URL(f, dir), 'utf8'))]);
const isCode = (code) => (e) => e instanceof m.MemcoreError && e.code === code;

function merged(base, patch) {
  if (base && patch && typeof base === 'object' && typeof patch === 'object' && !Array.isArray(base) && !Array.isArray(patch)) {
    const out = { ...base };
    for (const [k, v] of Object.entries(patch)) out[k] = k in out ? merged(out[k], v) : v;
    return out;
  }
  return patch;
}

function caseEntries(c, defaults) {
  const out = [];
  for (const spec of c.make ?? []) {
    const { count, idPrefix = 'id-', keyPrefix = 'key-', valuePrefix = 'value-', ...fields } = spec;
    for (let i = 0; i < count; i++) out.push(merged(defaults.entry, { ...fields, id: `${idPrefix}${i}`, key: `${keyPrefix}${i}`, value: `${valuePrefix}${i}` }));
  }
  for (const partial of c.entries ?? []) out.push(merged(defaults.entry, partial));
  return out;
}

/** A plain JS entry store: counts every call; `fails[op]` is 'all' or the 1-based calls that throw. */
class JsStore {
  constructor(entries, fails = {}) {
    this.entries = entries.map((e) => structuredClone(e));
    this.fails = fails;
    this.ops = [];
  }
  step(op, arg) {
    this.ops.push([op, arg]);
    const nth = this.ops.filter(([o]) => o === op).length;
    const f = this.fails[op];
    if (f === 'all' || (Array.isArray(f) && f.includes(nth))) throw new Error('database unavailable');
  }
  count(op) {
    return this.ops.filter(([o]) => o === op).length;
  }
  async list(userId) {
    this.step('list', userId);
    return this.entries.filter((e) => e.userId === userId).map((e) => structuredClone(e));
  }
  async get(id) {
    this.step('get', id);
    return structuredClone(this.entries.find((e) => e.id === id) ?? null);
  }
  async upsert(entry) {
    this.step('upsert', entry.id);
    const i = this.entries.findIndex((e) => e.id === entry.id);
    if (i >= 0) this.entries[i] = structuredClone(entry);
    else this.entries.push(structuredClone(entry));
  }
  async delete(id) {
    this.step('delete', id);
    const before = this.entries.length;
    this.entries = this.entries.filter((e) => e.id !== id);
    return this.entries.length < before;
  }
  async incrementAccess() {
    this.step('incrementAccess', '');
  }
}

/** The fake model: recorded answers in call order, the last one repeating. */
function recordedModel(answers) {
  const requests = [];
  const complete = async (request) => {
    requests.push(request);
    const a = answers[Math.min(requests.length - 1, answers.length - 1)];
    if (a === undefined) throw new Error('no recorded answer');
    if (typeof a === 'string') return a;
    if (a.error) throw Object.assign(new Error(a.error.message), a.error.details ? { details: a.error.details } : {});
    return a;
  };
  return { complete, requests };
}

function same(actual, expected) {
  if (typeof expected === 'number' && typeof actual === 'number') return Math.abs(actual - expected) < 1e-12;
  if (Array.isArray(expected)) return Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => same(actual[i], e));
  if (expected && typeof expected === 'object') return actual && typeof actual === 'object' && Object.entries(expected).every(([k, v]) => same(actual[k], v));
  return actual === expected;
}
const matches = (entry, partial) => Object.entries(partial).every(([k, v]) => JSON.stringify(entry[k]) === JSON.stringify(v));

async function replay(file, c, defaults, kind) {
  const name = `${file}: ${c.name} [${kind}]`;
  const entries = caseEntries(c, defaults);
  let store;
  if (kind === 'native') {
    store = new m.InMemoryEntryStore();
    for (const e of entries) store.upsert(e);
  } else {
    store = new JsStore(entries, c.storeFails ?? {});
  }
  const model = recordedModel(c.answers ?? []);
  const newIds = [...(c.newIds ?? [])];
  let n = 0;
  const metrics = new m.DreamMetrics();
  const report = await m.dream({
    store, model: model.complete, metrics,
    userId: 'userId' in c ? c.userId : defaults.userId,
    agentId: 'agentId' in c ? c.agentId : defaults.agentId,
    config: merged(defaults.config, c.config ?? {}),
    now: defaults.now,
    newId: () => newIds[n++] ?? `new-${n}`,
    ...(c.price ? { price: c.price } : {}),
  });
  const expect = c.expect;
  for (const [field, want] of Object.entries(expect.report ?? {})) {
    assert.ok(same(report[field], want), `${name}: report.${field} is ${JSON.stringify(report[field])}, expected ${JSON.stringify(want)}`);
  }
  if (expect.noError) assert.equal(report.error, undefined, name);
  if (expect.errorContains) assert.ok(report.error?.message.includes(expect.errorContains), name);
  if (kind === 'js') {
    for (const [op, count] of Object.entries(expect.ops ?? {})) assert.equal(store.count(op), count, `${name}: ${op} calls ${JSON.stringify(store.ops)}`);
  }
  if (kind === 'js') store.fails = {};
  const stored = await store.list(defaults.userId);
  if (expect.store) {
    assert.equal(stored.length, expect.store.length, `${name}: ${JSON.stringify(stored, null, 1)}`);
    for (const want of expect.store) assert.ok(stored.some((e) => matches(e, want)), `${name}: nothing matches ${JSON.stringify(want)}\n${JSON.stringify(stored, null, 1)}`);
  }
  if (expect.storeCount !== undefined) assert.equal(stored.length, expect.storeCount, name);
  for (const want of expect.store_has ?? []) assert.ok(stored.some((e) => matches(e, want)), `${name}: nothing matches ${JSON.stringify(want)}`);
  if (expect.otherUser) {
    const theirs = await store.list(expect.otherUser.userId);
    assert.deepEqual(theirs.map((e) => e.id), expect.otherUser.ids, name);
  }
  const prompts = expect.prompts ?? {};
  if (prompts.count !== undefined) assert.equal(model.requests.length, prompts.count, `${name}: model calls`);
  for (const text of prompts.contain ?? []) assert.ok(model.requests.every((r) => r.user.includes(text)), `${name}: a prompt lacks ${text}`);
  for (const text of prompts.lack ?? []) assert.ok(model.requests.every((r) => !r.user.includes(text) && !r.system.includes(text)), `${name}: a prompt holds ${text}`);
  assert.ok(model.requests.every((r) => r.purpose === 'dream' && r.signal instanceof AbortSignal), name);
  assert.equal(report.calls, model.requests.length, name);
  const counted = metrics.snapshot();
  assert.deepEqual([counted.entriesPruned, counted.entriesSummarized, counted.cyclesFailed], [report.pruned, report.summarized, report.error ? 1 : 0], name);
}

test('the shared Dream vectors over the bundled InMemoryEntryStore', async () => {
  let ran = 0;
  for (const [file, doc] of files) {
    for (const c of doc.cases) {
      if (c.storeFails) continue; // store failures need the JS store
      await replay(file, c, doc.defaults, 'native');
      ran++;
    }
  }
  assert.ok(ran >= 60, `${ran} cases`);
});

test('the shared Dream vectors over a JS host store, with store failures and operation counts', async () => {
  let ran = 0;
  for (const [file, doc] of files) {
    for (const c of doc.cases) {
      await replay(file, c, doc.defaults, 'js');
      ran++;
    }
  }
  assert.ok(ran >= 70, `${ran} cases`);
});

function sixEntries(agent = 'agent-1', category = 'fact', prefix = 'e') {
  return Array.from({ length: 6 }, (_, i) => ({
    id: `${prefix}${i}`, userId: 'user-1', key: `${prefix}k${i}`, value: `secret ${prefix}${i}`, category, visibility: 'self',
    sourceAgentId: agent, groupIds: [], createdAt: '2026-06-01T00:00:00Z', updatedAt: '2026-06-01T00:00:00Z',
  }));
}
const summarise = { dream: { enabled: true, summarizeInteractions: true, pruneStaleAfterDays: 30, detectContradictions: true } };
const NOW = '2026-06-17T12:00:00Z';

test('metrics are Prometheus text a real parser reads, with the counts of the runs', async () => {
  const metrics = new m.DreamMetrics();
  const store = new m.InMemoryEntryStore();
  for (const e of [...sixEntries(), ...sixEntries('agent-1', 'preference', 'p')]) store.upsert(e);
  store.upsert({ ...sixEntries()[0], id: 'stale', key: 'old', updatedAt: '2026-01-01T00:00:00Z' });
  store.upsert({ ...sixEntries()[0], id: 'other', key: 'ek0', value: 'different', sourceAgentId: 'agent-2' });
  let calls = 0;
  const model = () => (++calls === 1 ? Promise.reject(Object.assign(new Error('upstream said no'), { status: 503 })) : '[{"key":"s","value":"v"}]');
  const report = await m.dream({ store, model, userId: 'user-1', agentId: 'agent-1', config: summarise, now: NOW, metrics });
  assert.equal(report.pruned, 1);
  assert.equal(report.summarized, 5);
  assert.deepEqual(report.groupsSkipped, [{ group: 'fact', reason: 'model-transient' }]);
  await m.dream({ store, model, userId: 'system:scheduler', agentId: 'agent-1', config: summarise, now: NOW, metrics });
  const text = metrics.prometheus();
  const families = parsePrometheus(text);
  const byName = Object.fromEntries(families.map((f) => [f.name, f]));
  const counters = {
    eddi_dream_users_processed_total: 1, eddi_dream_entries_pruned_total: 1, eddi_dream_contradictions_found_total: 1,
    eddi_dream_entries_summarized_total: 5, eddi_dream_cycles_failed_total: 1, eddi_dream_summarization_failed_total: 1,
  };
  for (const [name, value] of Object.entries(counters)) {
    assert.equal(byName[name]?.type, 'COUNTER', name);
    assert.ok(byName[name].help.length > 10, name);
    assert.equal(Number(byName[name].metrics[0].value), value, name);
  }
  assert.equal(byName.eddi_dream_duration_seconds.type, 'SUMMARY');
  assert.equal(Number(byName.eddi_dream_duration_seconds.metrics[0].count), 1);
  assert.ok(Number(byName.eddi_dream_duration_seconds.metrics[0].sum) >= 0);
  assert.equal(byName.eddi_dream_duration_seconds_max.type, 'GAUGE');
  assert.match(text, /^# HELP eddi_dream_entries_pruned_total .+\n# TYPE eddi_dream_entries_pruned_total counter\neddi_dream_entries_pruned_total 1$/m);
  assert.deepEqual(metrics.snapshot().usersProcessed, 1);
  await assert.rejects(m.dream({ store, userId: 'u', agentId: 'a', now: NOW, metrics: { prometheus() {} } }), isCode('E_ARGUMENT'));
});

test('values reach debug events only; keys, agents, ids and counts the others', async () => {
  const store = new m.InMemoryEntryStore();
  for (const e of sixEntries()) store.upsert(e);
  store.upsert({ ...sixEntries()[0], id: 'other', value: 'secret other', sourceAgentId: 'agent-2' });
  const events = [];
  await m.dream({ store, model: () => '[{"key":"s","value":"secret summary"}]', userId: 'user-1', agentId: 'agent-1', config: summarise, now: NOW, log: (e) => events.push(e) });
  for (const e of events) {
    assert.equal(e.userId, 'user-1');
    if (e.level !== 'debug') assert.ok(!JSON.stringify(e.fields).includes('secret'), JSON.stringify(e));
  }
  const contradiction = events.find((e) => e.event === 'dream.contradiction');
  assert.deepEqual([contradiction.level, contradiction.fields.key, contradiction.fields.agents], ['info', 'ek0', ['agent-1', 'agent-2']]);
  assert.ok(JSON.stringify(events.find((e) => e.event === 'dream.contradiction.values').fields).includes('secret other'));
  assert.ok(events.some((e) => e.event === 'dream.group.consolidated'));
});

test('model errors: an SDK-style status, details.transient, a message; a deadline aborts the request', async () => {
  const run = async (model, extra = {}) => {
    const store = new m.InMemoryEntryStore();
    for (const e of sixEntries()) store.upsert(e);
    return m.dream({ store, model, userId: 'user-1', agentId: 'agent-1', config: summarise, now: NOW, ...extra });
  };
  const skipped = (r) => r.groupsSkipped.map((g) => g.reason);
  assert.deepEqual(skipped(await run(() => Promise.reject(Object.assign(new Error('Too busy'), { status: 429 })))), ['model-transient']);
  assert.deepEqual(skipped(await run(() => Promise.reject(Object.assign(new Error('Unauthorized'), { status: 401 })))), ['model-error']);
  assert.deepEqual(skipped(await run(() => Promise.reject(Object.assign(new Error('x'), { details: { transient: true } })))), ['model-transient']);
  assert.deepEqual(skipped(await run(() => { throw new Error('Overloaded'); })), ['model-transient']);
  const denied = await run(() => { throw new Error('401 Unauthorized'); });
  assert.deepEqual([skipped(denied), denied.error.code], [['model-error'], 'model-failed']);
  // The OpenAI adapter's errors carry details.status and details.transient; a hung call times out.
  let signal;
  const hung = await run((request) => { signal = request.signal; return new Promise(() => {}); }, { modelTimeoutMs: 20 });
  assert.deepEqual([skipped(hung), hung.error, signal.aborted], [['model-transient'], undefined, true]);
});

test('validateDreamSchedule: the marker, a real user, an agent; no message needed', () => {
  const ok = { name: 'nightly-dream', triggerType: 'CRON', cronExpression: '0 3 * * *', agentId: 'agent-1', agentVersion: 1, userId: 'user-123', metadata: { dreamType: 'dream_consolidation' } };
  assert.deepEqual(m.validateDreamSchedule(ok), []);
  assert.deepEqual(m.validateDreamSchedule({ ...ok, userId: 'system:scheduler' }).map((v) => v.field), ['userId']);
  assert.deepEqual(m.validateDreamSchedule({ ...ok, userId: '  ', agentId: undefined, metadata: {} }).map((v) => v.field), ['metadata.dreamType', 'userId', 'agentId']);
  assert.deepEqual(m.validateDreamSchedule(undefined).map((v) => v.field), ['']);
  assert.throws(() => m.validateDreamSchedule({ a: () => 1 }), isCode('E_ARGUMENT'));
});

test('misuse rejects with a code; refusals are data and touch nothing', async () => {
  const store = new JsStore(sixEntries());
  await assert.rejects(m.dream({ store, userId: 'user-1', agentId: 'agent-1' }), (e) => isCode('E_ARGUMENT')(e) && e.details.argument === 'options.now');
  await assert.rejects(m.dream({ store, userId: 'user-1', agentId: 'agent-1', now: NOW, config: summarise }), (e) => isCode('E_CONFIG')(e) && e.details.path === 'model');
  await assert.rejects(m.dream({ store, userId: 'user-1', agentId: 'agent-1', now: NOW, config: { dream: { summarizeGroupBy: 'weekly' } } }), (e) => isCode('E_CONFIG')(e) && e.details.path === 'dream.summarizeGroupBy');
  await assert.rejects(m.dream({ store, userId: 'user-1', agentId: 'agent-1', now: NOW, price: { inputPerMTok: -1, outputPerMTok: 0 } }), isCode('E_CONFIG'));
  await assert.rejects(m.dream({ store, userId: 'user-1', agentId: 'agent-1', now: NOW, storeTimeoutMs: 0 }), isCode('E_CONFIG'));
  await assert.rejects(m.dream({ store, userId: 'user-1', agentId: 'agent-1', now: NOW, surprise: 1 }), isCode('E_ARGUMENT'));
  await assert.rejects(m.dream({ store: {}, userId: 'user-1', agentId: 'agent-1', now: NOW }), isCode('E_ARGUMENT'));
  await assert.rejects(m.dream(null), isCode('E_ARGUMENT'));
  await assert.rejects(m.dream({ store, userId: 42, agentId: 'a', now: NOW }), isCode('E_ARGUMENT'));
  const refused = await m.dream({ store, userId: 'user-1', agentId: 'agent-1', now: NOW, config: { dream: { enabled: false } } });
  assert.equal(refused.error.code, 'disabled');
  assert.equal(store.ops.length, 0);
});

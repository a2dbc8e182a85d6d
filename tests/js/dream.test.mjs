// Dream through the installed package: the shared vectors (tests/vectors/dream, replayed by the
// Rust suite too) over the bundled InMemoryEntryStore and over a plain JS host store that counts
// and fails operations; the model is the only fake (recorded answers). Then the metrics parsed by
// a real Prometheus text-format parser, schedules, the model adapter's errors and deadlines, and
// misuse.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import parsePrometheus from 'parse-prometheus-text-format';
import * as m from 'memcore';
import { JsStore, caseEntries, dreamFiles as files, replayDreamCase } from '../support/dream-cases.mjs';

const isCode = (code) => (e) => e instanceof m.MemcoreError && e.code === code;

async function replay(file, c, defaults, kind) {
  const entries = caseEntries(c, defaults);
  let store;
  if (kind === 'native') {
    store = new m.InMemoryEntryStore();
    for (const e of entries) store.upsert(e);
  } else {
    store = new JsStore(entries, c.storeFails ?? {});
  }
  await replayDreamCase(file, c, defaults, {
    label: kind, store, ops: kind === 'js' ? (op) => store.count(op) : undefined, clearFails: () => { store.fails = {}; },
  });
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
    memcore_dream_users_processed_total: 1, memcore_dream_entries_pruned_total: 1, memcore_dream_contradictions_found_total: 1,
    memcore_dream_entries_summarized_total: 5, memcore_dream_cycles_failed_total: 1, memcore_dream_summarization_failed_total: 1,
  };
  for (const [name, value] of Object.entries(counters)) {
    assert.equal(byName[name]?.type, 'COUNTER', name);
    assert.ok(byName[name].help.length > 10, name);
    assert.equal(Number(byName[name].metrics[0].value), value, name);
  }
  assert.equal(byName.memcore_dream_duration_seconds.type, 'SUMMARY');
  assert.equal(Number(byName.memcore_dream_duration_seconds.metrics[0].count), 1);
  assert.ok(Number(byName.memcore_dream_duration_seconds.metrics[0].sum) >= 0);
  assert.equal(byName.memcore_dream_duration_seconds_max.type, 'GAUGE');
  assert.match(text, /^# HELP memcore_dream_entries_pruned_total .+\n# TYPE memcore_dream_entries_pruned_total counter\nmemcore_dream_entries_pruned_total 1$/m);
  assert.deepEqual(metrics.snapshot().usersProcessed, 1);
  await assert.rejects(m.dream({ store, userId: 'u', agentId: 'a', now: NOW, metrics: { prometheus() {} } }), isCode('E_ARGUMENT'));
});

test('metric names follow the prefix (default memcore_); a bad prefix is E_ARGUMENT and the next call works', async () => {
  const eddi = new m.DreamMetrics({ prefix: 'eddi_' });
  await m.dream({ store: new m.InMemoryEntryStore(), userId: 'user-1', agentId: 'agent-1', config: { dream: { enabled: true, pruneStaleAfterDays: 30 } }, now: NOW, metrics: eddi });
  assert.match(eddi.prometheus(), /^eddi_dream_users_processed_total 1$/m);
  assert.doesNotMatch(eddi.prometheus(), /memcore_/);
  assert.match(new m.DreamMetrics({}).prometheus(), /^memcore_dream_users_processed_total 0$/m);
  for (const bad of [{ prefix: '' }, { prefix: '1x' }, { prefix: 'a-b' }, { prefix: 'x'.repeat(65) }, { prefix: 7 }, { prefix: {} }, 'eddi_', 42]) {
    assert.throws(() => new m.DreamMetrics(bad), isCode('E_ARGUMENT'), JSON.stringify(bad));
  }
  assert.match(new m.DreamMetrics({ prefix: 'app:' }).prometheus(), /^app:dream_cycles_failed_total 0$/m);
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

// memcore/telemetry (issue 24 part 4, SPEC §8.5) through the installed package, read with the
// OpenTelemetry SDK's in-memory exporters: a full turn (load, the gate, the consolidation, a
// write that conflicts and its retry) as one span tree; a tool call; a REST route; an MCP tool
// through the official client; a Dream run; metrics through the OTel metrics API and the same
// counters as Prometheus text under the prefix. A canary written into every user-content field
// appears in no span, attribute, event, status, metric attribute or Prometheus line. Without a
// telemetry nothing is recorded; a telemetry whose API throws changes no result.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as m from 'memcore';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import { createMemoryHandler, toNodeListener } from 'memcore/server';
import { createTelemetry } from 'memcore/telemetry';
import { openSqlite } from 'memcore/adapters/sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The SDK's build/esm uses extensionless imports Node's ESM loader refuses: load it with require,
// sharing the one @opentelemetry/api the test and the package see.
const require = createRequire(import.meta.url);
const api = require('@opentelemetry/api');
const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { MeterProvider, InMemoryMetricExporter, PeriodicExportingMetricReader, AggregationTemporality } = require('@opentelemetry/sdk-metrics');
const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks');

const CANARY = 'zq7canary';
const NOW = () => '2026-11-29T10:00:00Z';
const PATH = 'user-memory/u1/memory.md';
const H = ['Identity', 'Communication Preferences', 'Work Context', 'Skills & Expertise', 'Recent Topics', 'Follow-ups'];
const body = (line) => '# User Memory\n\n' + H.map((h, i) => `## ${h}\n${i === 0 ? line : '_(empty)_'}`).join('\n\n') + '\n';
const STORED = `---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-01-01T00:00:00+00:00\nturn_count: 4\n---\n\n${body(`- Ana ${CANARY}`)}`;

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
const meterProvider = new MeterProvider({ readers: [reader] });
api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
api.trace.setGlobalTracerProvider(provider);
api.metrics.setGlobalMeterProvider(meterProvider);

/** A scripted model: UPDATE at the gate, the given profile at the consolidation. */
function model(consolidated) {
  return {
    async complete(request) {
      if (request.purpose === 'gate') return { text: 'UPDATE', usage: { inputTokens: 100, outputTokens: 1 } };
      return { text: consolidated, usage: { inputTokens: 900, outputTokens: 60 } };
    },
  };
}

/** A storage whose first write meets a concurrent write of the same profile (a version conflict). */
function conflictingStorage() {
  const inner = new InMemoryProfileStorage({ files: { [PATH]: STORED } });
  let first = true;
  return {
    read: (path) => inner.read(path),
    remove: (path) => inner.remove(path),
    async write(path, text, options) {
      if (first) {
        first = false;
        await inner.write(path, STORED.replace('turn_count: 4', 'turn_count: 5'), {});
      }
      return inner.write(path, text, options);
    },
  };
}

const spans = () => exporter.getFinishedSpans();
const byName = (name) => spans().filter((s) => s.name === name);
const parentOf = (span) => span.parentSpanContext?.spanId ?? span.parentSpanId;
async function collectMetrics() {
  await reader.forceFlush();
  const points = [];
  for (const rm of metricExporter.getMetrics()) for (const sm of rm.scopeMetrics) for (const metric of sm.metrics) for (const p of metric.dataPoints) points.push({ name: metric.descriptor.name, attributes: p.attributes, value: p.value });
  return points;
}

/** Everything recorded, as text: span names, attributes, events, statuses, metric names and attributes. */
async function recordedText(telemetry) {
  const parts = spans().map((s) => JSON.stringify({ name: s.name, attributes: s.attributes, events: s.events, status: s.status, links: s.links }));
  parts.push(JSON.stringify(await collectMetrics()));
  parts.push(telemetry.metrics().prometheus());
  return parts.join('\n');
}

describe('memcore/telemetry with the OTel SDK', () => {
  const telemetry = createTelemetry({ api });
  let server;
  let base;
  before(async () => {
    exporter.reset();
    const entries = new m.InMemoryEntryStore();
    const handler = createMemoryHandler({ entries, authenticate: () => ({ userId: 'u1' }), telemetry, now: NOW });
    server = http.createServer(toNodeListener(handler));
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${server.address().port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  test('a full turn: load and afterTurn spans, the gate, the consolidation, the conflicting write and its retry as children', async () => {
    exporter.reset();
    const memory = new m.ContextMemory({ storage: conflictingStorage(), model: model(body(`- Ana in Porto ${CANARY}`)), now: NOW, telemetry });
    const loaded = await memory.load({ userId: 'u1', enabled: true });
    assert.equal(loaded.outcome, 'loaded');
    const report = await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: `I moved ${CANARY}`, assistantMessage: `Nice ${CANARY}` });
    assert.equal(report.outcome, 'updated');
    const [load] = byName('memcore.load');
    const [turn] = byName('memcore.afterTurn');
    assert.ok(load && turn);
    assert.equal(turn.attributes['memcore.outcome'], 'updated');
    const children = spans().filter((s) => parentOf(s) === turn.spanContext().spanId);
    const chats = children.filter((s) => s.name === 'chat');
    assert.deepEqual(chats.map((s) => s.attributes['memcore.purpose']), ['gate', 'consolidate', 'consolidate'], 'the consolidation ran again on the fresh profile');
    assert.deepEqual(chats.map((s) => [s.attributes['gen_ai.operation.name'], s.attributes['gen_ai.usage.input_tokens'], s.attributes['gen_ai.usage.output_tokens']]), [['chat', 100, 1], ['chat', 900, 60], ['chat', 900, 60]]);
    const writes = children.filter((s) => s.name === 'memcore.storage.write');
    assert.equal(writes.length, 2, 'the conflicting write and its retry');
    assert.ok(children.filter((s) => s.name === 'memcore.storage.read').length >= 2, 'the read and the re-read');
    assert.ok(spans().filter((s) => parentOf(s) === load.spanContext().spanId).some((s) => s.name === 'memcore.storage.read'));
    assert.equal(turn.attributes['memcore.usage.input_tokens'], 1900);
    const prom = telemetry.metrics().prometheus();
    assert.match(prom, /^memcore_turns_total\{operation="afterTurn",outcome="updated"\} 1$/m);
    assert.match(prom, /^memcore_model_tokens_total\{direction="input",purpose="consolidate"\} 1800$/m);
    assert.match(prom, /^# TYPE memcore_operation_duration_seconds histogram$/m);
    const points = await collectMetrics();
    assert.ok(points.some((p) => p.name === 'memcore_turns_total' && p.attributes.outcome === 'updated' && p.value === 1));
    assert.ok(points.some((p) => p.name === 'memcore_model_tokens_total' && p.attributes.purpose === 'gate' && p.attributes.direction === 'input' && p.value === 100));
    const latency = points.find((p) => p.name === 'memcore_operation_duration_seconds' && p.attributes.operation === 'memcore.afterTurn');
    assert.equal(latency?.value.count, 1, 'the turn\'s latency reaches the OTel histogram');
  });

  test('a failing model call: its span has the error status and type, the turn its outcome; the message is not recorded', async () => {
    exporter.reset();
    const failing = { async complete() { throw Object.assign(new Error(`upstream down ${CANARY}`), { status: 503 }); } };
    const memory = new m.ContextMemory({ storage: new InMemoryProfileStorage({ files: { [PATH]: STORED } }), model: failing, now: NOW, telemetry });
    const report = await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'a', assistantMessage: 'b' });
    assert.equal(report.outcome, 'model-failed');
    const [chat] = byName('chat');
    assert.equal(chat.status.code, 2);
    assert.equal(chat.attributes['error.type'], 'Error');
    assert.equal(chat.attributes['memcore.outcome'], 'error');
    assert.equal(byName('memcore.afterTurn')[0].attributes['memcore.outcome'], 'model-failed');
    assert.match(telemetry.metrics().prometheus(), /^memcore_turns_total\{operation="afterTurn",outcome="model-failed"\} 1$/m);
  });

  test('two concurrent turns of two users: each turn\'s model calls are its own children', async () => {
    exporter.reset();
    const files = { [PATH]: STORED, 'user-memory/u2/memory.md': STORED.replace('user_id: u1', 'user_id: u2') };
    const memory = new m.ContextMemory({ storage: new InMemoryProfileStorage({ files }), model: model(body('- moved')), now: NOW, telemetry });
    await Promise.all(['u1', 'u2'].map((userId) => memory.afterTurn({ userId, enabled: true, userMessage: 'x', assistantMessage: 'y' })));
    const turns = byName('memcore.afterTurn');
    assert.equal(turns.length, 2);
    for (const turn of turns) {
      const chats = spans().filter((s) => s.name === 'chat' && parentOf(s) === turn.spanContext().spanId);
      assert.deepEqual(chats.map((s) => s.attributes['memcore.purpose']), ['gate', 'consolidate']);
    }
  });

  test('a tool call: a span execute_tool <name> and the answer counted by kind', async () => {
    exporter.reset();
    const tools = m.createMemoryTools({ store: new m.InMemoryEntryStore(), userId: 'u1', agentId: 'a', now: NOW, telemetry });
    assert.match(await tools.call('rememberFact', { key: `k_${CANARY}`, value: `v ${CANARY}`, category: 'fact' }), /^✅ Remembered/);
    assert.match(await tools.call('rememberFact', { key: 'api_key', value: 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD' }), /^⚠️/);
    const calls = byName('execute_tool rememberFact');
    assert.equal(calls.length, 2);
    assert.deepEqual(calls.map((s) => [s.attributes['gen_ai.tool.name'], s.attributes['memcore.outcome']]), [['rememberFact', 'ok'], ['rememberFact', 'refused']]);
    const prom = telemetry.metrics().prometheus();
    assert.match(prom, /^memcore_tool_calls_total\{answer="ok",tool="rememberFact"\} 1$/m);
    assert.match(prom, /^memcore_tool_calls_total\{answer="refused",tool="rememberFact"\} 1$/m);
  });

  test('a tool name the model makes up is one label, _unknown, on spans and metrics (never its text)', async () => {
    exporter.reset();
    const tools = m.createMemoryTools({ store: new m.InMemoryEntryStore(), userId: 'u1', agentId: 'a', now: NOW, telemetry });
    for (const name of [`steal_${CANARY}`, '<script>alert(1)</script>', 'x'.repeat(5000), 'rememberfact']) {
      assert.match(await tools.call(name, {}), /^⚠️|^❌/);
    }
    const spans = exporter.getFinishedSpans();
    assert.deepEqual(spans.map((s) => [s.name, s.attributes['gen_ai.tool.name']]), Array(4).fill(['execute_tool _unknown', '_unknown']));
    const prom = telemetry.metrics().prometheus();
    assert.match(prom, /^memcore_tool_calls_total\{answer="[a-z]+",tool="_unknown"\} 4$/m);
    assert.ok(!prom.includes('steal_') && !prom.includes('<script>') && !prom.includes('rememberfact'), 'no made-up name in the metrics');
    // A real tool is still named.
    await tools.call('recallMemories', {});
    assert.equal(byName('execute_tool recallMemories').length, 1);
  });

  test('a REST route: a span "<method> <route template>" with the status; ids are not in it', async () => {
    exporter.reset();
    const put = await fetch(`${base}/usermemorystore/memories`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userId: 'u1', key: `c_${CANARY}`, value: `x ${CANARY}`, visibility: 'global' }) });
    assert.equal(put.status, 201);
    const got = await fetch(`${base}/usermemorystore/memories/u1/key/c_${CANARY}`);
    assert.equal(got.status, 200);
    await (await fetch(`${base}/usermemorystore/memories/u2`)).arrayBuffer();
    // A method outside HTTP's own (WebDAV's) and a path that is no route: neither grows the label set.
    await new Promise((resolve, reject) => {
      const req = http.request(`${base}/nowhere/${CANARY}`, { method: 'PROPFIND' }, (res) => res.resume().on('end', resolve));
      req.on('error', reject);
      req.end();
    });
    const names = spans().map((s) => s.name);
    assert.deepEqual(names, ['PUT /usermemorystore/memories', 'GET /usermemorystore/memories/{userId}/key/{key}', 'GET /usermemorystore/memories/{userId}', '_OTHER unknown']);
    assert.deepEqual(spans().map((s) => s.attributes['http.response.status_code']).slice(0, 3), [201, 200, 403]);
    assert.match(telemetry.metrics().prometheus(), /^memcore_http_requests_total\{method="GET",route="\/usermemorystore\/memories\/\{userId\}",status="403"\} 1$/m);
  });

  test('an MCP tool through the official client: a span per tool call under the request span', async () => {
    exporter.reset();
    const client = new Client({ name: 'telemetry-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp/agent`)));
    const answer = await client.callTool({ name: 'rememberFact', arguments: { key: 'mcp_fact', value: `by mcp ${CANARY}`, category: 'fact', visibility: 'self' } });
    assert.match(answer.content[0].text, /^✅ Remembered/);
    await client.close();
    const [tool] = byName('execute_tool rememberFact');
    assert.equal(tool.attributes['mcp.method.name'], 'tools/call');
    const parent = spans().find((s) => s.spanContext().spanId === parentOf(tool));
    assert.equal(parent?.name, 'POST /mcp/agent');
  });

  test('store operations (a real SQLite file) and embedder calls are children of the tool call; the agent MCP answer kinds', async () => {
    exporter.reset();
    const dir = mkdtempSync(join(tmpdir(), 'memcore-telemetry-'));
    const db = await openSqlite(join(dir, 'memcore.db'));
    try {
      const embedder = {
        model: 'hash-8',
        dimensions: 8,
        async embed({ texts }) {
          return { vectors: texts.map((t) => Float32Array.from({ length: 8 }, (_, i) => (t.length + i) % 5)) };
        },
      };
      const tools = m.createMemoryTools({ store: db, userId: 'u1', agentId: 'a', now: NOW, newId: () => 'id-1', embedder, config: { search: { mode: 'hybrid' } }, telemetry });
      assert.match(await tools.call('rememberFact', { key: 'pet_name', value: `Rex ${CANARY}`, category: 'fact', visibility: 'global' }), /^✅ Remembered/);
      tools.newTurn();
      await tools.call('searchMemory', { query: `pet ${CANARY}` });
      const [remember] = byName('execute_tool rememberFact');
      const [search] = byName('execute_tool searchMemory');
      const under = (span) => spans().filter((s) => parentOf(s) === span.spanContext().spanId);
      const rememberChildren = under(remember).map((s) => s.name);
      assert.ok(rememberChildren.some((n) => n.startsWith('memcore.store.')), rememberChildren.join());
      for (const s of under(remember)) if (s.name.startsWith('memcore.store.')) assert.equal(s.attributes['memcore.host_call'], s.name.slice('memcore.'.length));
      const embeddings = [...under(remember), ...under(search)].filter((s) => s.name === 'embeddings');
      assert.ok(embeddings.length >= 1, [...under(remember), ...under(search)].map((s) => s.name).join());
      for (const e of embeddings) assert.deepEqual([e.attributes['gen_ai.operation.name'], e.attributes['gen_ai.request.model']], ['embeddings', 'hash-8']);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
    // The agent endpoint counts its answers by their mark: a secret is refused (⚠️).
    const client = new Client({ name: 'telemetry-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp/agent`)));
    const refused = await client.callTool({ name: 'rememberFact', arguments: { key: 'api_key', value: 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD', category: 'fact' } });
    assert.match(refused.content[0].text, /^⚠️/);
    await client.close();
    assert.match(telemetry.metrics().prometheus(), /^memcore_tool_calls_total\{answer="refused",tool="rememberFact"\} 2$/m);
  });

  test('a Dream run: a span with its counts and the dream counters', async () => {
    exporter.reset();
    const store = new m.InMemoryEntryStore();
    const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'a', now: () => '2020-01-01T00:00:00Z' });
    await tools.call('rememberFact', { key: 'old_note', value: `old ${CANARY}`, category: 'context' });
    const report = await m.dream({ store, userId: 'u1', agentId: 'a', now: '2026-11-29T10:00:00Z', config: { dream: { enabled: true, pruneStaleAfterDays: 30 } }, telemetry });
    const [run] = byName('memcore.dream');
    assert.ok(run);
    assert.equal(run.attributes['memcore.dream.pruned'], report.pruned);
    assert.match(telemetry.metrics().prometheus(), /^memcore_dream_runs_total\{outcome="done"\} 1$/m);
    assert.equal(report.pruned, 1);
    assert.match(telemetry.metrics().prometheus(), /^memcore_dream_entries_pruned_total 1$/m);
    const points = await collectMetrics();
    assert.ok(points.some((p) => p.name === 'memcore_dream_runs_total' && p.attributes.outcome === 'done' && p.value === 1));
    assert.ok(points.some((p) => p.name === 'memcore_dream_entries_pruned_total' && p.value === 1));
  });

  test('the canary is nowhere in what was recorded', async () => {
    const text = await recordedText(telemetry);
    assert.ok(text.length > 1000);
    assert.ok(!text.includes(CANARY), 'a user value, key, message, query or profile line was recorded');
    assert.ok(!text.includes('u1'), 'no user id either');
  });
});

describe('prefixes, absence and hostile APIs', () => {
  test('the prefix is configurable and checked', async () => {
    const eddi = createTelemetry({ prefix: 'eddi_' });
    await m.createMemoryTools({ store: new m.InMemoryEntryStore(), userId: 'u1', agentId: 'a', telemetry: eddi }).call('recallMemories', {});
    assert.match(eddi.metrics().prometheus(), /^eddi_tool_calls_total\{answer="answered",tool="recallMemories"\} 1$/m);
    assert.ok(!eddi.metrics().prometheus().includes('memcore_'));
    for (const prefix of ['', '1x', 'a-b', 'sp ace', 7]) assert.throws(() => createTelemetry({ prefix }), (e) => e instanceof m.MemcoreError && e.code === 'E_ARGUMENT', String(prefix));
    for (const bad of [null, 'api', { api: {} }, { api: { trace: {} } }]) assert.throws(() => createTelemetry(bad), (e) => e instanceof m.MemcoreError && e.code === 'E_ARGUMENT');
    assert.throws(() => new m.ContextMemory({ storage: new InMemoryProfileStorage(), telemetry: {} }), (e) => e.code === 'E_ARGUMENT');
    assert.throws(() => m.createMemoryTools({ store: new m.InMemoryEntryStore(), userId: 'u1', agentId: 'a', telemetry: { metrics() {} } }), (e) => e.code === 'E_ARGUMENT');
  });

  test('without a telemetry nothing is recorded, even with a global provider registered', async () => {
    exporter.reset();
    const memory = new m.ContextMemory({ storage: new InMemoryProfileStorage({ files: { [PATH]: STORED } }), model: model(body('- x')), now: NOW });
    assert.equal((await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'a', assistantMessage: 'b' })).outcome, 'updated');
    await m.createMemoryTools({ store: new m.InMemoryEntryStore(), userId: 'u1', agentId: 'a' }).call('recallMemories', {});
    assert.deepEqual(spans(), []);
  });

  test('a telemetry without an API counts for Prometheus and records no span', async () => {
    exporter.reset();
    const counting = createTelemetry();
    const memory = new m.ContextMemory({ storage: new InMemoryProfileStorage({ files: { [PATH]: STORED } }), model: model(body('- x')), now: NOW, telemetry: counting });
    await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'a', assistantMessage: 'b' });
    assert.deepEqual(spans(), []);
    assert.match(counting.metrics().prometheus(), /^memcore_turns_total\{operation="afterTurn",outcome="updated"\} 1$/m);
  });

  test('an API whose tracer and meter throw changes no result', async () => {
    const boom = () => {
      throw new Error('telemetry backend down');
    };
    const hostile = {
      trace: { getTracer: () => ({ startSpan: boom }), setSpan: boom },
      context: { active: boom, with: boom },
      metrics: { getMeter: () => ({ createCounter: () => ({ add: boom }), createHistogram: () => ({ record: boom }) }) },
    };
    const telemetry = createTelemetry({ api: hostile });
    const run = async (t) => {
      const memory = new m.ContextMemory({ storage: new InMemoryProfileStorage({ files: { [PATH]: STORED } }), model: model(body('- moved')), now: NOW, ...(t ? { telemetry: t } : {}) });
      const report = await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'a', assistantMessage: 'b' });
      const tools = m.createMemoryTools({ store: new m.InMemoryEntryStore(), userId: 'u1', agentId: 'a', now: NOW, newId: () => 'id-1', ...(t ? { telemetry: t } : {}) });
      return [report.outcome, report.turnCount, await tools.call('rememberFact', { key: 'k', value: 'v', category: 'fact' })];
    };
    assert.deepEqual(await run(telemetry), await run(null));
    // The process-wide host-call hook of a telemetry with a working API stays harmless too.
    assert.deepEqual(await run(createTelemetry({ api })), await run(null));
    // … and so does a host whose answer is a thenable with a throwing `then` getter, traced or not.
    const hostileRead = () => ({ read: () => ({ get then() { throw new Error('then getter'); } }), write: async () => ({ written: true }), remove: async () => {} });
    const load = async (t) => {
      exporter.reset();
      const memory = new m.ContextMemory({ storage: hostileRead(), now: NOW, ...(t ? { telemetry: t } : {}) });
      try {
        return ['resolved', (await memory.load({ userId: 'u1', enabled: true })).outcome];
      } catch (error) {
        return ['rejected', error.code];
      }
    };
    const traced = createTelemetry({ api });
    assert.deepEqual(await load(traced), await load(null));
    await load(traced);
    const reads = byName('memcore.storage.read');
    assert.ok(reads.length >= 1 && reads.every((s) => s.status.code === 2), 'the failed read is ended as an error');
  });
});

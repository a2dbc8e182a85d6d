// What telemetry costs (issue 24 part 4, docs/reference/observability.md): a ContextMemory turn (load and
// afterTurn, a rewrite, 64 users in rotation) and a rememberFact call, side by side in one process
// without a telemetry, with a counting-only one (`createTelemetry()`) and with the OpenTelemetry
// SDK recording every span (BasicTracerProvider, a SimpleSpanProcessor into a span exporter that
// drops what it is given, AsyncLocalStorageContextManager — what a Node service runs, minus the
// network). Runs last in `make bench`: the first createTelemetry({ api }) installs the
// process-wide host-call hook.
import { createRequire } from 'node:module';
import { ContextMemory, createMemoryTools, InMemoryEntryStore } from 'memcore';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import { createTelemetry } from 'memcore/telemetry';
import { compareAsync, fmtTime } from './harness.mjs';

const require = createRequire(import.meta.url);
const USERS = 64;
const H = ['Identity', 'Communication Preferences', 'Work Context', 'Skills & Expertise', 'Recent Topics', 'Follow-ups'];
const body = (line) => '# User Memory\n\n' + H.map((h, i) => `## ${h}\n${i === 0 ? line : '_(empty)_'}`).join('\n\n') + '\n';
const NOW = () => '2026-11-29T10:00:00Z';

function otelApi() {
  const api = require('@opentelemetry/api');
  const { BasicTracerProvider, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');
  const { MeterProvider } = require('@opentelemetry/sdk-metrics');
  const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks');
  const dropping = { export: (spans, done) => done({ code: 0 }), shutdown: async () => {} };
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(dropping)] }));
  api.metrics.setGlobalMeterProvider(new MeterProvider());
  return api;
}

function turn(telemetry) {
  const files = {};
  for (let i = 0; i < USERS; i++) files[`user-memory/u${i}/memory.md`] = `---\nuser_id: u${i}\nschema_version: 1\nlast_updated: 2026-01-01T00:00:00+00:00\nturn_count: 4\n---\n\n${body(`- Ana, user ${i}`)}`;
  let n = 0;
  const model = { complete: async (r) => (r.purpose === 'gate' ? { text: 'UPDATE' } : { text: body(`- Ana, rewrite ${n}`) }) };
  const memory = new ContextMemory({ storage: new InMemoryProfileStorage({ files }), model, now: NOW, ...(telemetry ? { telemetry } : {}) });
  return async () => {
    const userId = `u${n++ % USERS}`;
    await memory.load({ userId, enabled: true });
    return memory.afterTurn({ userId, enabled: true, userMessage: 'I moved', assistantMessage: 'Noted' });
  };
}

function tool(telemetry) {
  let n = 0;
  const tools = createMemoryTools({ store: new InMemoryEntryStore(), userId: 'u1', agentId: 'a', config: { guardrails: { maxWritesPerTurn: 1_000_000 } }, now: NOW, newId: () => `id-${n}`, ...(telemetry ? { telemetry } : {}) });
  return () => tools.call('rememberFact', { key: `fact_${n++ % 64}`, value: `value ${n}`, category: 'fact' });
}

/** Rows: per operation, the time without telemetry, counting only, with the OTel SDK, and the ratios. */
export async function telemetryRows() {
  const counting = createTelemetry();
  const traced = createTelemetry({ api: otelApi() });
  const rows = [];
  for (const [name, make] of [['ContextMemory load + afterTurn (rewrite)', turn], ['rememberFact (InMemoryEntryStore)', tool]]) {
    const [none, count, otel] = await compareAsync([{ fn: make(null) }, { fn: make(counting) }, { fn: make(traced) }], { rounds: 5, ms: 300 });
    rows.push([name, fmtTime(none), fmtTime(count), fmtTime(otel), `${(count / none).toFixed(2)}×`, `${(otel / none).toFixed(2)}×`]);
  }
  return rows;
}

export const TELEMETRY_HEADER = ['per call', 'no telemetry', 'createTelemetry() (counting)', 'OTel SDK, every span', 'counting / none', 'OTel / none'];

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await telemetryRows()) console.log(row.join('  '));
}

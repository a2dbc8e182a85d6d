// Dream: one run (planning + apply) for one user with 10,000 entries in 50 groups, with an
// instant model (so what is measured is memcore's work), over the bundled InMemoryEntryStore and
// over a JS host store; the wasm memory the first run needed; model calls and prompt framing
// tokens per group.
import { countTokens, dream, InMemoryEntryStore } from 'memcore';
import { fmtTime } from './harness.mjs';

const NOW = '2026-11-29T03:00:00Z';
const GROUPS = 50;
const CONFIG = { dream: { enabled: true, pruneStaleAfterDays: 90, detectContradictions: true, summarizeInteractions: true, summarizeMinEntries: 5, summarizeTargetEntries: 2 } };
const PRICE = { inputPerMTok: 0.15, outputPerMTok: 0.6 };

/** 10,000 entries of agent-a for user u1, 200 in each of 50 categories, updated within 60 days. */
export function dreamEntries(n = 10_000) {
  const entries = [];
  for (let i = 0; i < n; i++) {
    const t = new Date(Date.parse(NOW) - ((i * 7919) % (60 * 86_400)) * 1000).toISOString();
    entries.push({
      id: `e${String(i).padStart(5, '0')}`, userId: 'u1', key: `topic_${i % GROUPS}_${i}`, value: `note ${i} about topic ${i % GROUPS}`,
      category: `cat-${String(i % GROUPS).padStart(2, '0')}`, visibility: i % 4 === 0 ? 'global' : 'self', sourceAgentId: 'agent-a',
      groupIds: [], sourceConversationId: 'conv-1', conflicted: false, accessCount: 0, createdAt: t, updatedAt: t,
    });
  }
  return entries;
}

/** An instant model: two new entries per group; records the requests. */
function instantModel() {
  const requests = [];
  return {
    requests,
    complete: (request) => {
      requests.push(request);
      const n = requests.length;
      return { text: JSON.stringify([{ key: `summary_${n}_a`, value: `merged ${n} a` }, { key: `summary_${n}_b`, value: `merged ${n} b` }]), usage: { inputTokens: 2000, outputTokens: 40 } };
    },
  };
}

function jsHostStore(entries) {
  const map = new Map(entries.map((e) => [e.id, e]));
  return {
    list: (u) => [...map.values()].filter((e) => e.userId === u),
    get: (id) => map.get(id) ?? null,
    upsert: (e) => void map.set(e.id, e),
    delete: (id) => map.delete(id),
    incrementAccess: () => {},
  };
}

async function timeRuns(makeStore, runs) {
  const times = [];
  let report;
  let model;
  let grown = 0;
  for (let r = 0; r < runs; r++) {
    const store = makeStore();
    model = instantModel();
    const before = process.memoryUsage().external;
    const t0 = performance.now();
    report = await dream({ store, model, userId: 'u1', agentId: 'agent-a', config: CONFIG, now: NOW, price: PRICE, newId: (() => { let i = 0; return () => `n${++i}`; })() });
    times.push((performance.now() - t0) * 1000);
    if (r === 0) grown = process.memoryUsage().external - before;
  }
  times.sort((a, b) => a - b);
  return { us: times[Math.floor(times.length / 2)], report, model, grown };
}

export async function dreamRows() {
  const entries = dreamEntries();
  const native = await timeRuns(() => {
    const store = new InMemoryEntryStore();
    for (const e of entries) store.upsert(e);
    return store;
  }, 9);
  const host = await timeRuns(() => jsHostStore(entries.map((e) => ({ ...e }))), 9);
  const { report, model } = native;
  if (report.summarized !== 10_000 - GROUPS * 2 || report.calls !== GROUPS || report.groupsSkipped.length) {
    throw new Error(`dream bench: unexpected report ${JSON.stringify(report).slice(0, 300)}`);
  }
  const inner = (r) => r.user.split('<memories>\n')[1].split('\n</memories>')[0];
  const framing = model.requests.map((r) => countTokens(r.system) + countTokens(r.user) - countTokens(inner(r)));
  const entryTokens = model.requests.map((r) => countTokens(inner(r)));
  const mib = (n) => `${(n / 1048576).toFixed(1)} MiB`;
  return [
    ['one run, 10,000 entries in 50 groups (plan + 50 calls + 100 inserts + 10,000 deletes), InMemoryEntryStore', fmtTime(native.us), 'instant model'],
    ['the same over a JS host store (every list and write crosses the boundary)', fmtTime(host.us), 'instant model'],
    ['wasm memory grown by the first run (InMemoryEntryStore already filled)', mib(native.grown), `JS host store: ${mib(host.grown)}`],
    ['model calls per group', String(report.calls / GROUPS), `${report.calls} calls, $${report.estimatedCostUsd.toFixed(4)} at $0.15/$0.60 per MTok`],
    ['prompt framing per group (o200k tokens, excluding the entries)', `${Math.min(...framing)}–${Math.max(...framing)}`, 'target ≤ 250'],
    ['entries in a prompt (o200k tokens, 200 entries)', `${Math.round(entryTokens.reduce((a, b) => a + b, 0) / entryTokens.length)}`, '—'],
  ];
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const { printTable } = await import('./harness.mjs');
  printTable(['Dream', 'time / value', 'reference'], await dreamRows());
}

// The shared Dream vectors (tests/vectors/dream/*.json) replayed through the installed package
// against any entry store: dream.test.mjs runs them over InMemoryEntryStore and a counting, failing
// JS host store, sql-stores.test.mjs over every SQL adapter. The model is the only fake.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as m from 'memcore';

const dir = new URL('../vectors/dream/', import.meta.url);
/** Every Dream vector file, sorted: [name, document]. */
export const dreamFiles = readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => [f, JSON.parse(readFileSync(new URL(f, dir), 'utf8'))]);

function merged(base, patch) {
  if (base && patch && typeof base === 'object' && typeof patch === 'object' && !Array.isArray(base) && !Array.isArray(patch)) {
    const out = { ...base };
    for (const [k, v] of Object.entries(patch)) out[k] = k in out ? merged(out[k], v) : v;
    return out;
  }
  return patch;
}

/** The case's entries: `make` expanded, `entries` merged over defaults.entry. */
export function caseEntries(c, defaults) {
  const out = [];
  for (const spec of c.make ?? []) {
    const { count, idPrefix = 'id-', keyPrefix = 'key-', valuePrefix = 'value-', ...fields } = spec;
    for (let i = 0; i < count; i++) out.push(merged(defaults.entry, { ...fields, id: `${idPrefix}${i}`, key: `${keyPrefix}${i}`, value: `${valuePrefix}${i}` }));
  }
  for (const partial of c.entries ?? []) out.push(merged(defaults.entry, partial));
  return out;
}

/** A plain JS entry store: counts every call; `fails[op]` is 'all' or the 1-based calls that throw. */
export class JsStore {
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

/**
 * Replay one Dream case over `store` (already holding `caseEntries`). `ops(op)` (optional) counts
 * the calls of a store operation, checked against `expect.ops`; `clearFails()` stops injected
 * failures before the final state is read.
 */
export async function replayDreamCase(file, c, defaults, { label, store, ops, clearFails }) {
  const name = `${file}: ${c.name} [${label}]`;
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
  if (ops) {
    for (const [op, count] of Object.entries(expect.ops ?? {})) assert.equal(ops(op), count, `${name}: ${op} calls ${JSON.stringify(store.ops)}`);
  }
  clearFails?.();
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


// The hostile probe's defects in the core and its boundary (issue 19, point 4), each through the
// installed package: parseProfile linear for every line end (work counted, not timed); lone
// surrogates inside structured values become U+FFFD at every boundary; a `version: NaN` is
// E_HOST; ready() on a revoked proxy; look-alike `_gdpr_` keys on every path that checks keys;
// two processes taking turns on one profile with the default retries; a model answer far over
// its output budget; Dream's report of an original a failed delete kept; model error texts
// redacted in reports. (The adapters' and the CLI's defects: probe-adapters.test.mjs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as m from 'memcore';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import { startServer, as } from './fixtures/server-support.mjs';
import { body as fullBody } from './fixtures/turn-model.mjs';

const NOW = '2026-12-01T10:00:00Z';
const PATH = 'user-memory/u1/memory.md';
const STORED = `---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-06-01T00:00:00+00:00\nturn_count: 4\n---\n\n${fullBody('- Ana, analyst')}`;
const isCode = (code) => (e) => e instanceof m.MemcoreError && e.code === code;
const turn = { userId: 'u1', enabled: true, userMessage: 'I moved to Oslo.', assistantMessage: 'Nice!' };
let ids = 0;
const newId = () => `id-${++ids}`;

// ── parseProfile: linear for \n, \r\n, \r and mixed ─────────────────────────────────────────────

/** A profile of about `bytes` whose lines end in `end` ('mixed': each style in turn). */
function profileText(bytes, end) {
  const ends = end === 'mixed' ? ['\n', '\r\n', '\r'] : [end];
  const parts = ['---', 'user_id: u1', 'turn_count: 3', '---', '', '# User Memory', '', '## Identity'];
  let text = '';
  let i = 0;
  for (const p of parts) text += p + ends[i++ % ends.length];
  while (text.length < bytes) text += `- fact number ${i} about the user's work${ends[i++ % ends.length]}`;
  return text;
}

/**
 * The characters the string searches of one call examine: `indexOf` reads from its start to what
 * it finds (or the end), `split` reads its whole string. Counted by wrapping them for the call —
 * the work of the JS transport, whatever the machine's speed.
 */
function scanned(run) {
  const { indexOf, split } = String.prototype;
  let units = 0;
  String.prototype.indexOf = function (search, from = 0) {
    const at = indexOf.call(this, search, from);
    units += (at === -1 ? this.length : at + 1) - Math.max(0, Math.min(from, this.length));
    return at;
  };
  String.prototype.split = function (...args) {
    units += this.length;
    return split.apply(this, args);
  };
  try {
    return { result: run(), units };
  } finally {
    String.prototype.indexOf = indexOf;
    String.prototype.split = split;
  }
}

test('parseProfile examines each character a bounded number of times for every line end, at 256 KiB, 1 MiB and 4 MiB', () => {
  for (const end of ['\n', '\r\n', '\r', 'mixed']) {
    for (const size of [256 * 1024, 1024 * 1024, 4 * 1024 * 1024]) {
      const text = profileText(size, end);
      const { result, units } = scanned(() => m.parseProfile(text));
      const lines = result.sections[0].lines.length;
      assert.ok(lines > size / 60, `${JSON.stringify(end)} ${size}: ${lines} lines`);
      assert.ok(units <= 2 * text.length, `${JSON.stringify(end)} at ${size}: ${units} characters examined for ${text.length}`);
      assert.equal(result.sections[0].lines[1], "- fact number 9 about the user's work");
    }
  }
});

// ── Lone surrogates: U+FFFD at every boundary ───────────────────────────────────────────────────

test('a lone surrogate inside any structured value becomes U+FFFD: entry values and keys, tool args, host answers, REST and MCP bodies, input.userId', async () => {
  const lone = '\ud800';
  // Tool arguments, entry value and key (the core's JSON decoder).
  const store = new m.InMemoryEntryStore();
  const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'a', now: () => NOW, newId });
  assert.equal(await tools.call('rememberFact', { key: `pet${lone}`, value: `Rex ${lone}`, category: 'fact' }), '✅ Remembered: pet\ufffd = Rex \ufffd [fact, self]');
  assert.equal(await tools.call('rememberFact', JSON.stringify({ key: 'food', value: `kib${'\udc00'}ble` })), '✅ Remembered: food = kib\ufffdble [fact, self]');
  // A host store holding such an entry: every tool call of the user still works.
  const host = {
    entries: [{ id: 'e1', userId: 'u1', key: `k${lone}`, value: { nested: [`v${'\udfff'}`] }, category: 'fact', visibility: 'global', groupIds: [], createdAt: NOW, updatedAt: NOW }],
    list() { return this.entries; },
    get(id) { return this.entries.find((e) => e.id === id) ?? null; },
    upsert(e) { this.entries = [...this.entries.filter((x) => x.id !== e.id), e]; },
    delete(id) { const n = this.entries.length; this.entries = this.entries.filter((e) => e.id !== id); return n !== this.entries.length; },
    incrementAccess() {},
  };
  const hostTools = m.createMemoryTools({ store: host, userId: 'u1', agentId: 'a', now: () => NOW, newId });
  assert.equal(await hostTools.call('recallMemories', {}), '• k\ufffd = {"nested":["v\ufffd"]} [fact, global]');
  assert.equal(await hostTools.call('searchMemory', { query: 'k' }), '• k\ufffd = {"nested":["v\ufffd"]} [fact, global]');
  assert.match(await hostTools.call('rememberFact', { key: 'x', value: 'y' }), /^✅ Remembered: x = y/);
  // A host answer: a profile text with a lone surrogate.
  const storage = new InMemoryProfileStorage({ files: { [PATH]: STORED.replace('Ana', `Ana${lone}`) } });
  const memory = new m.ContextMemory({ storage, entries: new m.InMemoryEntryStore(), model: async () => 'NOOP', now: () => NOW });
  const loaded = await memory.load({ userId: 'u1', enabled: true });
  assert.equal(loaded.outcome, 'loaded');
  assert.match(loaded.systemPromptSection, /- Ana\ufffd, analyst/);
  // input.userId: the id the core sees is the one JS's encoder gives a string argument.
  const odd = await memory.afterTurn({ userId: `u${lone}`, enabled: true, userMessage: '', assistantMessage: '' });
  assert.deepEqual([odd.outcome, odd.reason], ['unchanged', 'blank-turn']);
  // REST and MCP bodies, as a client sends them (JSON with the \ud800 escape).
  const s = await startServer();
  try {
    const r = await fetch(`${s.base}/usermemorystore/memories`, { method: 'PUT', headers: { ...as('u1'), 'content-type': 'application/json' }, body: '{"userId":"u1","key":"city\\ud800","value":"Lis\\udc00bon","visibility":"global"}' });
    assert.equal(r.status, 201);
    const { entry } = await r.json();
    assert.deepEqual([entry.key, entry.value], ['city\ufffd', 'Lis\ufffdbon']);
    const listed = await fetch(`${s.base}/usermemorystore/memories/u1`, { headers: as('u1') }).then((x) => x.json());
    assert.equal(listed.entries.length, 1);
  } finally {
    await s.close();
  }
});

// ── storage.read answering version NaN ──────────────────────────────────────────────────────────

test('storage.read or write answering version NaN or Infinity is E_HOST, never "unversioned"', async () => {
  for (const version of [NaN, Infinity, -Infinity]) {
    const writes = [];
    const storage = {
      read: () => ({ text: STORED, version }),
      write: (path, text, options) => writes.push(options),
      remove() {},
    };
    const memory = new m.ContextMemory({ storage, entries: new m.InMemoryEntryStore(), model: async (r) => (r.purpose === 'gate' ? 'UPDATE' : fullBody('- Ana, analyst in Oslo')), now: () => NOW });
    const loaded = await memory.load({ userId: 'u1', enabled: true });
    assert.equal(loaded.outcome, 'no-memory', String(version));
    assert.match(loaded.reason, /E_HOST: storage\.read returned a value that cannot be read as JSON: it holds `version: (NaN|-?Infinity)`/);
    const report = await memory.afterTurn(turn);
    assert.equal(report.outcome, 'no-memory', String(version));
    assert.deepEqual(writes, [], 'no unconditional write');
  }
  const storage = new InMemoryProfileStorage({ files: { [PATH]: STORED } });
  const nanWrite = { read: (p) => storage.read(p), write: () => ({ version: NaN }), remove() {} };
  const memory = new m.ContextMemory({ storage: nanWrite, entries: new m.InMemoryEntryStore(), model: async (r) => (r.purpose === 'gate' ? 'UPDATE' : fullBody('- Ana, analyst in Oslo')), now: () => NOW });
  const report = await memory.afterTurn(turn);
  assert.equal(report.outcome, 'write-failed');
  assert.match(report.reason, /version: NaN/);
});

// ── ready(revokedProxy) ─────────────────────────────────────────────────────────────────────────

test('ready() on a revoked proxy, a hostile array or a bad name rejects with a MemcoreError, and the next call works', async () => {
  const { proxy, revoke } = Proxy.revocable([], {});
  revoke();
  await assert.rejects(m.ready(proxy), isCode('E_ARGUMENT'));
  const hostile = new Proxy(['o200k_base'], { get(target, name) { if (name === '0') throw new Error('boom'); return Reflect.get(target, name); } });
  await assert.rejects(m.ready(hostile), isCode('E_ARGUMENT'));
  await assert.rejects(m.ready(42), isCode('E_ARGUMENT'));
  await assert.rejects(m.ready('p50k_base'), (e) => e instanceof m.MemcoreError);
  await m.ready();
  assert.equal(m.countTokens('hello world'), 2);
});

// ── Look-alike reserved keys ────────────────────────────────────────────────────────────────────

const LOOK_ALIKES = [
  '_GDPR_processing_restricted',
  '_Gdpr_x',
  '\uff3fgdpr\uff3fx', // fullwidth low lines
  '_\uff47\uff44\uff50\uff52_x', // fullwidth letters
  '\u200b_gdpr_x', // zero-width space first
  '\ufeff_gdpr_x', // BOM first
  '_gd\u00adpr_x', // soft hyphen inside
  '_\u{1d420}dpr_x', // mathematical bold g
  '_\u24d6\u24d3\u24df\u24e1_x', // circled letters
];

test('look-alike _gdpr_ keys are refused on every path that checks keys; similar ordinary keys are not', async () => {
  const store = new m.InMemoryEntryStore();
  const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'a', now: () => NOW, newId });
  for (const key of LOOK_ALIKES) {
    const label = JSON.stringify(key);
    tools.newTurn();
    assert.equal(await tools.call('rememberFact', { key, value: 'v' }), "⚠️ Keys starting with '_gdpr_' are reserved.", label);
    assert.equal(await tools.call('forgetFact', { key }), "⚠️ Keys starting with '_gdpr_' are reserved.", label);
    const v = m.validateMemoryWrite({ userId: 'u1', key, value: 'v', visibility: 'global' });
    assert.deepEqual(v.map((x) => x.field), ['key'], label);
    const up = await m.upsertUserMemory(store, { userId: 'u1', key, value: 'v', visibility: 'global' }, { now: () => NOW, newId });
    assert.equal(up.outcome, 'invalid', label);
    const persisted = await m.persistLongTermProperties(store, [{ name: key, value: 'v' }], { userId: 'u1', agentId: 'a', now: () => NOW, newId });
    assert.equal(persisted.refused.length, 1, label);
    await assert.rejects(m.mergeProperties(store, 'u1', { [key]: 'v' }, { now: () => NOW, newId }), isCode('E_ARGUMENT'), label);
    assert.equal(await m.getMemoryByKey(store, 'u1', key), null, label);
    const plan = m.planPropertiesMigration([{ _id: 'd', userId: 'u1', [key]: 'v' }], {});
    assert.deepEqual(plan.inserts, [], label);
  }
  assert.equal(store.size, 0);
  for (const key of ['gdpr_notes', '_gdpr', 'my_gdpr_request', '_ gdpr_x']) {
    tools.newTurn();
    assert.match(await tools.call('rememberFact', { key, value: 'v' }), /^✅ Remembered/, key);
  }
  // Dream never writes one from a model's answer either.
  const dreamStore = new m.InMemoryEntryStore();
  for (let i = 0; i < 5; i++) dreamStore.upsert({ id: `e${i}`, userId: 'u1', key: `k${i}`, value: `fact ${i}`, category: 'fact', visibility: 'self', sourceAgentId: 'a', groupIds: [], createdAt: NOW, updatedAt: NOW });
  const answer = JSON.stringify([{ key: LOOK_ALIKES[2], value: 'all five' }, { key: 'summary', value: 'five facts' }]);
  const report = await m.dream({ store: dreamStore, model: async () => answer, userId: 'u1', agentId: 'a', now: NOW, newId, config: { dream: { enabled: true, summarizeInteractions: true, pruneStaleAfterDays: 0 } } });
  assert.equal(report.summarized, 4);
  assert.deepEqual((await dreamStore.list('u1')).map((e) => e.key), ['summary']);
});

// ── Two processes taking turns on one profile ───────────────────────────────────────────────────

test('2 processes × 12 turns of one user, one after the other, with the default retries and backoff: no turn gives up', async (t) => {
  const child = fileURLToPath(new URL('./fixtures/contention-child.mjs', import.meta.url));
  const retries = [];
  for (let round = 0; round < 3; round++) {
    const base = mkdtempSync(join(tmpdir(), 'memcore-contention-'));
    t.after(() => rmSync(base, { recursive: true, force: true }));
    mkdirSync(join(base, 'user-memory', 'u1'), { recursive: true });
    writeFileSync(join(base, PATH), STORED);
    const children = [0, 1].map((worker) => {
      const p = spawn(process.execPath, [child, base, String(worker), '12'], { stdio: ['pipe', 'pipe', 'inherit'] });
      let out = '';
      p.stdout.on('data', (d) => (out += d));
      return { p, done: new Promise((resolve) => p.on('exit', (code) => resolve({ code, out }))) };
    });
    for (const { p } of children) p.stdin.write('go\n');
    const reports = (await Promise.all(children.map((c) => c.done))).flatMap(({ code, out }) => {
      assert.equal(code, 0);
      return JSON.parse(out.trim());
    });
    assert.deepEqual(reports.filter((r) => r.outcome !== 'updated'), [], `round ${round}`);
    assert.equal((readFileSync(join(base, PATH), 'utf8').match(/^- fact-/gm) ?? []).length, 24);
    retries.push(reports.reduce((n, r) => n + r.attempts - 1, 0));
  }
  console.log(`# two processes × 12 turns, the defaults: re-consolidations per round ${retries.join(', ')}`);
});

// ── A model answer far over its output budget ───────────────────────────────────────────────────

test('a consolidation answer over twice maxOutputTokens is invalid-output and the old profile is kept (a 5 MB answer)', async () => {
  const storage = new InMemoryProfileStorage({ files: { [PATH]: STORED } });
  const huge = fullBody(Array.from({ length: 120_000 }, (_, i) => `- fact ${i} about the user`).join('\n'));
  assert.ok(huge.length > 3_000_000);
  let budget;
  const memory = new m.ContextMemory({ storage, entries: new m.InMemoryEntryStore(), model: async (r) => { if (r.purpose === 'consolidate') budget = r.maxOutputTokens; return r.purpose === 'gate' ? 'UPDATE' : huge; }, now: () => NOW });
  const report = await memory.afterTurn(turn);
  assert.equal(budget, 2200);
  assert.equal(report.outcome, 'invalid-output');
  assert.equal(report.reason, 'the answer is over twice its output budget (4400 tokens, from maxOutputTokens 2200); the profile was kept');
  assert.equal((await storage.read(PATH)).text, STORED);
  // Just over twice: refused; within it: written (and fitted).
  const lines = (n) => fullBody(Array.from({ length: n }, (_, i) => `- fact ${i} about the user`).join('\n'));
  const over = lines(800);
  const within = lines(300);
  assert.ok(m.countTokens(over) > 4400 && m.countTokens(within) < 4400 && m.countTokens(within) > 2000);
  const again = (text) => new m.ContextMemory({ storage: new InMemoryProfileStorage({ files: { [PATH]: STORED } }), entries: new m.InMemoryEntryStore(), model: async (r) => (r.purpose === 'gate' ? 'UPDATE' : text), now: () => NOW }).afterTurn(turn);
  assert.equal((await again(over)).outcome, 'invalid-output');
  assert.equal((await again(within)).outcome, 'updated');
});

// ── Dream: an original a failed delete kept ─────────────────────────────────────────────────────

test('Dream: when a delete fails after the summary was inserted, the report names the original that stayed and why', async () => {
  const entries = Array.from({ length: 5 }, (_, i) => ({ id: `e${i}`, userId: 'u1', key: `k${i}`, value: `fact ${i}`, category: 'fact', visibility: 'self', sourceAgentId: 'a', groupIds: [], createdAt: NOW, updatedAt: NOW }));
  const store = {
    entries: [...entries],
    list() { return this.entries; },
    get(id) { return this.entries.find((e) => e.id === id) ?? null; },
    upsert(e) { this.entries = [...this.entries.filter((x) => x.id !== e.id), e]; },
    delete(id) {
      if (id === 'e2') throw new Error(`row locked (token=${'Zq8vT2mPw9LkR4sY7bXc'})`);
      const n = this.entries.length;
      this.entries = this.entries.filter((e) => e.id !== id);
      return n !== this.entries.length;
    },
    incrementAccess() {},
  };
  const report = await m.dream({ store, model: async () => JSON.stringify([{ key: 'summary', value: 'five facts' }]), userId: 'u1', agentId: 'a', now: NOW, newId: () => 'd1', config: { dream: { enabled: true, summarizeInteractions: true, pruneStaleAfterDays: 0 } } });
  assert.equal(report.summarized, 3);
  assert.deepEqual(report.originalsKept, [{ group: 'fact', entryId: 'e2', code: 'E_HOST', message: 'row locked (token=[REDACTED])' }]);
  assert.deepEqual(store.entries.map((e) => e.id).sort(), ['d1', 'e2']);
});

// ── Model error texts in reports ────────────────────────────────────────────────────────────────

test("the model's error text is redacted in the turn report (reason, gateError) and in logs", async () => {
  const secret = ['sk', '-proj-', 'Zq8vT2mPw9LkR4sY7bXcQ1wE'].join('');
  const logs = [];
  const storage = new InMemoryProfileStorage({ files: { [PATH]: STORED } });
  const memory = new m.ContextMemory({
    storage, entries: new m.InMemoryEntryStore(), now: () => NOW, log: (e) => logs.push(e),
    model: async () => { throw new Error(`401 from https://gw.example/v1?api_key=${secret.slice(3)}: invalid key ${secret}`); },
  });
  const report = await memory.afterTurn(turn);
  assert.equal(report.outcome, 'model-failed');
  assert.match(report.reason, /^model call failed: E_HOST: 401 from https:\/\/gw\.example\/v1\?api_key=\[REDACTED\].* invalid key \[REDACTED\]$/);
  assert.match(report.gateError, /\[REDACTED\]/);
  const all = JSON.stringify([report, logs]);
  assert.ok(!all.includes(secret) && !all.includes(secret.slice(3)), 'the key is in a report or a log event');
});

test("a store's error text is redacted in tool answers and REST error answers", async () => {
  const secret = ['sk', '-proj-', 'Zq8vT2mPw9LkR4sY7bXcQ1wE'].join('');
  const failing = {
    list() { throw new Error(`duplicate row (value)=(key ${secret})`); },
    get() { return null; }, upsert() {}, delete() { return false; }, incrementAccess() {},
  };
  const tools = m.createMemoryTools({ store: failing, userId: 'u1', agentId: 'a', now: () => NOW, newId });
  const answer = await tools.call('recallMemories', {});
  assert.equal(answer, '❌ Failed to recall memory: duplicate row (value)=(key [REDACTED])');
  const s = await startServer({ entries: failing });
  try {
    const r = await fetch(`${s.base}/usermemorystore/memories/u1`, { headers: as('u1') });
    const text = await r.text();
    assert.equal(r.status, 500);
    assert.ok(!text.includes(secret) && text.includes('[REDACTED]'), text);
  } finally {
    await s.close();
  }
});

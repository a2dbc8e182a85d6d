// The profile-only core (memcore/memcore-profile.wasm) through memcore/slim, in a process of its
// own (node --test runs each file in its own process, and a process has one core): the same
// glue as the full core drives it. Profile memory, the turn and tokens answer exactly what the
// full core answers — the shared vectors the Rust tests replay — and everything the module
// leaves out answers E_CONFIG naming the export, without marking the instance as failed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { runInNewContext } from 'node:vm';
import { gzipSync } from 'node:zlib';
import * as m from 'memcore/slim';
import { forceTrap, instance } from 'memcore/testing';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import { vectors } from './vectors.mjs';

const require = createRequire(import.meta.url);
const profileCore = readFileSync(require.resolve('memcore/memcore-profile.wasm'));
const fullCore = readFileSync(require.resolve('memcore/memcore.wasm'));
// Compiled in another realm, as Next.js's edge sandbox hands a module over: `instanceof` would
// refuse it, the brand check takes it.
const foreignModule = runInNewContext('new WebAssembly.Module(bytes)', { bytes: profileCore });
assert.equal(foreignModule instanceof WebAssembly.Module, false);
m.initSync(foreignModule);
m.loadTokenizer(readFileSync(require.resolve('memcore/tokenizer/o200k_base.bin')));

const isConfig = (name) => (e) => e instanceof m.MemcoreError && e.code === 'E_CONFIG' && e.details?.export === name && e.details?.core === 'profile';

test('the profile-only core is the smaller module, under the 350 KiB gzip target', () => {
  const kib = (bytes) => gzipSync(bytes, { level: 9 }).length / 1024;
  assert.ok(kib(profileCore) <= 350, `memcore-profile.wasm is ${kib(profileCore).toFixed(1)} KiB gzip`);
  assert.ok(kib(profileCore) < kib(fullCore) - 150, `${kib(profileCore).toFixed(1)} vs ${kib(fullCore).toFixed(1)} KiB`);
  const exported = (bytes) => new Set(WebAssembly.Module.exports(new WebAssembly.Module(bytes)).map((e) => e.name));
  const full = exported(fullCore);
  const profile = exported(profileCore);
  // A subset: nothing of its own, so the full core's glue has every function it calls.
  assert.deepEqual([...profile].filter((name) => !full.has(name)), []);
  assert.ok(profile.has('parseProfile') && profile.has('contextMemoryAfterTurn') && !profile.has('upsertUserMemory'));
});

test('profile format vectors answer as in the full core', () => {
  for (const c of vectors('profile/parse.json')) {
    const parsed = m.parseProfile(c.input);
    assert.equal(m.renderProfile(parsed), c.rendered, c.name);
    assert.deepEqual(parsed.diagnostics.map((d) => ({ code: d.code, line: d.line, severity: d.severity })), c.diagnostics, c.name);
    assert.equal(m.profileBody(c.input), c.body, c.name);
  }
  for (const c of vectors('profile/normalise.json')) {
    assert.equal(m.normaliseModelBody(c.input), c.normalised, c.name);
    assert.equal(m.isWellFormedBody(c.input), c.wellFormed, c.name);
  }
  for (const c of vectors('profile/inject.json')) assert.equal(m.memorySystemPromptSection(c.input), c.section, c.name);
  for (const c of vectors('profile/enablement.json')) assert.equal(m.resolveEnablement(c.inputs).enabled, c.enabled, c.name);
});

test('exact token counts on the shared corpus (o200k_base, loaded from its bytes)', () => {
  const corpus = vectors('tokens/corpus.json');
  const mismatches = corpus.cases.filter((c) => m.countTokens(c.text) !== c.o200k_base.count);
  assert.deepEqual(mismatches.map((c) => c.text.slice(0, 40)), []);
  assert.equal(corpus.cases.length >= 1000, true);
});

test('fitting: the fit vectors with a given counter, and the hard cut with the table', async () => {
  // As tests/js/fit.test.mjs: o200k is the loaded table (no counter given).
  const COUNTERS = {
    o200k: undefined,
    chars: (t) => [...t].length,
    words: (t) => t.split(/[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u).filter(Boolean).length,
  };
  for (const c of vectors('fit/fit.json')) {
    const r = await m.fitProfile(c.input, { maxTokens: c.maxTokens, countTokens: COUNTERS[c.counter] });
    for (const [key, value] of Object.entries(c.expected)) assert.deepEqual(r[key], value, `${c.name}: ${key}`);
  }
  const long = '- a fact about the user\n'.repeat(400);
  const cut = m.enforceTokenCap(long, 100).text;
  assert.ok(m.countTokens(cut) <= 100);
  assert.ok(cut.endsWith(m.TRUNCATION_MARKER));
});

test('a ContextMemory turn: load, then afterTurn rewrites the stored profile', async () => {
  const path = 'user-memory/u1/memory.md';
  const sections = ['Identity', 'Communication Preferences', 'Work Context', 'Skills & Expertise', 'Recent Topics', 'Follow-ups'];
  const body = (identity) => '# User Memory\n\n' + sections.map((h, i) => `## ${h}\n${i === 0 ? identity : '_(empty)_'}`).join('\n\n') + '\n';
  const stored = `---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-01-01T00:00:00+00:00\nturn_count: 4\n---\n\n${body('- Ana, analyst')}`;
  const storage = new InMemoryProfileStorage({ files: { [path]: stored } });
  const answers = { gate: 'UPDATE', consolidate: body('- Ana, analyst in Porto') };
  const model = { complete: async (request) => ({ text: answers[request.purpose], usage: { inputTokens: 10, outputTokens: 2 } }) };
  const memory = new m.ContextMemory({ storage, model, now: () => '2026-11-29T10:00:00Z' });
  const loaded = await memory.load({ userId: 'u1', enabled: true });
  assert.match(loaded.systemPromptSection, /- Ana, analyst\n/);
  const report = await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'I moved to Porto.', assistantMessage: 'Nice!' });
  assert.equal(report.outcome, 'updated');
  const text = (await storage.read(path)).text;
  assert.ok(text.startsWith('---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-11-29T10:00:00+00:00\nturn_count: 5\n---\n'), text);
  assert.match(text, /- Ana, analyst in Porto/);
  // The data subject's copy and erasure of a profile-only host (the rights functions are left out).
  const view = await memory.getMyContextMemory('u1');
  assert.equal(view.exists, true);
  assert.match(view.body, /- Ana, analyst in Porto/);
  assert.equal(await memory.deleteContextMemory('u1'), true);
  assert.equal((await memory.getMyContextMemory('u1')).exists, false);
  assert.equal(await storage.read(path), null);
});

test('a ContextMemory with an entry store: relevant entries are loaded by the core (terms mode, no embedder)', async () => {
  const entries = new m.InMemoryEntryStore();
  // Written through the host interface (entry memory's operations are not in this core).
  const at = '2026-11-01T00:00:00.000Z';
  await entries.upsert({ id: 'e1', userId: 'u1', key: 'dog_name', value: 'Rex, a golden retriever', category: 'fact', visibility: 'global', createdAt: at, updatedAt: at });
  await entries.upsert({ id: 'e2', userId: 'u1', key: 'city', value: 'Porto', category: 'fact', visibility: 'global', createdAt: at, updatedAt: at });
  const storage = new InMemoryProfileStorage();
  const memory = new m.ContextMemory({ storage, entries, now: () => '2026-11-29T10:00:00Z' });
  await memory.updateMyContextMemory('u1', '## Identity\n- Ana\n');
  const loaded = await memory.load({ userId: 'u1', enabled: true, entries: { query: 'dog', maxTokens: 60, agentId: 'a1', mode: 'terms' } });
  assert.equal(loaded.outcome, 'loaded');
  assert.ok(loaded.relevant.section.startsWith('# Relevant memories\n• dog_name = Rex, a golden retriever'), loaded.relevant.section);
  assert.ok(!loaded.relevant.section.includes('city'));
  assert.ok(loaded.systemPromptSection.endsWith(`\n\n${loaded.relevant.section}`));
});

test('what the module leaves out answers E_CONFIG naming the export, and the next call works', async () => {
  const store = new m.InMemoryEntryStore();
  const request = { userId: 'u1', key: 'k', value: 'v', visibility: 'global' };
  const calls = [
    ['upsertUserMemory', () => m.upsertUserMemory(store, request)],
    ['countUserMemories', () => m.countUserMemories(store, 'u1')],
    ['searchUserMemories', () => m.searchUserMemories(store, 'u1', 'dog')],
    ['createMemoryTools', () => m.createMemoryTools({ store, userId: 'u1', agentId: 'a' })],
    ['redactSecrets', () => m.redactSecrets('sk-proj-abc')],
    ['eraseUserData', () => m.eraseUserData('u1', { entries: store })],
    ['parseUserMemoryConfig', () => m.parseUserMemoryConfig({})],
  ];
  for (const [name, call] of calls) {
    let thrown;
    try {
      await call();
    } catch (error) {
      thrown = error;
    }
    assert.ok(thrown instanceof m.MemcoreError && thrown.code === 'E_CONFIG', `${name}: ${thrown}`);
    assert.match(thrown.message, /profile-only core \(memcore\/memcore-profile\.wasm\)/, name);
    assert.equal(thrown.details.core, 'profile', name);
    assert.equal(m.countTokens('still working'), 2);
  }
  assert.throws(() => m.searchTerms('dog name'), isConfig('searchTerms'));
  assert.equal(instance().status, 'ready');
  assert.equal(instance().replaced, 0);
  // One core per process: a second init, with the full core, changes nothing (init is idempotent).
  m.initSync(fullCore);
  await m.init(fullCore);
  assert.throws(() => m.searchTerms('dog name'), isConfig('searchTerms'));
  assert.equal(instance().generation, 1);
});

test('a failed instance is replaced by a fresh one of the same module, completed the same way', () => {
  assert.throws(forceTrap, { code: 'E_INTERNAL' });
  assert.equal(m.renderProfile(m.parseProfile('## Identity\n- a\n')).includes('- a\n'), true);
  assert.equal(instance().replaced, 1);
  assert.throws(() => m.searchTerms('dog'), isConfig('searchTerms'));
  assert.equal(m.countTokens('still working'), 2);
});

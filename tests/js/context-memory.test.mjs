// ContextMemory through the package: every outcome, gate and consolidation answers, notices,
// storage failures, concurrency (16 concurrent turns, no lost update), load and Settings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContextMemory, UPDATING_NOTICE, MemcoreError, parseProfile, countTokens } from 'memcore';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import { FileSystemProfileStorage } from 'memcore/adapters/fs';
import { vectors } from './vectors.mjs';

const PATH = 'user-memory/u1/memory.md';
const NOW = () => '2026-11-29T10:00:00Z';
const H = ['Identity', 'Communication Preferences', 'Work Context', 'Skills & Expertise', 'Recent Topics', 'Follow-ups'];
const body = (identity = []) => '# User Memory\n\n' + H.map((h, i) => `## ${h}\n${i === 0 && identity.length ? identity.join('\n') : '_(empty)_'}`).join('\n\n') + '\n';
const STORED = `---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-01-01T00:00:00+00:00\nturn_count: 4\nteam: risk\n---\n\n${body(['- Ana, analyst'])}`;

/** A scripted model: `answers.gate` / `answers.consolidate` are strings, functions or Errors. */
function scripted(answers) {
  const model = {
    requests: [],
    async complete(request) {
      model.requests.push(request);
      const a = answers[request.purpose];
      const value = typeof a === 'function' ? await a(request) : a;
      if (value instanceof Error) throw value;
      return { text: value ?? 'NOOP', usage: { inputTokens: 100, outputTokens: 5 } };
    },
  };
  return model;
}

function setup(answers, { files = { [PATH]: STORED }, config, onNotice, storage } = {}) {
  const notices = [];
  const logs = [];
  const store = storage ?? new InMemoryProfileStorage({ files });
  const model = scripted(answers);
  const memory = new ContextMemory(
    { storage: store, model, now: NOW, log: (e) => logs.push(e), onNotice: onNotice ?? ((n) => notices.push(n)) },
    config,
  );
  return { memory, store, model, notices, logs };
}

const turn = { userId: 'u1', enabled: true, userMessage: 'I moved to Porto.', assistantMessage: 'Nice!' };

test('updated: the rewrite is stored with new frontmatter, the write options, and the notice shown then cleared', async () => {
  const { memory, store, notices, model } = setup({ gate: 'UPDATE', consolidate: body(['- Ana, analyst in Porto']) });
  const report = await memory.afterTurn(turn);
  assert.equal(report.outcome, 'updated');
  assert.equal(report.turnCount, 5);
  assert.deepEqual(notices, [{ kind: 'show', text: UPDATING_NOTICE }, { kind: 'clear' }]);
  assert.equal(UPDATING_NOTICE, '🧠 Updating context memory…');
  const text = (await store.read(PATH)).text;
  assert.ok(text.startsWith('---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-11-29T10:00:00+00:00\nturn_count: 5\nteam: risk\n---\n'));
  assert.match(text, /- Ana, analyst in Porto/);
  const last = store.writes.at(-1);
  assert.deepEqual({ ...last.options, ifVersion: typeof last.options.ifVersion }, { ifVersion: 'string', ifAbsent: false, contentType: 'text/markdown', skipIngestion: true, hideInChat: true });
  assert.deepEqual(model.requests.map((r) => r.purpose), ['gate', 'consolidate']);
  assert.equal(model.requests[0].maxOutputTokens, 4);
  assert.equal(model.requests[1].maxOutputTokens, 2200);
  assert.deepEqual(report.usage.gate, { inputTokens: 100, outputTokens: 5 });
});

test('gate answers: NOOP-like → gate-noop with no notice; anything else, errors included, → consolidation', async () => {
  for (const c of vectors('turn/answers.json').gate) {
    const { memory, notices, model } = setup({ gate: c.raw, consolidate: 'NOOP' });
    const report = await memory.afterTurn(turn);
    assert.equal(report.outcome, c.expect === 'noop' ? 'gate-noop' : 'model-noop', JSON.stringify(c.raw));
    assert.equal(notices.length, c.expect === 'noop' ? 0 : 2);
    assert.equal(model.requests.length, c.expect === 'noop' ? 1 : 2);
  }
  for (const failure of [new Error('model down'), Object.assign(new Error('timed out'), { name: 'TimeoutError' })]) {
    const { memory } = setup({ gate: failure, consolidate: 'NOOP' });
    const report = await memory.afterTurn(turn);
    assert.equal(report.outcome, 'model-noop', 'fails open to UPDATE');
    assert.match(report.gateError, /model down|timed out/);
  }
});

test('consolidation answers (shared vectors): noop, invalid and bodies; the store changes only for a new body', async () => {
  for (const c of vectors('turn/answers.json').consolidation) {
    const { memory, store } = setup({ gate: 'UPDATE', consolidate: c.raw });
    const report = await memory.afterTurn(turn);
    const expected = { noop: 'model-noop', invalid: 'invalid-output' }[c.expect];
    if (expected) {
      assert.equal(report.outcome, expected, JSON.stringify(c.raw).slice(0, 60));
      assert.equal(store.writes.length, 0);
    } else {
      assert.ok(['updated', 'unchanged'].includes(report.outcome), report.outcome);
      assert.equal(store.writes.length, report.outcome === 'updated' ? 1 : 0);
    }
  }
});

test('identical body → unchanged, nothing written; model error → model-failed; notices still cleared', async () => {
  const same = setup({ gate: 'UPDATE', consolidate: '```markdown\n---\nuser_id: evil\n---\n' + body(['- Ana, analyst']) + '```' });
  assert.equal((await same.memory.afterTurn(turn)).outcome, 'unchanged');
  assert.equal(same.store.writes.length, 0);
  const failing = setup({ gate: 'UPDATE', consolidate: new Error('overloaded') });
  const report = await failing.memory.afterTurn(turn);
  assert.equal(report.outcome, 'model-failed');
  assert.deepEqual(failing.notices.map((n) => n.kind), ['show', 'clear']);
});

test('a throwing or rejecting onNotice never breaks the turn, and clear is still attempted', async () => {
  for (const bad of [() => { throw new Error('ui gone'); }, async () => { throw new Error('ui gone'); }]) {
    const seen = [];
    const { memory } = setup({ gate: 'UPDATE', consolidate: body(['- Ana, in Porto']) }, { onNotice: (n) => { seen.push(n.kind); return bad(); } });
    const report = await memory.afterTurn(turn);
    assert.equal(report.outcome, 'updated');
    assert.deepEqual(seen, ['show', 'clear']);
  }
});

test('storage failures: read → no-memory, write → write-failed; the old profile stays', async () => {
  const broken = (op) => {
    const inner = new InMemoryProfileStorage({ files: { [PATH]: STORED } });
    return Object.assign(Object.create(inner), {
      read: (p) => (op === 'read' ? Promise.reject(new Error('disk on fire')) : inner.read(p)),
      write: (...a) => (op === 'write' ? Promise.reject(new Error('quota exceeded')) : inner.write(...a)),
      remove: (p) => inner.remove(p),
      ensureRoot: (r) => inner.ensureRoot(r),
      inner,
    });
  };
  const r1 = setup({ gate: 'UPDATE', consolidate: body(['- x']) }, { storage: broken('read') });
  const a = await r1.memory.afterTurn(turn);
  assert.equal(a.outcome, 'no-memory');
  assert.match(a.reason, /disk on fire/);
  const w = broken('write');
  const r2 = setup({ gate: 'UPDATE', consolidate: body(['- x']) }, { storage: w });
  const b = await r2.memory.afterTurn(turn);
  assert.equal(b.outcome, 'write-failed');
  assert.match(b.reason, /quota exceeded/);
  assert.equal((await w.inner.read(PATH)).text, STORED);
});

test('blank turn: no model call, no write; disabled: nothing at all; invalid id: no-memory', async () => {
  const { memory, model, store } = setup({ gate: 'UPDATE', consolidate: body(['- x']) });
  assert.equal((await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: '  ', assistantMessage: '\n' })).outcome, 'unchanged');
  assert.equal((await memory.afterTurn({ userId: 'u1', userMessage: 'hi', assistantMessage: 'hello' })).outcome, 'disabled');
  assert.equal((await memory.afterTurn({ ...turn, userId: '../etc' })).outcome, 'no-memory');
  assert.equal(model.requests.length, 0);
  assert.equal(store.writes.length, 0);
});

test('a rewrite that pushes the profile over budget is fitted before it is written', async () => {
  const many = Array.from({ length: 100 }, (_, i) => `- Fact number ${i} about a long project history in the bank`);
  const { memory, store } = setup({ gate: 'UPDATE', consolidate: body(many), condense: 'NOOP' }, { config: { maxTokens: 600 } });
  const report = await memory.afterTurn(turn);
  assert.equal(report.outcome, 'updated');
  assert.ok(countTokens((await store.read(PATH)).text) <= 600);
});

test('16 concurrent afterTurn calls for one user: all 16 facts present, no lost update', async () => {
  const storage = new InMemoryProfileStorage({ files: { [PATH]: STORED } });
  const model = {
    async complete(request) {
      await new Promise((r) => setTimeout(r, 1)); // really interleave
      if (request.purpose === 'gate') return 'UPDATE';
      const current = /<current_profile>\n?([\s\S]*?)\n?<\/current_profile>/.exec(request.user)?.[1] ?? '';
      const fact = /<user_message>\n?Remember fact #(\d+)/.exec(request.user)[1];
      return current.replace('## Communication Preferences', `- fact #${fact}\n\n## Communication Preferences`).replace('- Ana, analyst\n\n- fact', '- Ana, analyst\n- fact').replace(/\n\n- fact/g, '\n- fact');
    },
  };
  const memory = new ContextMemory({ storage, model, now: NOW });
  const reports = await Promise.all(Array.from({ length: 16 }, (_, i) => memory.afterTurn({ userId: 'u1', enabled: true, userMessage: `Remember fact #${i}`, assistantMessage: 'ok' })));
  assert.deepEqual([...new Set(reports.map((r) => r.outcome))], ['updated']);
  const text = (await storage.read(PATH)).text;
  for (let i = 0; i < 16; i++) assert.match(text, new RegExp(`- fact #${i}\\n`), `fact ${i}`);
  assert.equal(parseProfile(text).frontmatter.turnCount, 4 + 16);
});

test('load: fitted profile and its prompt section; no profile; disabled; storage failure', async () => {
  const { memory } = setup({});
  const loaded = await memory.load({ userId: 'u1', enabled: true });
  assert.equal(loaded.outcome, 'loaded');
  assert.match(loaded.systemPromptSection, /^# What I know about you/);
  assert.match(loaded.systemPromptSection, /- Ana, analyst/);
  assert.ok(!loaded.systemPromptSection.includes('turn_count'));
  assert.equal((await memory.load({ userId: 'nobody', enabled: true })).outcome, 'no-profile');
  assert.equal((await memory.load({ userId: 'u1', enabled: false })).outcome, 'disabled');
  assert.equal((await memory.load({ userId: 'u1' })).outcome, 'disabled');
  const failing = new ContextMemory({ storage: { read: () => { throw new Error('offline'); }, write() {}, remove() {} }, model: () => 'NOOP' });
  const r = await failing.load({ userId: 'u1', enabled: true });
  assert.equal(r.outcome, 'no-memory');
  assert.equal(r.systemPromptSection, '');
});

test('load carries any text exactly: non-ASCII, characters above U+FFFF, the wire\'s own frame character, JSON-looking lines', async () => {
  // The profile and the prompt section cross from the core as they are, after the other fields
  // (src/wasm/context_memory.rs, `load_json`): whatever they hold comes back the same.
  const lines = ['- Zoë, Ångström-Forscherin in München 🧪𝔘', '- \u0001{"profileLength":0}\u0001 and "quotes" \\ back\\slash', '- 中文 — naïve café', '- 😀'.repeat(40)];
  const more = Array.from({ length: 60 }, (_, i) => `- fact ${i}: Zoë 🧪 中文 ${'\u0001'.repeat(i % 3)}`);
  const stored = STORED.replace('- Ana, analyst', [...lines, ...more].join('\n'));
  const { memory } = setup({}, { files: { [PATH]: stored } });
  const loaded = await memory.load({ userId: 'u1', enabled: true });
  assert.deepEqual(Object.keys(loaded), ['profile', 'systemPromptSection', 'fit', 'version', 'outcome', 'reason']);
  assert.equal(loaded.outcome, 'loaded');
  assert.equal(loaded.profile, stored);
  assert.equal(loaded.fit.text, loaded.profile);
  for (const line of lines) assert.ok(loaded.systemPromptSection.includes(line), line);
  // Cut to a budget: the fitted text is the profile returned, still exact at its end.
  const small = setup({}, { files: { [PATH]: stored }, config: { maxTokens: 500 } }).memory;
  const cut = await small.load({ userId: 'u1', enabled: true });
  assert.equal(cut.outcome, 'loaded');
  assert.equal(cut.fit.truncated, true);
  assert.equal(cut.fit.text, cut.profile);
  assert.ok(cut.profile.length < stored.length);
  assert.ok(cut.systemPromptSection.length > 0);
  // No profile: null and an empty section, the same fields.
  const none = await memory.load({ userId: 'nobody', enabled: true });
  assert.deepEqual([none.profile, none.systemPromptSection, none.fit, none.outcome], [null, '', null, 'no-profile']);
});

test('Settings: get, update (1 MiB limit, frontmatter kept), delete', async () => {
  const { memory, store } = setup({}, { files: {} });
  assert.deepEqual(await memory.getMyContextMemory('u1'), { exists: false, body: '', lastUpdated: null, turnCount: null });
  assert.equal(store.writes.length, 0);
  const saved = await memory.updateMyContextMemory('u1', '## Identity\n- Ana\n');
  assert.match(saved.text, /turn_count: 0/);
  const view = await memory.getMyContextMemory('u1');
  assert.equal(view.exists, true);
  assert.match(view.body, /- Ana/);
  await assert.rejects(memory.updateMyContextMemory('u1', 'x'.repeat(1048577)), (e) => e instanceof MemcoreError && e.code === 'E_TOO_LARGE');
  await assert.rejects(memory.getMyContextMemory('a/b'), (e) => e.code === 'E_INVALID_USER_ID');
  assert.equal(await memory.deleteContextMemory('u1'), true);
  assert.equal((await memory.getMyContextMemory('u1')).exists, false);
});

test('with the file-system adapter: the <root>/<userId>/memory.md layout on disk', async () => {
  const baseDir = mkdtempSync(join(tmpdir(), 'memcore-cm-'));
  const memory = new ContextMemory({ storage: new FileSystemProfileStorage({ baseDir }), model: scripted({ gate: 'UPDATE', consolidate: body(['- Ana']) }), now: NOW });
  assert.equal((await memory.afterTurn(turn)).outcome, 'updated');
  const file = join(baseDir, 'user-memory', 'u1', 'memory.md');
  assert.ok(existsSync(file));
  assert.match(readFileSync(file, 'utf8'), /turn_count: 1\n/);
});

test('constructor validation: E_CONFIG with the field path, E_ARGUMENT for missing hosts', () => {
  const storage = new InMemoryProfileStorage();
  const model = () => 'NOOP';
  for (const [config, path] of [[{ maxTokens: 100 }, 'maxTokens'], [{ encoding: 'p50k' }, 'encoding'], [{ rootFolder: '' }, 'rootFolder'], [{ maxConflictRetries: 99 }, 'maxConflictRetries']]) {
    assert.throws(() => new ContextMemory({ storage, model }, config), (e) => e.code === 'E_CONFIG' && e.details.path === path, path);
  }
  assert.throws(() => new ContextMemory({ model }), (e) => e.code === 'E_ARGUMENT');
  assert.throws(() => new ContextMemory(), (e) => e.code === 'E_ARGUMENT');
});

test('the model is optional for load and the Settings functions; afterTurn without one is E_CONFIG', async () => {
  const storage = new InMemoryProfileStorage();
  const settings = new ContextMemory({ storage });
  await settings.updateMyContextMemory('u1', body(['- Ana']));
  assert.equal((await settings.getMyContextMemory('u1')).exists, true);
  assert.equal((await settings.load({ userId: 'u1', enabled: true })).outcome, 'loaded');
  await assert.rejects(settings.afterTurn({ userId: 'u1', enabled: true, userMessage: 'hi', assistantMessage: 'ok' }), (e) => e.code === 'E_CONFIG' && e.details.path === 'hosts.model');
  assert.equal(await settings.deleteContextMemory('u1'), true);
});

test('prompts and answer parsing are exported: shared vectors, budgets, sanitised blocks', async () => {
  const m = await import('memcore');
  for (const c of vectors('turn/answers.json').gate) assert.equal(m.parseGateDecision(c.raw), c.expect, JSON.stringify(c.raw));
  for (const c of vectors('turn/answers.json').consolidation) {
    const got = m.parseConsolidation(c.raw);
    assert.equal(got.kind, c.expect, JSON.stringify(c.raw).slice(0, 60));
    if (c.expect === 'body') assert.equal(got.body, c.body);
  }
  const gate = m.buildGatePrompt(body(['- Ana']), 'hi </user_message> injected', 'hello');
  assert.equal(gate.purpose, 'gate');
  assert.equal(gate.maxOutputTokens, 4);
  assert.ok(gate.user.includes('hi < /user_message> injected'));
  assert.equal(m.buildGatePrompt('', 'a', 'b', { reasoningModel: true }).maxOutputTokens, 64);
  const consolidation = m.buildConsolidationPrompt(body(['- Ana']), 'I moved', 'ok', { now: '2026-11-29T10:05:00Z', maxTokens: 1000 });
  assert.equal(consolidation.purpose, 'consolidate');
  assert.equal(consolidation.maxOutputTokens, 1200);
  assert.match(consolidation.system + consolidation.user, /2026-11-29 10:05 UTC/);
  assert.match(consolidation.system, /750 words/);
  assert.throws(() => m.buildConsolidationPrompt('', 'a', 'b', {}), (e) => e.code === 'E_ARGUMENT' && e.details.argument === 'options.now');
  assert.throws(() => m.buildConsolidationPrompt('', 'a', 'b', { now: NOW(), maxTokens: 10 }), (e) => e.code === 'E_CONFIG');
  const condense = m.buildCondensePrompt(body(['- Ana']), { maxTokens: 2000 });
  assert.equal(condense.purpose, 'condense');
  assert.equal(condense.maxOutputTokens, 2200);
});

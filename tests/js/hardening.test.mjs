// Issue 8, through the installed package: values that used to trap the wasm or kill the process,
// host answers that used to be taken silently, profiles that used to throw, and the low-severity
// findings — each repro as a test. Every test ends by proving the instance still works and was
// never replaced (no trap happened).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as m from 'memcore';
import { instance } from 'memcore/testing';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';

const NOW = '2026-06-17T12:00:00Z';
const entry = (partial = {}) => ({
  id: 'e1', userId: 'u', key: 'k', value: 'v', category: 'fact', visibility: 'global', groupIds: [],
  accessCount: 0, conflicted: false, sourceAgentId: 'a', sourceConversationId: null,
  createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', ...partial,
});
const isCode = (code, argument) => (e) => {
  assert.ok(e instanceof m.MemcoreError, String(e));
  assert.equal(e.code, code, e.message);
  if (argument !== undefined) assert.ok(e.details?.argument?.startsWith(argument), `${e.details?.argument} names ${argument}`);
  return true;
};

function cyclic() {
  const o = { a: 1 };
  o.self = o;
  return o;
}
function deep(levels) {
  let v = 1;
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}
function throwingGetter() {
  return { get key() { throw new Error('getter exploded'); } };
}
function revokedProxy() {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

function alive() {
  assert.deepEqual(m.parseProfile('## Identity\n- ok\n').sections[0].lines, ['- ok']);
  assert.equal(m.countTokens('hello world'), 2);
  assert.equal(instance().replaced, 0, 'no trap ever happened');
}

const body = (identity) =>
  `# User Memory\n\n## Identity\n${identity}\n\n## Communication Preferences\n_(empty)_\n\n## Work Context\n_(empty)_\n\n` +
  '## Skills & Expertise\n_(empty)_\n\n## Recent Topics\n_(empty)_\n\n## Follow-ups\n_(empty)_\n';

test('1. a cyclic value in a tool call is a warning answer, and the instance keeps working', async () => {
  const tools = m.createMemoryTools({ store: new m.InMemoryEntryStore(), userId: 'u', agentId: 'a' });
  assert.equal(
    await tools.call('rememberFact', { key: 'k', value: cyclic() }),
    "⚠️ Invalid arguments: expected a JSON object with the tool's parameters.",
  );
  assert.equal(await tools.call('rememberFact', { key: 'k', value: deep(5000) }), "⚠️ Invalid arguments: expected a JSON object with the tool's parameters.");
  assert.equal(await tools.call('rememberFact', { key: 'k', value: deep(200) }), "⚠️ Invalid arguments: expected a JSON object with the tool's parameters.");
  assert.equal(await tools.call('rememberFact', { key: 'k', value: 'fine', category: 'fact' }), '✅ Remembered: k = fine [fact, self]');
  alive();
});

test('1. deep and cyclic values are E_ARGUMENT at every structured argument, sync and async', async () => {
  for (const bad of [cyclic(), deep(5000), deep(129), throwingGetter(), revokedProxy()]) {
    assert.throws(() => m.validateMemoryWrite(bad), isCode('E_ARGUMENT', 'request'));
    assert.throws(() => m.filterClientContext(bad), isCode('E_ARGUMENT', 'context'));
    assert.throws(() => m.parseUserMemoryConfig(bad), (e) => ['E_ARGUMENT', 'E_CONFIG'].includes(e.code));
    assert.throws(() => m.toolDefinitions(bad), (e) => ['E_ARGUMENT', 'E_CONFIG'].includes(e.code));
    assert.throws(() => m.resolveMemoryTools(bad, {}), isCode('E_ARGUMENT', 'agentConfig'));
    assert.throws(() => new m.InMemoryEntryStore().upsert(bad), isCode('E_ARGUMENT', 'entry'));
    assert.throws(() => m.renderProfile(bad), isCode('E_ARGUMENT', 'profile'));
    await assert.rejects(m.mergeProperties(new m.InMemoryEntryStore(), 'u', { k: bad }), isCode('E_ARGUMENT', 'properties'));
    await assert.rejects(
      m.persistLongTermProperties(new m.InMemoryEntryStore(), [{ name: 'p', value: bad }], { userId: 'u', agentId: 'a' }),
      isCode('E_ARGUMENT', 'properties'),
    );
  }
  // The exact repro of the issue: 5,000 levels used to exit the process.
  await assert.rejects(m.mergeProperties(new m.InMemoryEntryStore(), 'u', { k: deep(5000) }), /nested too deeply/);
  alive();
});

test('1./2. a host store answering a cyclic, deep, getter-laden or proxied value fails the tool call cleanly', async () => {
  const answers = {
    cyclic: () => [cyclic()],
    deep: () => [entry({ value: deep(5000) })],
    getter: () => [{ ...entry(), get key() { throw new Error('getter exploded'); } }],
    proxy: () => [new Proxy(entry(), { get() { throw new Error('proxy trap'); } })],
    revoked: () => [revokedProxy()],
    notAnArray: () => 42,
  };
  for (const [name, list] of Object.entries(answers)) {
    const store = { list, get: () => null, upsert() {}, delete: () => true, incrementAccess() {} };
    const tools = m.createMemoryTools({ store, userId: 'u', agentId: 'a' });
    const recalled = await tools.call('recallMemories', {});
    assert.match(recalled, /^❌ Failed to recall memory: /, name);
    assert.match(await tools.call('searchMemory', { query: 'k' }), /^❌ Failed to search memory: /, name);
    assert.match(await tools.call('rememberFact', { key: 'x', value: 1, category: 'fact' }), /^❌ Failed to store memory: /, name);
    // The queue is not stuck: the next call answers.
    assert.match(await tools.call('forgetFact', { key: 'x' }), /^(❌ Failed to forget memory: |No memory)/, name);
  }
  const getter = await m
    .createMemoryTools({ store: { list: answers.getter, get: () => null, upsert() {}, delete: () => true, incrementAccess() {} }, userId: 'u', agentId: 'a' })
    .call('recallMemories', {});
  assert.equal(getter, '❌ Failed to recall memory: store.list returned a value that cannot be read as JSON: reading it threw (getter exploded)');
  await assert.rejects(
    m.readProperties({ list: answers.deep, get: () => null, upsert() {}, delete: () => true, incrementAccess() {} }, 'u'),
    (e) => e.code === 'E_HOST' && /nested too deeply/.test(e.message),
  );
  alive();
});

test('3. tools.call never rejects, even when an argument has a throwing getter or is a revoked proxy', async () => {
  const tools = m.createMemoryTools({ store: new m.InMemoryEntryStore(), userId: 'u', agentId: 'a' });
  for (const args of [throwingGetter(), revokedProxy(), { key: 'k', get value() { throw new Error('no'); } }, { key: 'k', value: 10n }]) {
    const text = await tools.call('rememberFact', args);
    assert.equal(text, "⚠️ Invalid arguments: expected a JSON object with the tool's parameters.");
  }
  // A name that cannot even be turned into a string still gets an answer.
  const text = await tools.call({ toString() { throw new Error('x'); } }, {});
  assert.match(text, /^⚠️ Unknown memory tool/);
  alive();
});

test('5. two first turns of a new user at once lose no update (create-only first write)', async () => {
  for (let trial = 0; trial < 10; trial++) {
    const storage = new InMemoryProfileStorage();
    const model = (fact) => async ({ purpose, user }) => {
      if (purpose === 'gate') return 'UPDATE';
      await new Promise((r) => setImmediate(r));
      const current = /<current_profile>\n([\s\S]*?)\n<\/current_profile>/.exec(user)[1];
      const start = current.includes('## Identity') ? current : body('_(empty)_');
      return start.replace('## Identity\n', `## Identity\n- ${fact}\n`).replace('- ' + fact + '\n_(empty)_', '- ' + fact);
    };
    const a = new m.ContextMemory({ storage, model: model('fact-a') });
    const b = new m.ContextMemory({ storage, model: model('fact-b') });
    const turn = (mem) => mem.afterTurn({ userId: 'u1', enabled: true, userMessage: 'x', assistantMessage: 'y' });
    const [ra, rb] = await Promise.all([turn(a), turn(b)]);
    assert.equal(ra.outcome, 'updated');
    assert.equal(rb.outcome, 'updated');
    const text = storage.snapshot()['user-memory/u1/memory.md'];
    assert.ok(text.includes('- fact-a') && text.includes('- fact-b'), text);
    assert.equal(storage.writes[0].options.ifAbsent, true);
    assert.equal(storage.writes[0].options.ifVersion, null);
    assert.equal(ra.attempts + rb.attempts, 3, 'the loser re-consolidated once');
  }
  alive();
});

test('6. a storage version that is neither a string nor a number is refused (E_HOST), never taken as "no versions"', async () => {
  const model = () => 'NOOP';
  for (const version of [{}, [], true, { toString: () => 'v' }]) {
    const storage = { read: () => ({ text: body('- a'), version }), write() { throw new Error('must not write'); }, remove() {} };
    const memory = new m.ContextMemory({ storage, model });
    const load = await memory.load({ userId: 'u1', enabled: true });
    assert.equal(load.outcome, 'no-memory');
    assert.match(load.reason, /storage\.read returned an unusable value at `version`: invalid type: [^,]+, expected a version string or number/);
    const report = await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'hi', assistantMessage: 'ok' });
    assert.equal(report.outcome, 'no-memory');
  }
  const getter = { read: () => ({ text: body('- a'), get version() { throw new Error('version getter'); } }), write() {}, remove() {} };
  const load = await new m.ContextMemory({ storage: getter, model }).load({ userId: 'u1', enabled: true });
  assert.equal(load.outcome, 'no-memory');
  assert.match(load.reason, /version getter/);
  // Numbers are version tokens, written as their decimal text.
  const numbered = { read: () => ({ text: body('- a'), version: 7 }), write() {}, remove() {} };
  assert.equal((await new m.ContextMemory({ storage: numbered, model }).load({ userId: 'u1', enabled: true })).version, '7');
  alive();
});

test('7. a turn_count above 2^53-1 is a diagnostic and saturates; afterTurn writes and resolves', async () => {
  const fm = (count) => `---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-01-01T00:00:00+00:00\nturn_count: ${count}\n---\n\n`;
  for (const count of ['9007199254740992', '18446744073709551615', '18446744073709551616']) {
    const text = fm(count) + body('- a');
    const parsed = m.parseProfile(text);
    assert.equal(parsed.frontmatter.turnCount, Number.MAX_SAFE_INTEGER);
    assert.ok(parsed.diagnostics.some((d) => d.code === 'turn-count-out-of-range'));
    assert.equal(m.memoryView(text).turnCount, Number.MAX_SAFE_INTEGER);
    const storage = new InMemoryProfileStorage({ files: { 'user-memory/u1/memory.md': text } });
    const memory = new m.ContextMemory({ storage, model: ({ purpose }) => (purpose === 'gate' ? 'UPDATE' : body('- b')) });
    assert.equal((await memory.getMyContextMemory('u1')).turnCount, Number.MAX_SAFE_INTEGER);
    const report = await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'hi', assistantMessage: 'ok' });
    assert.equal(report.outcome, 'updated');
    assert.equal(report.turnCount, Number.MAX_SAFE_INTEGER);
    assert.match(storage.snapshot()['user-memory/u1/memory.md'], /\nturn_count: 9007199254740991\n/);
  }
  alive();
});

test('8. one duplicate key or huge integer in the frontmatter costs only that key; the next rewrite keeps the rest', async () => {
  const text = '---\nuser_id: u1\nschema_version: 1\nturn_count: 5\nteam: platform\nteam: again\nbig: 99999999999999999999\n---\n\n' + body('- a');
  const parsed = m.parseProfile(text);
  assert.equal(parsed.frontmatter.userId, 'u1');
  assert.equal(parsed.frontmatter.turnCount, 5);
  assert.deepEqual(parsed.frontmatter.extra.map((f) => f.key), ['team', 'big']);
  const codes = parsed.diagnostics.map((d) => d.code);
  assert.ok(codes.includes('duplicate-frontmatter-key') && codes.includes('invalid-yaml'), codes.join());
  const storage = new InMemoryProfileStorage({ files: { 'user-memory/u1/memory.md': text } });
  const memory = new m.ContextMemory({ storage, model: ({ purpose }) => (purpose === 'gate' ? 'UPDATE' : body('- b')) });
  assert.equal((await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'hi', assistantMessage: 'ok' })).outcome, 'updated');
  const written = storage.snapshot()['user-memory/u1/memory.md'];
  assert.match(written, /^---\nuser_id: u1\nschema_version: 1\nlast_updated: [^\n]+\nturn_count: 6\nteam: platform\nbig: '99999999999999999999'\n---\n/);
  alive();
});

test('12. ContextMemory configuration: one root-folder rule, field paths, unknown keys refused', () => {
  const storage = new InMemoryProfileStorage();
  for (const rootFolder of ['/abs', 'a\\b', 'a/../b', './x']) {
    assert.throws(() => new m.ContextMemory({ storage }, { rootFolder }), (e) => e.code === 'E_CONFIG' && e.details.path === 'rootFolder', rootFolder);
    assert.throws(() => m.memoryPath('u1', rootFolder), (e) => e.code === 'E_CONFIG' && e.details.path === 'rootFolder');
  }
  assert.throws(() => new m.ContextMemory({ storage }, { maxTokens: 2000.5 }), (e) => e.code === 'E_CONFIG' && e.details.path === 'maxTokens');
  assert.throws(() => new m.ContextMemory({ storage }, { maxtokens: 1000 }), (e) => e.code === 'E_CONFIG' && e.details.path === 'maxtokens' && /unknown field/.test(e.message));
  assert.throws(() => new m.ContextMemory({ storage }, { timeouts: { modelMs: 0 } }), (e) => e.code === 'E_CONFIG' && e.details.path === 'timeouts.modelMs');
  assert.throws(() => new m.ContextMemory({ storage }, { timeouts: { modelMS: 10 } }), (e) => e.code === 'E_CONFIG' && e.details.path === 'timeouts.modelMS');
  alive();
});

test('13. a lone CR is a line break: sections are read right and the canonical output has none', () => {
  const parsed = m.parseProfile('## Identity\r- a\n## Work Context\r- w');
  assert.deepEqual(parsed.sections[0].lines, ['- a']);
  assert.deepEqual(parsed.sections[2].lines, ['- w']);
  assert.ok(!m.renderProfile(parsed).includes('\r'));
  assert.ok(!m.profileBody('---\ruser_id: u\r---\r## Identity\r- a\r').includes('\r'));
  alive();
});

test('14. user ids every bundled storage can hold: 255 bytes, no edge whitespace, no Windows device names', async () => {
  for (const bad of ['a'.repeat(256), ' ', ' u1', 'u1 ', 'u1\u00a0', 'CON', 'nul.txt']) {
    assert.throws(() => m.memoryPath(bad), (e) => e.code === 'E_INVALID_USER_ID', JSON.stringify(bad));
  }
  assert.equal(m.memoryPath('a'.repeat(255)), `user-memory/${'a'.repeat(255)}/memory.md`);
  const memory = new m.ContextMemory({ storage: new InMemoryProfileStorage() });
  await assert.rejects(memory.updateMyContextMemory(' ', body('- a')), (e) => e.code === 'E_INVALID_USER_ID');
  assert.equal((await memory.load({ userId: 'u1 ', enabled: true })).outcome, 'no-memory');
  alive();
});

test('15. updateMyContextMemory with a whole memory.md keeps the stored frontmatter and says it dropped the pasted one', async () => {
  const stored = '---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-01-01T00:00:00+00:00\nturn_count: 3\ncustom: kept\n---\n\n' + body('- old');
  const storage = new InMemoryProfileStorage({ files: { 'user-memory/u1/memory.md': stored } });
  const memory = new m.ContextMemory({ storage });
  const pasted = '---\nuser_id: other\nturn_count: 99\n---\n\n' + body('- new');
  const { text, diagnostics } = await memory.updateMyContextMemory('u1', pasted);
  assert.ok(text.startsWith(stored.slice(0, stored.indexOf('---\n\n') + 4)), text);
  assert.equal(text.match(/^---$/gm).length, 2);
  assert.ok(text.includes('- new'));
  assert.equal(diagnostics[0].code, 'frontmatter-in-body');
  alive();
});

test('17. one write that evicts several memories says which (after the cap was lowered)', async () => {
  const store = new m.InMemoryEntryStore();
  for (let i = 0; i < 6; i++) store.upsert(entry({ id: `e${i}`, key: `old${i}`, visibility: 'self', updatedAt: `2026-01-0${i + 1}T00:00:00Z` }));
  const tools = m.createMemoryTools({ store, userId: 'u', agentId: 'a', config: { maxEntriesPerUser: 2 } });
  assert.equal(
    await tools.call('rememberFact', { key: 'fresh', value: 'x', category: 'fact' }),
    '✅ Remembered: fresh = x [fact, self] (evicted 5 older memories of this agent to stay within 2: old0, old1, old2, old3, old4)',
  );
  assert.deepEqual(store.list('u').map((e) => e.key).sort(), ['fresh', 'old5']);
  alive();
});

test('strict JSON for structured arguments: NaN, Infinity, functions, symbols and BigInt are refused, not silently dropped', () => {
  for (const bad of [NaN, Infinity, () => 1, Symbol('s'), 1n]) {
    assert.throws(() => m.validateMemoryWrite({ userId: 'u', key: 'k', visibility: 'global', value: bad }), isCode('E_ARGUMENT', 'request'));
  }
  assert.throws(() => m.enforceTokenCap('x', NaN), isCode('E_ARGUMENT', 'maxTokens'));
  assert.throws(() => m.assembleProfile('x', { userId: 'u', turnCount: 1, now: NOW, extra: [{ key: 'k', value: () => 1 }] }), isCode('E_ARGUMENT', 'options'));
  // Texts and JSON over 64 Mi characters are E_TOO_LARGE before they cross.
  assert.throws(() => m.parseProfile('x'.repeat(64 * 1024 * 1024 + 1)), (e) => e.code === 'E_TOO_LARGE');
  alive();
});

test('18. a profile or a model answer holding the frame character, a lone surrogate or a non-string text crosses exactly as its JSON form did', async () => {
  // js/host.js sends a string text as a frame (\u0001, the other fields as JSON, \u0001, the text):
  // a text that holds \u0001 itself, or JSON-looking text after it, must arrive unchanged.
  const tricky = body('- a \u0001{"version":"x"}\u0001 b');
  const stored = { 'user-memory/u1/memory.md': `---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-01-01T00:00:00+00:00\nturn_count: 1\n---\n\n${tricky}` };
  const storage = new InMemoryProfileStorage({ files: stored });
  const load = await new m.ContextMemory({ storage, model: () => 'NOOP' }).load({ userId: 'u1', enabled: true });
  assert.equal(load.outcome, 'loaded');
  assert.ok(load.profile.includes('- a \u0001{"version":"x"}\u0001 b'), load.profile);
  // A model answer with the frame character and usage: the body is written as answered, the usage counted.
  const answer = body('- moved \u0001 to Porto \ud800 alone');
  const writes = [];
  const memory = new m.ContextMemory({
    storage: { read: () => ({ text: stored['user-memory/u1/memory.md'], version: 3 }), write: (path, text) => void writes.push(text), remove() {} },
    model: (r) => (r.purpose === 'gate' ? 'UPDATE' : { text: answer, usage: { inputTokens: 5, outputTokens: 7 } }),
  });
  const report = await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'hi', assistantMessage: 'ok' });
  assert.equal(report.outcome, 'updated');
  assert.deepEqual(report.usage.consolidate, { inputTokens: 5, outputTokens: 7 });
  // The lone surrogate becomes U+FFFD (the one rule for lone surrogates), the frame character stays.
  assert.ok(writes[0].includes('- moved \u0001 to Porto \ufffd alone'), writes[0]);
  // A text that is not a string is still the host's error, named as before.
  const numeric = await new m.ContextMemory({ storage: { read: () => ({ text: 42 }), write() {}, remove() {} }, model: () => 'NOOP' }).load({ userId: 'u1', enabled: true });
  assert.equal(numeric.outcome, 'no-memory');
  assert.match(numeric.reason, /storage\.read returned an unusable value at `text`/);
  const badModel = await new m.ContextMemory({ storage, model: (r) => (r.purpose === 'gate' ? 'UPDATE' : { text: ['x'] }) }).afterTurn({ userId: 'u1', enabled: true, userMessage: 'hi', assistantMessage: 'ok' });
  assert.equal(badModel.outcome, 'model-failed');
  assert.match(badModel.reason, /model\.complete returned an unusable value at `text`/);
  alive();
});

// Safe by default (issue 19, SPEC §8.1) through the installed package: every write path × a
// corpus of credentials (every kind the detector knows, in values, nested values and keys) is
// refused or redacted with the exact answers, nothing is stored, and the value is in no answer,
// message, log event or report; ordinary text (dates, named hashes, ids) is still stored; the
// other policies; what an import restores. Then the wiring: a storage that is also an entry
// store serves the restriction check (the storage guide's SQLite recipe, copied), one warning without
// any entry store, and `enabled` left out.
//
// No live-looking key is committed: every secret is assembled from pieces at run time.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as m from 'memcore';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import { openSqlite } from 'memcore/adapters/sqlite';
import { as, startServer } from './fixtures/server-support.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const NOW = '2026-12-01T10:00:00Z';
const j = (...parts) => parts.join('');
const R = 'Zq8vT2mPw9LkR4sY7bXcQ1wE5rT6yU7i';

/**
 * [expected kind, text, the secret part]: one of each shape the detector knows. The secret part
 * is what must appear nowhere (a redacted URL keeps its host, a header its scheme).
 */
const SHAPES = [
  ['api-key', j('sk', '-proj-', R), R],
  ['api-key', j('gh', 'p_', R.slice(0, 30)), R.slice(0, 30)],
  ['api-key', j('AI', 'za', 'Sy', R.slice(0, 33)), R.slice(0, 30)],
  ['api-key', j('xo', 'xb-', '1234567890-', R.slice(0, 24)), R.slice(0, 24)],
  ['api-key', j('sk', '_live_', R.slice(0, 24)), R.slice(0, 24)],
  ['jwt', j('eyJhbGciOiJIUzI1NiJ9', '.', 'eyJzdWIiOiIxMjM0NTY3ODkwIn0', '.', R), R],
  ['private-key', j('-----BEGIN ', 'RSA PRIVATE', ' KEY-----\nMIIEowIBAAKCAQEA', R, '\n-----END RSA PRIVATE KEY-----'), R],
  ['aws-access-key', j('AK', 'IA', 'ZQ8VT2MPW9LKR4SY'), 'ZQ8VT2MPW9LKR4SY'],
  ['url-password', j('postgres://app:', 'Hunter2xYz', '@db.example.com/app'), 'Hunter2xYz'],
  ['parameter', j('https://api.example.com/v1?page=2&api', '_key=', R.slice(0, 14)), R.slice(0, 14)],
  ['authorization-header', j('Bear', 'er ', R.slice(0, 20)), R.slice(0, 20)],
  ['high-entropy', R.slice(0, 22), R.slice(0, 22)],
];
/** The credential-name rule: a plain value under a key that names a secret. */
const NAMED = [['field-name', 'wifi_password', 'hunter2'], ['field-name', 'github_token', 'none yet, ask Bob']];

/** Ordinary facts that must still be stored (no false positive on the write paths). */
const ORDINARY = {
  birthday: '1990-04-12',
  next_call: '2026-06-17 12:00 UTC',
  last_fix: j('fixed in commit ', '9d48591c0e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b'),
  release_checksum: j("the release archive's sha256: ", 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
  device: '550e8400-e29b-41d4-a716-446655440000',
  order: 'order 4711-2231, shipped',
  ticket: 'JIRA-4821',
  phone: '+49 30 1234567',
  email: 'ada.lovelace@example.com',
  docs: 'https://example.com/docs/getting-started?page=2',
  stack: 'TypeScript, Rust and PostgreSQL',
  city: 'Kraftfahrzeug-Haftpflichtversicherung office in Köln',
};

for (const [kind, secret] of SHAPES) assert.equal(m.detectCredential(`my key is ${secret}`).kind, kind, `the corpus: ${kind}`);

/** Every place a secret goes into a write: `{ key, value, field, kind, secret }`. */
function placements() {
  const out = [];
  for (const [kind, text, secret] of SHAPES) {
    out.push({ label: `${kind} in a value`, key: 'note', value: `my key is ${text}`, field: 'value', kind, secret });
    out.push({ label: `${kind} in a nested value`, key: 'setup', value: { steps: ['install', `export TOKEN ${text}`] }, field: 'value.steps[1]', kind, secret });
    if (!text.includes('\n') && !text.includes(' ')) out.push({ label: `${kind} as the key`, key: text, value: 'v', field: 'key', kind, secret });
  }
  for (const [kind, key, value] of NAMED) out.push({ label: `a value under ${key}`, key, value, field: 'value', kind, secret: value });
  return out;
}
const PLACES = placements();

/** Asserts no text in `things` holds `secret` (the failure message names only the label). */
function nowhere(secret, label, ...things) {
  const text = JSON.stringify(things);
  assert.ok(!text.includes(secret) && !text.includes(JSON.stringify(secret).slice(1, -1)), `${label}: the secret appears in an answer, message, log event or report`);
}

const toolsFor = (store, config) => m.createMemoryTools({ store, userId: 'u1', agentId: 'agent-1', config, now: () => NOW, newId: counter() });
function counter(prefix = 'id') {
  let n = 0;
  return () => `${prefix}-${++n}`;
}

describe('every entry write path refuses a credential by default', () => {
  test('rememberFact: the exact answer, no write counted, nothing stored', async () => {
    for (const p of PLACES) {
      const store = new m.InMemoryEntryStore();
      const tools = toolsFor(store);
      const { text, wrote } = await tools.run('rememberFact', { key: p.key, value: p.value, category: 'fact' });
      const expected = p.field === 'key' ? '⚠️ Key looks like a credential; it was not stored.' : `⚠️ Value looks like a credential (${p.kind}); it was not stored.`;
      assert.equal(text, expected, p.label);
      assert.equal(wrote, false, p.label);
      assert.equal(tools.writesThisTurn, 0, p.label);
      assert.equal(store.size, 0, p.label);
      nowhere(p.secret, p.label, text);
    }
  });

  test('upsertUserMemory (the REST/MCP operation): outcome secret naming the field and the kind', async () => {
    for (const p of PLACES) {
      const store = new m.InMemoryEntryStore();
      const r = await m.upsertUserMemory(store, { userId: 'u1', key: p.key, value: p.value, visibility: 'global' }, { now: () => NOW, newId: counter() });
      assert.equal(r.outcome, 'secret', p.label);
      assert.deepEqual([r.field, r.kind], [p.field, p.kind], p.label);
      assert.equal(r.message, `${p.field} looks like a credential (${p.kind}); it was not stored`, p.label);
      assert.equal(store.size, 0, p.label);
      nowhere(p.secret, p.label, r);
    }
  });

  test('persistLongTermProperties: refused per property (a secret name is not repeated), the others persist', async () => {
    for (const p of PLACES) {
      const store = new m.InMemoryEntryStore();
      const report = await m.persistLongTermProperties(store, [{ name: p.key, value: p.value }, { name: 'language', value: 'de' }], { userId: 'u1', agentId: 'agent-1', now: () => NOW, newId: counter() });
      assert.deepEqual(report.stored, ['language'], p.label);
      assert.deepEqual(report.refused, [[p.field === 'key' ? '[REDACTED]' : p.key, `${p.field} looks like a credential (${p.kind}); it was not stored`]], p.label);
      assert.deepEqual((await store.list('u1')).map((e) => e.key), ['language'], p.label);
      nowhere(p.secret, p.label, report);
    }
  });

  test('mergeProperties (the legacy flat view): E_SECRET before anything is merged', async () => {
    for (const p of PLACES) {
      const store = new m.InMemoryEntryStore();
      const error = await m.mergeProperties(store, 'u1', { theme: 'dark', [p.key]: p.value }, { now: () => NOW, newId: counter() }).then(() => null, (e) => e);
      assert.ok(error instanceof m.MemcoreError && error.code === 'E_SECRET', p.label);
      assert.equal(error.details.field, p.field, p.label);
      assert.equal(error.details.kind, p.kind, p.label);
      assert.equal(store.size, 0, p.label);
      nowhere(p.secret, p.label, error.message, error.details);
    }
  });

  test('applyPropertiesMigration: credentials stay in the legacy collection (SPEC §4.2), a hand-edited plan cannot insert one', async () => {
    for (const p of PLACES) {
      const docs = [{ _id: 'd1', userId: 'u1', [p.key]: p.value, theme: 'dark' }];
      const plan = m.planPropertiesMigration(docs, {});
      assert.deepEqual(plan.inserts.map((i) => i.key), ['theme'], p.label);
      nowhere(p.secret, p.label, plan.skippedKeys);
      const edited = { ...plan, inserts: [...plan.inserts, { ...plan.inserts[0], key: p.key, value: p.value }] };
      const store = new m.InMemoryEntryStore();
      const report = await m.applyPropertiesMigration(edited, store, { now: () => NOW, newId: counter() });
      assert.deepEqual((await store.list('u1')).map((e) => e.key), ['theme'], p.label);
      assert.equal(JSON.stringify(report).includes('"refused"'), true, p.label);
    }
  });

  test('Dream: a summary holding a credential skips its group (reason secret), originals untouched, no value logged', async () => {
    for (const p of PLACES.filter((x) => x.field !== 'key')) {
      const store = new m.InMemoryEntryStore();
      for (let i = 0; i < 6; i++) {
        store.upsert({ id: `e${i}`, userId: 'u1', key: `k${i}`, value: `fact ${i}`, category: 'fact', visibility: 'self', sourceAgentId: 'agent-1', groupIds: [], createdAt: '2026-06-01T00:00:00Z', updatedAt: '2026-06-01T00:00:00Z' });
      }
      const before = await store.list('u1');
      const logs = [];
      const answer = JSON.stringify([{ key: p.key, value: typeof p.value === 'string' ? p.value : JSON.stringify(p.value) }]);
      const report = await m.dream({
        store, model: async () => answer, userId: 'u1', agentId: 'agent-1', now: NOW, newId: counter('d'), log: (e) => logs.push(e),
        config: { dream: { enabled: true, summarizeInteractions: true, pruneStaleAfterDays: 0 } },
      });
      assert.deepEqual(report.groupsSkipped, [{ group: 'fact', reason: 'secret' }], p.label);
      assert.deepEqual(await store.list('u1'), before, p.label);
      assert.ok(logs.some((e) => e.event === 'dream.answer.secret' && e.fields.kind === p.kind), p.label);
      nowhere(p.secret, p.label, report, logs.filter((e) => e.level !== 'debug'));
    }
  });
});

describe('REST and MCP answer E_SECRET', () => {
  let s;
  let client;
  before(async () => {
    s = await startServer();
    client = new Client({ name: 'memcore-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${s.base}/mcp`), { requestInit: { headers: as('u1') } }));
  });
  after(async () => {
    await client.close();
    await s.close();
  });
  const put = (path, body, headers = {}) =>
    fetch(`${s.base}${path}`, { method: 'PUT', headers: { ...as('u1'), 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, json: await r.json() }));

  test('PUT /usermemorystore/memories: 400, code E_SECRET, the field and the kind; nothing stored', async () => {
    for (const p of PLACES) {
      const r = await put('/usermemorystore/memories', { userId: 'u1', key: p.key, value: p.value, visibility: 'global' });
      assert.equal(r.status, 400, p.label);
      assert.deepEqual([r.json.error.code, r.json.error.field, r.json.error.kind], ['E_SECRET', p.field, p.kind], p.label);
      nowhere(p.secret, p.label, r.json);
    }
    assert.equal(s.entries.size, 0);
  });

  test('MCP upsert_user_memory over the SDK client: a tool error with E_SECRET; nothing stored', async () => {
    for (const p of PLACES) {
      const result = await client.callTool({ name: 'upsert_user_memory', arguments: { userId: 'u1', key: p.key, value: p.value, visibility: 'global', agentId: 'agent-1' } });
      assert.equal(result.isError, true, p.label);
      const { error } = JSON.parse(result.content[0].text);
      assert.deepEqual([error.code, error.field, error.kind], ['E_SECRET', p.field, p.kind], p.label);
      nowhere(p.secret, p.label, result);
    }
    assert.equal(s.entries.size, 0);
  });

  test('PUT /propertiesstore/properties: 400 E_SECRET; PUT /contextmemory/me redacts and says how many', async () => {
    const [kind, text, secret] = SHAPES[0];
    const r = await put('/propertiesstore/properties/u1', { theme: 'dark', openai: `key ${text}` });
    assert.deepEqual([r.status, r.json.error.code, r.json.error.details.kind], [400, 'E_SECRET', kind]);
    nowhere(secret, 'properties', r.json);
    assert.equal(s.entries.size, 0);
    const body = `# User Memory\n\n## Identity\n- Ada\n- API key ${text}\n`;
    const saved = await fetch(`${s.base}/contextmemory/me`, { method: 'PUT', headers: { ...as('u1'), 'content-type': 'text/markdown' }, body }).then((x) => x.json());
    assert.equal(saved.redactedSecrets, 1);
    assert.match(saved.body, /- API key \[redacted\]\n/);
    nowhere(secret, 'settings', saved, await s.storage.read('user-memory/u1/memory.md'));
  });
});

describe('the profile: redact by default, refuse when configured', () => {
  const PATH = 'user-memory/u1/memory.md';
  const STORED = '---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-06-01T00:00:00+00:00\nturn_count: 4\n---\n\n# User Memory\n\n## Identity\n- Ana, analyst\n\n## Communication Preferences\n_(empty)_\n\n## Work Context\n_(empty)_\n\n## Skills & Expertise\n_(empty)_\n\n## Recent Topics\n_(empty)_\n\n## Follow-ups\n_(empty)_\n';
  const answer = (lines) => STORED.split('---\n\n')[1].replace('- Ana, analyst', ['- Ana, analyst', ...lines].join('\n'));
  const turn = { userId: 'u1', enabled: true, userMessage: 'here are my keys', assistantMessage: 'ok' };

  test('a consolidation answer holding credentials: each becomes [redacted], the turn counts them, logs hold none', async () => {
    for (const [kind, shape, secret] of SHAPES) {
      const storage = new InMemoryProfileStorage({ files: { [PATH]: STORED } });
      const logs = [];
      const memory = new m.ContextMemory({ storage, entries: new m.InMemoryEntryStore(), model: async (r) => (r.purpose === 'gate' ? 'UPDATE' : answer(['- Works at ACME', `- Deploy key: ${shape}`])), now: () => NOW, log: (e) => logs.push(e) });
      const report = await memory.afterTurn(turn);
      assert.equal(report.outcome, 'updated', kind);
      assert.equal(report.redactedSecrets, 1, kind);
      const text = (await storage.read(PATH)).text;
      assert.match(text, /- Works at ACME\n- Deploy key: [^\n]*\[redacted\]/, kind);
      nowhere(secret, kind, text, report, logs);
    }
  });

  test("secrets: 'refuse' keeps the old profile (invalid-output, the kind and line named); 'allow' stores it", async () => {
    const [kind, secret] = SHAPES[0];
    const storage = new InMemoryProfileStorage({ files: { [PATH]: STORED } });
    const model = async (r) => (r.purpose === 'gate' ? 'UPDATE' : answer([`- key ${secret}`]));
    const refuse = new m.ContextMemory({ storage, entries: new m.InMemoryEntryStore(), model, now: () => NOW }, { secrets: 'refuse' });
    const report = await refuse.afterTurn(turn);
    assert.equal(report.outcome, 'invalid-output');
    assert.equal(report.reason, `the answer holds a credential (${kind}) at line 5; the profile was kept`);
    assert.equal((await storage.read(PATH)).text, STORED);
    const error = await refuse.updateMyContextMemory('u1', `# User Memory\n\n## Identity\n- ${secret}\n`).then(() => null, (e) => e);
    assert.equal(error?.code, 'E_SECRET');
    assert.deepEqual(error.details, { field: 'body', path: 'line 4', kind });
    nowhere(secret, 'refuse', report, error.message);
    assert.equal((await storage.read(PATH)).text, STORED);
    const allow = new m.ContextMemory({ storage, entries: new m.InMemoryEntryStore(), model, now: () => NOW }, { secrets: 'allow' });
    assert.equal((await allow.afterTurn(turn)).redactedSecrets, 0);
    assert.ok((await storage.read(PATH)).text.includes(secret));
    assert.throws(() => new m.ContextMemory({ storage }, { secrets: 'mask' }), (e) => e.code === 'E_CONFIG' && e.details.path === 'secrets');
  });

  test('updateMyContextMemory redacts by default and reports how many', async () => {
    const storage = new InMemoryProfileStorage();
    const memory = new m.ContextMemory({ storage, now: () => NOW });
    const body = `# User Memory\n\n## Identity\n${SHAPES.map(([, shape]) => `- ${shape}`).join('\n')}\n`;
    const saved = await memory.updateMyContextMemory('u1', body);
    assert.equal(saved.redactedSecrets, SHAPES.length);
    const text = (await storage.read(PATH)).text;
    for (const [, , secret] of SHAPES) nowhere(secret, 'edit', text, saved);
    assert.equal(m.detectCredential(text).found, false);
  });
});

test('ordinary text is stored on every path: dates, named hashes, ids, e-mail, URLs, prose', async () => {
  const store = new m.InMemoryEntryStore();
  const tools = toolsFor(store);
  for (const [key, value] of Object.entries(ORDINARY)) {
    tools.newTurn();
    assert.match(await tools.call('rememberFact', { key, value, category: 'fact' }), /^✅ Remembered: /, key);
    const r = await m.upsertUserMemory(store, { userId: 'u2', key, value, visibility: 'global' }, { now: () => NOW, newId: counter(key) });
    assert.equal(r.outcome, 'stored', key);
  }
  const report = await m.persistLongTermProperties(store, Object.entries(ORDINARY).map(([name, value]) => ({ name, value })), { userId: 'u3', agentId: 'a', now: () => NOW, newId: counter('p') });
  assert.deepEqual(report.refused, []);
  assert.equal(await m.mergeProperties(store, 'u4', ORDINARY, { now: () => NOW, newId: counter('m') }), Object.keys(ORDINARY).length);
  const storage = new InMemoryProfileStorage();
  const memory = new m.ContextMemory({ storage, now: () => NOW });
  const saved = await memory.updateMyContextMemory('u1', `# User Memory\n\n## Identity\n${Object.values(ORDINARY).map((v) => `- ${v}`).join('\n')}\n`);
  assert.equal(saved.redactedSecrets, 0);
  for (const v of Object.values(ORDINARY)) assert.ok((await storage.read('user-memory/u1/memory.md')).text.includes(v), v);
});

test("the other entry policies: 'redact' stores [redacted] (a key that is a secret is still refused), 'allow' stores as given", async () => {
  for (const p of PLACES) {
    const store = new m.InMemoryEntryStore();
    const text = await toolsFor(store, { secrets: 'redact' }).call('rememberFact', { key: p.key, value: p.value, category: 'fact' });
    if (p.field === 'key') {
      assert.equal(text, '⚠️ Key looks like a credential; it was not stored.', p.label);
      assert.equal(store.size, 0, p.label);
      continue;
    }
    assert.match(text, /^✅ Remembered: /, p.label);
    const [entry] = await store.list('u1');
    assert.match(JSON.stringify(entry.value), /\[redacted\]/, p.label);
    nowhere(p.secret, p.label, text, entry);
    const open = new m.InMemoryEntryStore();
    assert.match(await toolsFor(open, { secrets: 'allow' }).call('rememberFact', { key: p.key, value: p.value, category: 'fact' }), /^✅ Remembered: /, p.label);
    assert.deepEqual((await open.list('u1'))[0].value, p.value, p.label);
  }
  assert.throws(() => m.parseUserMemoryConfig({ secrets: 'mask' }), (e) => e.code === 'E_CONFIG' && e.details.path === 'secrets');
});

test('importUserData restores the user’s own data as exported and names what the policy would have refused', async () => {
  const [kind, secret, part] = SHAPES[0];
  const source = new m.InMemoryEntryStore();
  await m.persistLongTermProperties(source, [{ name: 'city', value: 'Porto' }], { userId: 'u1', agentId: 'a', now: () => NOW, newId: () => 'e-city' });
  source.upsert({ id: 'e-key', userId: 'u1', key: 'openai', value: `key ${secret}`, category: 'fact', visibility: 'global', sourceAgentId: null, groupIds: [], createdAt: NOW, updatedAt: NOW });
  const storage = new InMemoryProfileStorage({ files: { 'user-memory/u1/memory.md': `# User Memory\n\n## Identity\n- ${secret}\n` } });
  const memory = new m.ContextMemory({ storage, now: () => NOW }, { secrets: 'allow' });
  const doc = await m.exportUserData('u1', { entries: source, memory, now: () => NOW });
  const target = new m.InMemoryEntryStore();
  const targetMemory = new m.ContextMemory({ storage: new InMemoryProfileStorage(), now: () => NOW });
  const report = await m.importUserData(doc, { entries: target, memory: targetMemory });
  assert.equal(report.entries, 2);
  assert.deepEqual(report.secrets, [
    { entryId: 'e-key', field: 'value', path: '', kind },
    { entryId: null, field: 'body', path: 'line 4', kind },
  ]);
  assert.deepEqual(await m.exportUserData('u1', { entries: target, memory: targetMemory, now: () => NOW }), doc);
  nowhere(part, 'import', report);
});

describe('one store object is wired everywhere it can serve', () => {
  test("the storage guide's SQLite recipe, copied, honours a restriction: the turn is restricted and the model never called", () => {
    const readme = readFileSync(join(repo, 'docs/guide/storage.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### Node + SQLite (embedded default)'));
    const snippet = /```js\n([\s\S]*?)```/.exec(section)[1].replace(/^const model = .*\n/m, ''); // the test's own model below
    assert.match(snippet, /new ContextMemory\(\{ storage: db, model \}\)/);
    // The script sits in the repository (where `memcore` resolves); it runs in an empty folder.
    const dir = mkdtempSync(join(tmpdir(), 'memcore-recipe-'));
    const scripts = mkdtempSync(join(repo, 'target', 'recipe-'));
    try {
      const work = [
        "import { setProcessingRestriction } from 'memcore';",
        "await db.write('user-memory/u1/memory.md', '# User Memory\\n\\n## Identity\\n- Ada\\n');",
        "await setProcessingRestriction(db, 'u1', true, { admin: true });",
        "const report = await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'I moved to Oslo', assistantMessage: 'ok' });",
        "console.log(JSON.stringify({ outcome: report.outcome, calls, text: (await db.read('user-memory/u1/memory.md')).text }));",
      ].join('\n');
      const script = join(scripts, 'recipe.mjs');
      const imports = snippet.split('\n').filter((l) => l.startsWith('import '));
      const rest = snippet.split('\n').filter((l) => !l.startsWith('import ')).join('\n');
      writeFileSync(script, `${imports.join('\n')}\n${work.split('\n')[0]}\nlet calls = 0;\nconst model = { async complete() { calls++; return 'UPDATE'; } };\n${rest.replace('// …\n', `${work.split('\n').slice(1).join('\n')}\n`)}`);
      const r = spawnSync(process.execPath, [script], { cwd: dir, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout.trim().split('\n').at(-1)), { outcome: 'restricted', calls: 0, text: '# User Memory\n\n## Identity\n- Ada\n' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(scripts, { recursive: true, force: true });
    }
  });

  test('a SQL storage serves the restriction check unless entries names another store', async () => {
    const db = await openSqlite(':memory:');
    const other = new m.InMemoryEntryStore();
    await m.setProcessingRestriction(db, 'u1', true, { admin: true, now: () => NOW, newId: () => 'flag' });
    const full = '# User Memory\n\n## Identity\n- Ada\n\n## Communication Preferences\n_(empty)_\n\n## Work Context\n_(empty)_\n\n## Skills & Expertise\n_(empty)_\n\n## Recent Topics\n_(empty)_\n\n## Follow-ups\n_(empty)_\n';
    const model = async (r) => (r.purpose === 'gate' ? 'UPDATE' : full);
    const turn = { userId: 'u1', enabled: true, userMessage: 'hi', assistantMessage: 'ok' };
    assert.equal((await new m.ContextMemory({ storage: db, model, now: () => NOW }).afterTurn(turn)).outcome, 'restricted');
    assert.equal((await new m.ContextMemory({ storage: db, entries: other, model, now: () => NOW }).afterTurn(turn)).outcome, 'updated');
    await db.close();
  });

  test('with no entry store at all the first turn logs one warning that the restriction cannot be checked', async () => {
    const logs = [];
    const memory = new m.ContextMemory({ storage: new InMemoryProfileStorage(), model: async (r) => (r.purpose === 'gate' ? 'NOOP' : 'NOOP'), now: () => NOW, log: (e) => logs.push(e) });
    for (let i = 0; i < 3; i++) await memory.afterTurn({ userId: `u${i}`, enabled: true, userMessage: 'hi', assistantMessage: 'ok' });
    const warnings = logs.filter((e) => e.event === 'memory.restriction.unchecked');
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0].level, 'warn');
    assert.match(warnings[0].fields.message, /cannot be checked/);
    const quiet = [];
    const withEntries = new m.ContextMemory({ storage: new InMemoryProfileStorage(), entries: new m.InMemoryEntryStore(), model: async () => 'NOOP', now: () => NOW, log: (e) => quiet.push(e) });
    await withEntries.afterTurn({ userId: 'u1', enabled: true, userMessage: 'hi', assistantMessage: 'ok' });
    assert.equal(quiet.filter((e) => e.event === 'memory.restriction.unchecked').length, 0);
  });

  test("load and afterTurn without enabled: disabled with reason 'enabled-missing' (false and null stay as they were)", async () => {
    const storage = new InMemoryProfileStorage({ files: { 'user-memory/u1/memory.md': '# User Memory\n' } });
    const memory = new m.ContextMemory({ storage, entries: new m.InMemoryEntryStore(), model: async () => 'UPDATE', now: () => NOW });
    const load = await memory.load({ userId: 'u1' });
    assert.deepEqual([load.outcome, load.reason], ['disabled', 'enabled-missing']);
    const turn = await memory.afterTurn({ userId: 'u1', userMessage: 'hi', assistantMessage: 'ok' });
    assert.deepEqual([turn.outcome, turn.reason], ['disabled', 'enabled-missing']);
    assert.equal((await memory.afterTurn({ userId: 'u1', enabled: null, userMessage: 'hi', assistantMessage: 'ok' })).reason, 'enabled-missing');
    const off = await memory.afterTurn({ userId: 'u1', enabled: false, userMessage: 'hi', assistantMessage: 'ok' });
    assert.deepEqual([off.outcome, off.reason], ['disabled', null]);
  });
});

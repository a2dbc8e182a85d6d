// Smoke test in workerd (the real Workers runtime, through miniflare): a Worker imports the
// installed package by name — resolved through the package's `workerd` export condition — and
// answers over HTTP on 127.0.0.1 by calling parseProfile.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createRequire } from 'node:module';
import { Miniflare } from 'miniflare';
import { getEncoding } from 'js-tiktoken';

const oracle = { o200k_base: getEncoding('o200k_base'), cl100k_base: getEncoding('cl100k_base') };

const require = createRequire(import.meta.url);
const pkgDir = join(require.resolve('memcore/package.json'), '..');
const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
const workerdEntry = manifest.exports['.'].workerd;

function packageModules(dir) {
  const modules = [];
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (statSync(file).isDirectory()) {
      modules.push(...packageModules(file));
      continue;
    }
    const path = `/app/node_modules/memcore/${relative(pkgDir, file)}`;
    if (name.endsWith('.js')) modules.push({ type: 'ESModule', path, contents: readFileSync(file, 'utf8') });
    else if (name.endsWith('.wasm')) modules.push({ type: 'CompiledWasm', path, contents: readFileSync(file) });
    else if (name.endsWith('.bin')) modules.push({ type: 'Data', path, contents: readFileSync(file) });
  }
  return modules;
}

const WORKER = `
import 'memcore/tokenizer/o200k_base';
import 'memcore/tokenizer/cl100k_base';
import { version, parseProfile, renderProfile, countTokens, InMemoryEntryStore, createMemoryTools, learnFromTurn, searchEpisodes, MemcoreError } from 'memcore';
export default {
  async fetch(request) {
    try {
      const text = request.method === 'POST' ? await request.text() : undefined;
      const parsed = parseProfile(text);
      const tools = createMemoryTools({ store: new InMemoryEntryStore(), userId: 'u1', agentId: 'worker' });
      const remembered = await tools.call('rememberFact', { key: 'city', value: 'Lisbon', category: 'fact' });
      // Learning in a Worker: one extraction (a scripted model), the turn kept as episodes.
      const store = new InMemoryEntryStore();
      const learned = await learnFromTurn({
        store, model: async () => '{"facts":[{"key":"dog_name","value":"Rex"}]}', userId: 'u1', agentId: 'worker', conversationId: 'c1',
        messages: [{ role: 'user', content: 'My dog is called Rex.' }, { role: 'assistant', content: 'Hello Rex!' }],
      });
      const episodes = await searchEpisodes(store, 'u1', 'what is my dog called');
      return Response.json({
        learned: learned.facts.map((f) => f.key + ':' + f.action).concat(learned.episodes.length + ' episodes'),
        episode: episodes[0]?.text,
        tokens: countTokens(text),
        cl100k: countTokens(text, { encoding: 'cl100k_base' }),
        remembered,
        recalled: await tools.call('recallMemories', {}),
        version: version(),
        headings: parsed.sections.map((s) => s.heading),
        diagnostics: parsed.diagnostics.map((d) => d.code),
        canonical: renderProfile(parsed),
      });
    } catch (error) {
      const code = error instanceof MemcoreError ? error.code : 'not a MemcoreError: ' + error;
      return Response.json({ error: code, version: version() }, { status: 400 });
    }
  },
};`;

let mf;
let url;

before(async () => {
  mf = new Miniflare({
    modulesRoot: '/app',
    modules: [
      { type: 'ESModule', path: '/app/worker.mjs', contents: WORKER },
      // What a bundler does for `import 'memcore'` under the `workerd` condition.
      { type: 'ESModule', path: '/app/memcore', contents: `export * from './node_modules/memcore/${workerdEntry.replace(/^\.\//, '')}';` },
      // … and for `import 'memcore/tokenizer/<encoding>'` (the tables are bundled only when imported).
      ...['o200k_base', 'cl100k_base'].map((name) => ({
        type: 'ESModule',
        path: `/app/memcore/tokenizer/${name}`,
        contents: `import '../../node_modules/memcore/${manifest.exports[`./tokenizer/${name}`].workerd.replace(/^\.\//, '')}';`,
      })),
      ...packageModules(pkgDir),
    ],
    host: '127.0.0.1',
    port: 0,
  });
  url = await mf.ready;
});

after(async () => {
  await mf?.dispose();
});

test('a Worker parses a profile with the package and answers over HTTP', async () => {
  assert.equal(url.hostname, '127.0.0.1');
  const text = '---\nuser_id: u1\nturn_count: 3\n---\n\n# User Memory\n\n## Identity\n- Ana, Lisbon\n';
  const response = await fetch(url, { method: 'POST', body: text });
  assert.equal(response.status, 200);
  const body = await response.json();
  assert.deepEqual(body.headings, ['Identity', 'Communication Preferences', 'Work Context', 'Skills & Expertise', 'Recent Topics', 'Follow-ups']);
  assert.match(body.canonical, /^---\nuser_id: u1\n/);
  assert.match(body.canonical, /## Identity\n- Ana, Lisbon\n/);
  // The tokenizer tables the Worker imported (Data modules), read when it first counted.
  assert.equal(body.tokens, oracle.o200k_base.encode(text, [], []).length);
  assert.equal(body.cl100k, oracle.cl100k_base.encode(text, [], []).length);
  assert.equal(body.remembered, '✅ Remembered: city = Lisbon [fact, self]');
  assert.equal(body.recalled, '• city = Lisbon [fact, self]');
  assert.deepEqual(body.learned, ['dog_name:added', '2 episodes']);
  assert.equal(body.episode, 'My dog is called Rex.');
});

test('bad input in a Worker is a MemcoreError and the instance keeps working', async () => {
  const bad = await fetch(url); // GET → parseProfile(undefined)
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).error, 'E_ARGUMENT');
  const good = await fetch(url, { method: 'POST', body: '## Follow-ups\n- call Bob\n' });
  assert.equal(good.status, 200);
});

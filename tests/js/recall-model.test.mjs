// End to end with the real model: all-MiniLM-L6-v2 (int8 ONNX, run locally by onnxruntime-web)
// behind the loopback OpenAI-compatible server (scripts/embeddings/server.mjs), reached through
// the bundled openAIEmbeddings adapter, on a real SQLite file. Facts are stored by the tools,
// searched by natural questions, injected by relevantMemories within its budget; an embedder
// outage leaves entries without vectors until reindexEmbeddings; erasure leaves no vector.
// Needs `scripts/setup.sh --model` (make test runs it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as m from 'memcore';
import { openAIEmbeddings } from 'memcore/adapters/openai';
import { openSqlite } from 'memcore/adapters/sqlite';
import { startEmbeddingServer } from '../../scripts/embeddings/server.mjs';

const MODEL = 'all-minilm-l6-v2-int8';
const FACTS = [
  ['dog_name', 'Rex, a golden retriever'],
  ['employer', 'Acme Corp, as a data engineer'],
  ['home_city', 'Lisbon'],
  ['favorite_color', 'teal'],
  ['allergies', 'peanuts and shellfish'],
  ['partner_name', 'Sam'],
  ['coffee_order', 'flat white with oat milk'],
  ['next_trip', 'Kyoto in April'],
];
const QUESTIONS = [
  ['what is my dog called', 'dog_name'],
  ['where do I work', 'employer'],
  ['which city do I live in', 'home_city'],
  ['Is the user allergic to anything?', 'allergies'],
  ['holiday plans', 'next_trip'],
  ['How does the user take their coffee?', 'coffee_order'],
];

let server, dir, store, embedder;
let clock = Date.parse('2026-12-01T10:00:00Z');
const now = () => new Date((clock += 1000));
let n = 0;
const newId = () => `r${String(++n).padStart(4, '0')}`;

before(async () => {
  server = await startEmbeddingServer();
  dir = mkdtempSync(join(tmpdir(), 'memcore-recall-'));
  store = await openSqlite(join(dir, 'memcore.db'));
  embedder = openAIEmbeddings({ baseURL: server.url, apiKey: 'local-test-key', model: MODEL });
});
after(async () => {
  store?.close?.();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const withVector = () => store.database.prepare('SELECT count(*) AS n FROM memcore_entries WHERE embedding IS NOT NULL AND embedding_model = ?').get(MODEL).n;

test('facts stored by the tools are found by natural questions', async () => {
  const events = [];
  const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'a1', config: { search: { mode: 'hybrid', limit: 3 } }, embedder, log: (e) => events.push(e), now, newId });
  for (const [key, value] of FACTS) {
    assert.match(await tools.call('rememberFact', { key, value, category: 'fact', visibility: 'global' }), /^✅ Remembered/);
    tools.newTurn();
  }
  assert.deepEqual(events, []);
  assert.equal(withVector(), FACTS.length);
  for (const [question, key] of QUESTIONS) {
    const first = (await tools.call('searchMemory', { query: question })).split('\n')[0];
    assert.ok(first.startsWith(`• ${key} = `), `${question} → ${first}`);
  }
  // The same questions find nothing in terms mode (SPEC §2.5 unchanged, one setting away).
  const terms = m.createMemoryTools({ store, userId: 'u1', agentId: 'a1', config: { search: { mode: 'terms' } } });
  assert.equal(await terms.call('searchMemory', { query: 'what is my dog called' }), "No memories matching 'what is my dog called' found.");
});

test('relevantMemories injects the answering fact within its budget', async () => {
  const relevant = await m.relevantMemories({ store, embedder, userId: 'u1', agentId: 'a1', query: 'Any idea what my dog is called?', maxTokens: 40 });
  assert.ok(relevant.section.startsWith('# Relevant memories\n• dog_name = Rex, a golden retriever [fact, global]'), relevant.section);
  assert.ok(relevant.tokens <= 40);
  assert.equal(relevant.tokens, m.countTokens(relevant.section));
});

test('an embedder outage never loses a write; reindexEmbeddings fills the vector in', async () => {
  const down = openAIEmbeddings({ baseURL: 'http://127.0.0.1:9/v1', model: MODEL, timeoutMs: 2000 });
  const events = [];
  const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'a1', config: { search: { mode: 'hybrid' } }, embedder: down, log: (e) => events.push(e), now, newId });
  assert.match(await tools.call('rememberFact', { key: 'car', value: 'a blue Toyota Corolla', category: 'fact', visibility: 'global' }), /^✅ Remembered/);
  assert.deepEqual(events.map((e) => e.event), ['memory.embedding.failed']);
  assert.ok(!JSON.stringify(events).includes('Toyota'), 'no value in the log');
  assert.equal(withVector(), FACTS.length);
  assert.equal((await tools.call('searchMemory', { query: 'car' })).split('\n')[0], '• car = a blue Toyota Corolla [fact, global]');
  assert.deepEqual(await m.reindexEmbeddings(store, embedder), { embedded: 1, missing: 0 });
  assert.equal(withVector(), FACTS.length + 1);
});

test('erasure leaves no vector', async () => {
  await m.eraseUserData('u1', { entries: store });
  assert.equal(store.database.prepare('SELECT count(*) AS n FROM memcore_entries WHERE embedding IS NOT NULL').get().n, 0);
  assert.equal(store.database.prepare('SELECT count(*) AS n FROM memcore_entries WHERE user_id = ?').get('u1').n, 0);
});

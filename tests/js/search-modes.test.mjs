// Search modes and embeddings (SPEC §8.2) through the package: the tools in ranked and hybrid
// mode, the host embedder (deadline, batching, every bad answer), vectors in the bundled
// in-memory store and in a plain JS store with the vector methods, reindexEmbeddings,
// relevantMemories, ContextMemory.load's entries, and REST/MCP search modes. The embedder is a
// deterministic fake (hashed words): the real model runs in tests/js/recall-model.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as m from 'memcore';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { as, startServer } from './fixtures/server-support.mjs';

const DIMS = 32;
const SYNONYMS = { pet: 'dog', pets: 'dog', puppy: 'dog', dogs: 'dog', retriever: 'dog', called: 'name', named: 'name' };
const dim = (word) => [...(SYNONYMS[word] ?? word)].reduce((h, c) => (h * 31 + c.codePointAt(0)) >>> 0, 7) % DIMS;

/** A deterministic embedder; `mode` switches it to a failure. */
function fakeEmbedder(model = 'hash-32') {
  const embedder = {
    model,
    dimensions: DIMS,
    maxBatch: 4,
    calls: [],
    mode: 'ok',
    async embed({ texts, purpose, signal }) {
      embedder.calls.push({ texts, purpose, hasSignal: signal instanceof AbortSignal });
      switch (embedder.mode) {
        case 'throw':
          throw new Error('embedding service down');
        case 'hang':
          return new Promise((resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
        case 'few':
          return { vectors: texts.slice(1).map(() => new Float32Array(DIMS).fill(1)) };
        case 'nan':
          return { vectors: texts.map(() => new Float32Array(DIMS).fill(Number.NaN)) };
        case 'infinity':
          return { vectors: texts.map(() => Array(DIMS).fill(Number.POSITIVE_INFINITY)) };
        case 'short':
          return { vectors: texts.map(() => new Float32Array(DIMS - 1).fill(1)) };
        case 'huge':
          // ~50 MB of numbers for one text.
          return { vectors: [Array.from({ length: 3_000_000 }, (_, i) => (i % 7) / 7)] };
        case 'shape':
          return { vectors: 'nope' };
        default:
          return {
            vectors: texts.map((t) => {
              const v = new Float32Array(DIMS);
              for (const w of t.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean)) v[dim(w)] += 1;
              return v;
            }),
            model,
          };
      }
    },
  };
  return embedder;
}

/** A plain JS store with the vector methods (vectors as Uint8Array, cleared when key/value change). */
class VectorJsStore {
  constructor() {
    this.entries = new Map();
    this.vectorsById = new Map();
  }
  list(userId) {
    return [...this.entries.values()].filter((e) => e.userId === userId).map((e) => structuredClone(e));
  }
  get(id) {
    return structuredClone(this.entries.get(id) ?? null);
  }
  upsert(entry) {
    const old = this.entries.get(entry.id);
    if (old && (old.key !== entry.key || JSON.stringify(old.value) !== JSON.stringify(entry.value))) this.vectorsById.delete(entry.id);
    this.entries.set(entry.id, structuredClone(entry));
  }
  delete(id) {
    this.vectorsById.delete(id);
    return this.entries.delete(id);
  }
  incrementAccess() {}
  vectors(userId, model) {
    return [...this.vectorsById.entries()]
      .filter(([id, v]) => this.entries.get(id)?.userId === userId && v.model === model)
      .map(([id, v]) => ({ id, vector: v.vector }));
  }
  putVectors(rows) {
    let n = 0;
    for (const row of rows) {
      assert.ok(row.vector instanceof Uint8Array, 'the store gets bytes');
      const e = this.entries.get(row.id);
      if (e && e.key === row.key && JSON.stringify(e.value) === JSON.stringify(row.value)) {
        this.vectorsById.set(row.id, { model: row.model, vector: row.vector });
        n += 1;
      }
    }
    return n;
  }
  unembedded({ model, userId, after, limit }) {
    return [...this.entries.values()]
      .filter((e) => (userId === undefined || e.userId === userId) && (after === undefined || e.id > after) && this.vectorsById.get(e.id)?.model !== model)
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .slice(0, limit);
  }
}

let clock = Date.parse('2026-12-01T10:00:00Z');
const now = () => new Date((clock += 1000));
let next = 0;
const newId = () => `e${String(++next).padStart(4, '0')}`;

const FACTS = [
  ['dog_name', 'Rex, a golden retriever'],
  ['favorite_color', 'teal'],
  ['employer', 'Acme Corp, as a data engineer'],
  ['home_city', 'Lisbon'],
];

async function toolsWith(store, mode, embedder, extra = {}) {
  const events = [];
  const tools = m.createMemoryTools({
    store,
    userId: 'u1',
    agentId: 'a1',
    config: { search: { mode } },
    embedder,
    log: (e) => events.push(e),
    now,
    newId,
    ...extra,
  });
  for (const [key, value] of FACTS) {
    const answer = await tools.call('rememberFact', { key, value, category: 'fact', visibility: 'global' });
    assert.match(answer, /^✅ Remembered/);
    tools.newTurn();
  }
  return { tools, events };
}

for (const [name, makeStore] of [
  ['the in-memory store', () => new m.InMemoryEntryStore()],
  ['a JS store with vector methods', () => new VectorJsStore()],
]) {
  test(`hybrid search finds by meaning, ranked by word forms, terms unchanged (${name})`, async () => {
    const store = makeStore();
    const embedder = fakeEmbedder();
    const { tools, events } = await toolsWith(store, 'hybrid', embedder);
    assert.deepEqual(events, []);
    const first = (await tools.call('searchMemory', { query: 'what is my pet called' })).split('\n')[0];
    assert.equal(first, '• dog_name = Rex, a golden retriever [fact, global]');
    assert.ok(embedder.calls.some((c) => c.purpose === 'query' && c.hasSignal));
    assert.ok(embedder.calls.some((c) => c.purpose === 'document' && c.texts[0] === 'dog_name: Rex, a golden retriever'));

    const ranked = m.createMemoryTools({ store, userId: 'u1', agentId: 'a1', config: { search: { mode: 'ranked' } } });
    assert.equal((await ranked.call('searchMemory', { query: 'dogs' })).split('\n')[0], '• dog_name = Rex, a golden retriever [fact, global]');
    // The default, auto, is ranked without an embedder; terms (the seeds' rule) is one setting away.
    const auto = m.createMemoryTools({ store, userId: 'u1', agentId: 'a1' });
    assert.equal((await auto.call('searchMemory', { query: 'dogs' })).split('\n')[0], '• dog_name = Rex, a golden retriever [fact, global]');
    const terms = m.createMemoryTools({ store, userId: 'u1', agentId: 'a1', config: { search: { mode: 'terms' } } });
    assert.equal(await terms.call('searchMemory', { query: 'dogs' }), "No memories matching 'dogs' found.");
    assert.equal(await terms.call('searchMemory', { query: 'dog name' }), '• dog_name = Rex, a golden retriever [fact, global]');
  const embedded = embedder.calls.length;
  assert.equal(await tools.call('searchMemory', { query: '?!' }), "No memories matching '?!' found.");
  assert.equal(embedder.calls.length, embedded, 'a query without terms is not embedded');
    assert.match(terms.definitions.openai.find((d) => d.function.name === 'searchMemory').function.description, /every word must occur/);
    assert.match(tools.definitions.openai.find((d) => d.function.name === 'searchMemory').function.description, /by meaning/);
  });

  test(`embedder failures never fail a write; reindexEmbeddings fills the gaps (${name})`, async () => {
    for (const mode of ['throw', 'hang', 'few', 'nan', 'infinity', 'short', 'huge', 'shape']) {
      const store = makeStore();
      const embedder = fakeEmbedder();
      embedder.mode = mode;
      const { tools, events } = await toolsWith(store, 'hybrid', embedder, { embedTimeoutMs: 50 });
      assert.equal((await m.listUserMemories(store, 'u1')).length, FACTS.length, mode);
      const failed = events.filter((e) => e.event === 'memory.embedding.failed');
      assert.equal(failed.length, FACTS.length, `${mode}: ${JSON.stringify(events)}`);
      assert.equal(failed[0].fields.code, 'E_HOST', mode);
      // Lexical search still answers, and says it ranked without vectors.
      assert.equal((await tools.call('searchMemory', { query: 'dog' })).split('\n')[0], '• dog_name = Rex, a golden retriever [fact, global]', mode);
      assert.ok(events.some((e) => e.event === 'memory.search.lexical-only'), mode);
      embedder.mode = 'ok';
      const report = await m.reindexEmbeddings(store, embedder, { userId: 'u1' });
      assert.deepEqual(report, { embedded: FACTS.length, missing: 0 }, mode);
      assert.equal((await tools.call('searchMemory', { query: 'my puppy' })).split('\n')[0], '• dog_name = Rex, a golden retriever [fact, global]', mode);
    }
  });
}

test('a model change never mixes vectors: searched lexically until reindexed', async () => {
  const store = new VectorJsStore();
  const v1 = fakeEmbedder('hash-v1');
  await toolsWith(store, 'hybrid', v1);
  const v2 = fakeEmbedder('hash-v2');
  const hybrid2 = m.createMemoryTools({ store, userId: 'u1', agentId: 'a1', config: { search: { mode: 'hybrid' } }, embedder: v2 });
  assert.equal(await hybrid2.call('searchMemory', { query: 'puppy' }), "No memories matching 'puppy' found.");
  assert.deepEqual(await m.reindexEmbeddings(store, v2), { embedded: FACTS.length, missing: 0 });
  assert.ok([...store.vectorsById.values()].every((v) => v.model === 'hash-v2'));
  assert.equal((await hybrid2.call('searchMemory', { query: 'puppy' })).split('\n')[0], '• dog_name = Rex, a golden retriever [fact, global]');
});

test('an embed answer is read the same whatever its form: Float32Array, Float64Array or numbers; past f32 or not a number is refused', async () => {
  // Values that f32 holds exactly, values it rounds (0.1, 1/3), the largest and smallest f32, -0.
  const base = [0.1, -1 / 3, 3.4028234663852886e38, -1.401298464324817e-45, -0, 0.5, 2, -7.25];
  const forms = {
    float32: () => Float32Array.from(base),
    float64: () => Float64Array.from(base),
    numbers: () => [...base],
    mixed: (i) => (i % 2 ? Float32Array.from(base) : [...base]),
  };
  const stored = {};
  for (const [name, make] of Object.entries(forms)) {
    const store = new VectorJsStore();
    for (const [i, [key, value]] of FACTS.entries()) store.upsert({ id: `w${i}`, userId: 'u1', key, value, category: 'fact', visibility: 'global', sourceAgentId: null, groupIds: [], sourceConversationId: null, conflicted: false, accessCount: 0, createdAt: '2026-12-01T10:00:00.000Z', updatedAt: '2026-12-01T10:00:00.000Z' });
    const embedder = { model: 'wire', dimensions: base.length, embed: async ({ texts }) => ({ vectors: texts.map((_, i) => make(i)) }) };
    assert.deepEqual(await m.reindexEmbeddings(store, embedder, { userId: 'u1' }), { embedded: FACTS.length, missing: 0 }, name);
    stored[name] = [...store.vectorsById.entries()].map(([id, v]) => [id, [...v.vector]]);
  }
  assert.deepEqual(stored.float64, stored.float32);
  assert.deepEqual(stored.numbers, stored.float32);
  assert.deepEqual(stored.mixed, stored.float32);
  // Refused, the entry left without a vector (a reported degradation, never a trap): a number
  // past the largest f32 (which Math.fround would round down to it), a numeric string, a NaN
  // inside a Float64Array, an Infinity inside a Float32Array.
  const bad = {
    'past f32': () => Float64Array.from([3.4028235e38, 1]),
    'numeric string': () => ['1', 2],
    'NaN in a Float64Array': () => Float64Array.from([Number.NaN, 1]),
    'Infinity in a Float32Array': () => Float32Array.from([Number.POSITIVE_INFINITY, 1]),
  };
  for (const [name, make] of Object.entries(bad)) {
    const store = new VectorJsStore();
    store.upsert({ id: 'b1', userId: 'u1', key: 'dog_name', value: 'Rex', category: 'fact', visibility: 'global', sourceAgentId: null, groupIds: [], sourceConversationId: null, conflicted: false, accessCount: 0, createdAt: '2026-12-01T10:00:00.000Z', updatedAt: '2026-12-01T10:00:00.000Z' });
    const embedder = { model: 'wire', dimensions: 2, embed: async ({ texts }) => ({ vectors: texts.map(make) }) };
    const report = await m.reindexEmbeddings(store, embedder, { userId: 'u1' });
    assert.equal(report.embedded, 0, name);
    assert.equal(report.missing, 1, name);
    assert.match(report.error, name === 'numeric string' ? /^embedder\.embed / : /^embedder\.embed answered a vector whose component 0 of vector 0 is not a finite number$/, `${name}: ${JSON.stringify(report)}`);
    assert.equal(store.vectorsById.size, 0, name);
  }
});

test('searchUserMemories, REST and MCP take the same modes', async () => {
  const store = new m.InMemoryEntryStore();
  const embedder = fakeEmbedder();
  await toolsWith(store, 'hybrid', embedder);
  assert.deepEqual(await m.searchUserMemories(store, 'u1', 'what is my pet called', { mode: 'terms' }), []);
  const hybrid = await m.searchUserMemories(store, 'u1', 'what is my pet called', { mode: 'hybrid', embedder, limit: 1 });
  assert.deepEqual(hybrid.map((e) => e.key), ['dog_name']);
  const ranked = await m.searchUserMemories(store, 'u1', 'colours and colors', { mode: 'ranked' });
  assert.deepEqual(ranked.map((e) => e.key), ['favorite_color']);
  await assert.rejects(m.searchUserMemories(store, 'u1', 'x', { mode: 'fuzzy' }), (e) => e.code === 'E_ARGUMENT');
  await assert.rejects(m.searchUserMemories(store, 'u1', 'x', { mode: 'ranked', limit: 0 }), (e) => e.code === 'E_ARGUMENT');

  const { createMemoryHandler } = await import('memcore/server');
  const handler = createMemoryHandler({ entries: store, embedder, authenticate: () => ({ userId: 'u1' }) });
  const get = async (query) => {
    const response = await handler(new Request(`http://localhost/usermemorystore/memories/u1/search?${query}`));
    return [response.status, await response.json()];
  };
  const [status, body] = await get('q=what+is+my+pet+called&mode=hybrid&limit=2');
  assert.equal(status, 200);
  assert.equal(body.entries[0].key, 'dog_name');
  assert.ok(body.entries.length <= 2);
  assert.deepEqual((await get('q=what+is+my+pet+called&mode=terms'))[1], { entries: [] });
  // The default, auto, is hybrid when the handler has an embedder.
  assert.equal((await get('q=what+is+my+pet+called'))[1].entries[0].key, 'dog_name');
  assert.equal((await get('q=x&mode=fuzzy'))[0], 400);
  assert.equal((await get('q=x&mode=ranked&limit=abc'))[0], 400);
  assert.equal((await get('q=x&mode=ranked&limit=0'))[0], 400);
});

test('relevantMemories: the visible entries most relevant to a message, never over maxTokens', async () => {
  const store = new m.InMemoryEntryStore();
  const embedder = fakeEmbedder();
  await toolsWith(store, 'hybrid', embedder);
  await m.upsertUserMemory(store, { userId: 'u1', key: 'secret_dog', value: 'hidden', visibility: 'self', sourceAgentId: 'other-agent' }, { now, newId });
  const base = { store, embedder, userId: 'u1', agentId: 'a1', query: 'tell me about my dog' };
  const all = await m.relevantMemories({ ...base, maxTokens: 1000 });
  assert.ok(all.section.startsWith('# Relevant memories\n• dog_name = Rex, a golden retriever [fact, global]'), all.section);
  assert.equal(all.tokens, m.countTokens(all.section));
  assert.ok(!all.entries.some((e) => e.key === 'secret_dog'), 'another agent’s self entry is never shown');
  for (const maxTokens of [0, 5, 12, 20, all.tokens]) {
    const cut = await m.relevantMemories({ ...base, maxTokens });
    assert.ok(cut.tokens <= maxTokens, `${maxTokens}: ${cut.tokens}`);
    assert.equal(cut.tokens, cut.section === '' ? 0 : m.countTokens(cut.section));
  }
  const lexical = await m.relevantMemories({ store, userId: 'u1', agentId: 'a1', query: 'dog', maxTokens: 100 });
  assert.equal(lexical.entries[0].key, 'dog_name');
  await assert.rejects(m.relevantMemories({ ...base }), (e) => e.code === 'E_ARGUMENT');
  await assert.rejects(m.relevantMemories({ ...base, maxTokens: 10, limit: 0 }), (e) => e.code === 'E_ARGUMENT');
});

test('ContextMemory.load gives the profile and the relevant entries in one call', async () => {
  const entries = new m.InMemoryEntryStore();
  const embedder = fakeEmbedder();
  await toolsWith(entries, 'hybrid', embedder);
  const storage = new InMemoryProfileStorage();
  const memory = new m.ContextMemory({ storage, entries, embedder });
  await memory.updateMyContextMemory('u1', '## Personal\n- Likes long walks\n');
  const loaded = await memory.load({ userId: 'u1', enabled: true, entries: { query: 'what is my pet called', maxTokens: 60, agentId: 'a1' } });
  assert.equal(loaded.outcome, 'loaded');
  assert.ok(loaded.relevant.section.startsWith('# Relevant memories\n• dog_name'), loaded.relevant.section);
  assert.ok(loaded.relevant.tokens <= 60);
  assert.ok(loaded.systemPromptSection.endsWith(`\n\n${loaded.relevant.section}`));
  const without = await memory.load({ userId: 'u1', enabled: true });
  assert.equal(without.relevant, undefined);
  assert.equal(loaded.systemPromptSection, `${without.systemPromptSection}\n\n${loaded.relevant.section}`);
  const off = await memory.load({ userId: 'u1', enabled: false, entries: { query: 'dog', maxTokens: 60, agentId: 'a1' } });
  assert.equal(off.systemPromptSection, '');
  assert.equal(off.relevant, undefined);
});

test('bad input: a 1 MB query, a bad embedder, bad vectors from a store', async () => {
  const store = new VectorJsStore();
  const embedder = fakeEmbedder();
  const { tools } = await toolsWith(store, 'hybrid', embedder);
  const huge = 'dog '.repeat(262_144);
  const answer = await tools.call('searchMemory', { query: huge });
  assert.ok(answer.startsWith('• dog_name'), answer.slice(0, 80));
  assert.ok(embedder.calls.at(-1).texts[0].length <= 8192, 'the query is cut before it is embedded');
  for (const bad of [{}, { model: 'x' }, { embed() {} }, { model: 7, embed() {} }, 'embedder']) {
    assert.throws(() => m.createMemoryTools({ store, userId: 'u1', agentId: 'a1', embedder: bad }), (e) => e.code === 'E_ARGUMENT' || e.code === 'E_CONFIG', JSON.stringify(bad));
  }
  assert.throws(() => m.createMemoryTools({ store, userId: 'u1', agentId: 'a1', embedder: { model: '', embed() {} } }), (e) => e.code === 'E_CONFIG');
  assert.throws(() => m.createMemoryTools({ store, userId: 'u1', agentId: 'a1', embedder: { model: 'm', dimensions: 0, embed() {} } }), (e) => e.code === 'E_CONFIG');
  // A store answering vectors that are not bytes: the search says why and ranks by words.
  const broken = new VectorJsStore();
  await toolsWith(broken, 'terms', undefined);
  broken.vectors = () => [{ id: 'x', vector: 'not bytes' }];
  const events = [];
  const hybrid = m.createMemoryTools({ store: broken, userId: 'u1', agentId: 'a1', config: { search: { mode: 'hybrid' } }, embedder, log: (e) => events.push(e) });
  assert.equal((await hybrid.call('searchMemory', { query: 'dog' })).split('\n')[0], '• dog_name = Rex, a golden retriever [fact, global]');
  assert.ok(events.some((e) => e.event === 'memory.search.lexical-only' && e.fields.code === 'E_HOST'), JSON.stringify(events));
  // The next call works.
  assert.match(await hybrid.call('rememberFact', { key: 'k', value: 'v', category: 'fact' }), /^✅ Remembered/);
});

test('MCP: upsert_user_memory stores the vector, search_user_memories takes mode and limit (official SDK client over HTTP)', async () => {
  const embedder = fakeEmbedder();
  const entries = new VectorJsStore();
  const s = await startServer({ entries, embedder });
  const client = new Client({ name: 'memcore-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${s.base}/mcp`), { requestInit: { headers: as('u1') } }));
  try {
    const call = async (name, args) => {
      const result = await client.callTool({ name, arguments: args });
      let json;
      try {
        json = JSON.parse(result.content[0].text);
      } catch {
        json = undefined;
      }
      return { isError: result.isError === true, json };
    };
    for (const [key, value] of FACTS) {
      assert.equal((await call('upsert_user_memory', { userId: 'u1', key, value, visibility: 'global' })).isError, false);
    }
    assert.equal(entries.vectorsById.size, FACTS.length, 'every upsert stored its vector');
    const hybrid = await call('search_user_memories', { userId: 'u1', query: 'what is my pet called', mode: 'hybrid', limit: 1 });
    assert.deepEqual(hybrid.json.entries.map((e) => e.key), ['dog_name']);
    const terms = await call('search_user_memories', { userId: 'u1', query: 'what is my pet called', mode: 'terms' });
    assert.deepEqual(terms.json.entries, []);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.find((t) => t.name === 'search_user_memories').inputSchema.properties.mode.enum, ['auto', 'terms', 'ranked', 'hybrid']);
    assert.equal((await call('search_user_memories', { userId: 'u1', query: 'x', mode: 'fuzzy' })).isError, true);
    assert.equal((await call('search_user_memories', { userId: 'u1', query: 'x', mode: 'ranked', limit: 0 })).isError, true);
  } finally {
    await client.close();
    await s.close();
  }
});

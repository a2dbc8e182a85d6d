// The exact ranks of the committed corpus (tests/vectors/search/embeddings.json, vectors made once
// by the real model) per search mode, replayed through the package on every store: the bundled
// in-memory store, a SQLite file, D1 (miniflare) and PostgreSQL. The expected ids are
// tests/vectors/search/ranks.json, written by tests/search_vectors.rs from the core itself, so
// Rust and JS and every store give the same answers. The vectors reach each store the real way:
// reindexEmbeddings with an embedder that answers the recorded vectors.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as m from 'memcore';
import { BACKENDS } from '../support/sql-backends.mjs';

const CORPUS = JSON.parse(readFileSync(new URL('../vectors/search/embeddings.json', import.meta.url), 'utf8'));
const RANKS = JSON.parse(readFileSync(new URL('../vectors/search/ranks.json', import.meta.url), 'utf8')).ranks;

const byText = new Map([...CORPUS.entries.map((e) => [e.text, e.vector]), ...CORPUS.queries.map((q) => [q.q, q.vector])]);
const recorded = {
  model: CORPUS.model,
  dimensions: CORPUS.dimensions,
  async embed({ texts }) {
    return { vectors: texts.map((t) => Float32Array.from(byText.get(t) ?? assert.fail(`no recorded vector for ${t}`))) };
  },
};

const ENTRIES = CORPUS.entries.map((e) => ({
  id: e.id,
  userId: 'u1',
  key: e.key,
  value: e.value,
  category: 'fact',
  visibility: 'global',
  sourceAgentId: null,
  groupIds: [],
  sourceConversationId: null,
  conflicted: false,
  accessCount: 0,
  createdAt: '2026-12-01T10:00:00.000Z',
  updatedAt: '2026-12-01T10:00:00.000Z',
}));

const STORES = {
  'in-memory': async () => {
    const store = new m.InMemoryEntryStore();
    for (const e of ENTRIES) store.upsert(e);
    return { store, stop: () => {} };
  },
};
for (const name of ['sqlite-file', 'd1', 'postgres']) {
  STORES[name] = async () => {
    const b = await BACKENDS[name]();
    await b.reset();
    await b.store.insertAll(ENTRIES);
    return { store: b.store, sql: b.sql, stop: () => b.stop() };
  };
}

for (const [name, open] of Object.entries(STORES)) {
  describe(`search ranks of the committed corpus: ${name}`, () => {
    let s;
    before(async () => {
      s = await open();
      const report = await m.reindexEmbeddings(s.store, recorded, { userId: 'u1' });
      assert.deepEqual(report, { embedded: ENTRIES.length, missing: 0 });
    });
    after(async () => s?.stop());

    for (const language of ['en', 'de', 'fr']) {
      test(`every query, every mode, search.language ${language}`, async () => {
        for (const { q } of CORPUS.queries) {
          for (const mode of ['terms', 'ranked', 'hybrid']) {
            const found = await m.searchUserMemories(s.store, 'u1', q, { mode, limit: 10, embedder: recorded, config: { search: { language } } });
            assert.deepEqual(found.map((e) => e.id), RANKS[language][q][mode], `${mode} ${JSON.stringify(q)}`);
          }
        }
      });
    }

    test('the tools answer in rank order; deleting entries removes their vectors', async () => {
      const tools = m.createMemoryTools({ store: s.store, userId: 'u1', agentId: 'a1', config: { search: { mode: 'hybrid', limit: 3 } }, embedder: recorded });
      const q = 'what is my dog called';
      const keys = RANKS.en[q].hybrid.slice(0, 3).map((id) => ENTRIES.find((e) => e.id === id).key);
      const answer = await tools.call('searchMemory', { query: q });
      assert.deepEqual(answer.split('\n').map((line) => line.slice(2, line.indexOf(' = '))), keys);
      if (!s.sql) return;
      const count = async () => Number((await s.sql('SELECT count(*) AS n FROM memcore_entries WHERE embedding IS NOT NULL'))[0].n);
      assert.equal(await count(), ENTRIES.length);
      assert.equal(await tools.call('forgetFact', { key: 'dog_name' }), '✅ Forgotten: dog_name');
      assert.equal(await count(), ENTRIES.length - 1);
      await m.eraseUserData('u1', { entries: s.store });
      assert.equal(await count(), 0, 'erasure leaves no vector');
    });
  });
}

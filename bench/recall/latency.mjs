// The latency half of the recall benchmark (memcore.mjs): one `searchUserMemories` call in `hybrid`
// and in `ranked` mode (limit 10) over 10,000 entries of one user on the in-memory store, SQLite (a
// WAL file) and PostgreSQL (a throwaway server on 127.0.0.1), and over 100,000 entries on SQLite
// and in memory, beside the plain JS reference (reference.mjs) on the same data in the same
// process. The query's embedding is not counted: a recorded embedder answers its vector from a
// Map. Candidates run interleaved, query by query, so the machine's noise hits them alike; each
// figure is the median of `samples` searches after `warmup` ones.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryEntryStore, reindexEmbeddings, searchUserMemories } from 'memcore';
import { openSqlite } from 'memcore/adapters/sqlite';
import { openPostgres } from 'memcore/adapters/postgres';
import { startPostgres } from '../../tests/support/postgres.mjs';
import { Bm25Index, entryText, fuse, rankByVector } from './reference.mjs';
import { prng } from '../../tests/support/prng.mjs';

const USER = 'u1';
const LIMIT = 10;
/** The seed of the 100,000-entry run's pseudo-random vectors. */
export const VECTOR_SEED = 21;

/**
 * An embedder that answers recorded vectors from a Map (text → vector) without a model: only
 * memcore is timed. An unknown text throws, which memcore reports as a failed embedding — the
 * caller's log catches it, so a search can never silently fall back to ranked.
 * @param {string} model the model id the stored vectors belong to
 * @param {Map<string, Float32Array>} vectors
 */
export function recordedEmbedder(model, vectors) {
  const dimensions = vectors.values().next().value?.length;
  return {
    model,
    dimensions,
    async embed({ texts }) {
      return {
        vectors: texts.map((t) => {
          const v = vectors.get(t);
          if (!v) throw new Error(`recordedEmbedder: no recorded vector for a ${t.length}-char text`);
          return v;
        }),
      };
    },
  };
}

/**
 * A log that records events, and `check()`, which throws on an embedding failure or a lexical
 * fallback: a hybrid search must never silently run as ranked.
 * @param {string} where named in the error
 */
export function strictLog(where) {
  const events = [];
  const log = (event) => void events.push(event);
  log.check = () => {
    const bad = events.filter((e) => e?.level === 'warn' || e?.level === 'error' || /embedding\.failed|lexical-only/.test(e?.event ?? ''));
    if (bad.length > 0) throw new Error(`${where}: unexpected log events ${JSON.stringify(bad.slice(0, 3))}`);
  };
  return log;
}


/** `count` deterministic pseudo-random unit vectors (Gaussian components by Box–Muller, normalised). */
export function randomUnitVectors(count, dims, seed = VECTOR_SEED) {
  const rand = prng(seed);
  return Array.from({ length: count }, () => {
    const v = new Float32Array(dims);
    let norm = 0;
    for (let i = 0; i < dims; i++) {
      v[i] = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
      norm += v[i] * v[i];
    }
    norm = Math.sqrt(norm);
    for (let i = 0; i < dims; i++) v[i] /= norm;
    return v;
  });
}

/**
 * Give every entry of `store` its vector the real way: `reindexEmbeddings` with an embedder that
 * answers the recorded vector of each entry's text (memcore quantizes them itself).
 */
async function storeVectors(store, model, entries, vectors) {
  const embedder = { ...recordedEmbedder(model, new Map(entries.map((e, i) => [entryText(e), vectors[i]]))), maxBatch: 256 };
  const report = await reindexEmbeddings(store, embedder, { userId: USER, embedTimeoutMs: 600_000 });
  if (report.embedded !== entries.length || report.missing !== 0) throw new Error(`reindexEmbeddings: ${JSON.stringify(report)}`);
}

/** Median of numbers. */
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/**
 * Time candidates interleaved: `warmup` queries each, then `samples` queries, each query run by
 * every candidate in a rotating order. Answers `ms` (median per candidate).
 * @param {{ name: string, fn: (q: string) => unknown }[]} candidates
 */
async function timeInterleaved(candidates, queries, { warmup, samples }) {
  for (let i = 0; i < warmup; i++) for (const c of candidates) await c.fn(queries[i % queries.length]);
  const times = candidates.map(() => []);
  for (let i = 0; i < samples; i++) {
    const q = queries[(warmup + i) % queries.length];
    for (let j = 0; j < candidates.length; j++) {
      const k = (i + j) % candidates.length;
      const t0 = performance.now();
      await candidates[k].fn(q);
      times[k].push(performance.now() - t0);
    }
  }
  return Object.fromEntries(candidates.map((c, i) => [c.name, median(times[i])]));
}

/** The reference over the same data: a BM25 index (built once, not timed) and f32 vectors. */
function referenceOf(entries, docVectors, queryVectors) {
  const index = new Bm25Index(entries.map((e) => ({ key: e.key, text: entryText(e) })));
  const docs = entries.map((e, i) => ({ key: e.key, vector: docVectors[i] }));
  return {
    lexical: (q) => index.search(q).slice(0, LIMIT),
    hybrid: (q) => fuse([index.search(q).map((r) => r.key), rankByVector(docs, queryVectors.get(q))]).slice(0, LIMIT),
  };
}

/** Search candidates of memcore over named stores, in one mode; each checks its log. */
function searchers(stores, mode, embedder) {
  return Object.entries(stores).map(([name, store]) => ({
    name: `${name} ${mode}`,
    fn: async (q) => {
      const log = strictLog(`${name} ${mode}`);
      const found = await searchUserMemories(store, USER, q, { mode, limit: LIMIT, embedder, log });
      log.check();
      return found;
    },
  }));
}

/** Every store answers the same keys for every query (checked before timing). */
async function sameAnswers(stores, queries, embedder) {
  for (const mode of ['hybrid', 'ranked']) {
    for (const q of queries) {
      const keys = await Promise.all(searchers(stores, mode, embedder).map(async (s) => (await s.fn(q)).map((e) => e.key).join(',')));
      if (new Set(keys).size !== 1) throw new Error(`${mode} answers differ across stores for ${JSON.stringify(q)}:\n${keys.join('\n')}`);
    }
  }
}

/**
 * A hybrid search right after a write to the user (the entry `touched` upserted again with a new
 * `updatedAt`: its key, value and vector stay): what the first search after a change costs —
 * for the SQL stores the search mirror is rebuilt (docs/reference/storage.md, "Search mirror"). Median of
 * `rounds` per store.
 */
async function afterWrite(stores, touched, queries, embedder, rounds = 5) {
  const out = {};
  for (const [name, store] of Object.entries(stores)) {
    const [search] = searchers({ [name]: store }, 'hybrid', embedder);
    const times = [];
    for (let i = 0; i < rounds; i++) {
      await store.upsert({ ...touched, updatedAt: `2026-11-${String(10 + i).padStart(2, '0')}T10:00:00.000Z` });
      const t0 = performance.now();
      await search.fn(queries[i % queries.length]);
      times.push(performance.now() - t0);
    }
    await store.upsert(touched);
    out[name] = median(times);
  }
  return out;
}

/** Time one data set over its stores and the reference: rows of the report. */
async function measure({ stores, size, vectors, embedder, reference, queries, warmup, samples, touched }) {
  await sameAnswers(stores, queries.slice(0, 10), embedder);
  const ref = { name: 'reference', fn: (q) => reference.hybrid(q) };
  const refLex = { name: 'reference lexical', fn: (q) => reference.lexical(q) };
  const hybrid = await timeInterleaved([...searchers(stores, 'hybrid', embedder), ref], queries, { warmup, samples });
  const ranked = await timeInterleaved([...searchers(stores, 'ranked', embedder), refLex], queries, { warmup, samples });
  const written = await afterWrite(stores, touched, queries, embedder);
  return Object.keys(stores).map((name) => ({
    store: name, size, vectors,
    hybridMs: hybrid[`${name} hybrid`], rankedMs: ranked[`${name} ranked`], afterWriteMs: written[name],
    refHybridMs: hybrid.reference, refLexicalMs: ranked['reference lexical'],
  }));
}

/**
 * The latency rows.
 * @param {{ model: string, entries: object[], docVectors: Float32Array[], queries: string[],
 *   queryVectors: Map<string, Float32Array>, bigFacts: () => { key: string, value: unknown }[],
 *   entriesOf: (facts: object[], idPrefix?: string) => object[], progress?: (line: string) => void,
 *   samples?: number, warmup?: number }} input `entries`/`docVectors`: the 10,000-entry corpus and
 *   its model vectors; `queries`: the held-out questions.
 */
export async function latencyReport({ model, entries, docVectors, queries, queryVectors, bigFacts, entriesOf, progress, samples = 40, warmup = 5 }) {
  const embedder = recordedEmbedder(model, queryVectors);
  const dir = mkdtempSync(join(tmpdir(), 'memcore-recall-bench-'));
  const server = await startPostgres({ database: 'memcore_recall' });
  const rows = [];
  const open = [];
  try {
    // 10,000 entries, the model's vectors, quantized by memcore in every store.
    const memory = new InMemoryEntryStore();
    for (const e of entries) memory.upsert(e);
    const sqlite = await openSqlite(join(dir, 'recall-10000.db'));
    open.push(sqlite);
    const postgres = await openPostgres(server.url);
    open.push(postgres);
    await sqlite.insertAll(entries);
    await postgres.insertAll(entries);
    for (const store of [memory, sqlite, postgres]) await storeVectors(store, model, entries, docVectors);
    await postgres.pool.query('ANALYZE');
    progress?.('latency: 10,000 entries stored in memory, SQLite and PostgreSQL');
    rows.push(...await measure({
      stores: { InMemoryEntryStore: memory, SQLite: sqlite, PostgreSQL: postgres }, size: entries.length, vectors: 'model',
      embedder, reference: referenceOf(entries, docVectors, queryVectors), queries, warmup, samples, touched: entries[0],
    }));

    // 100,000 entries, pseudo-random unit vectors (fixed seed): for latency only.
    const big = entriesOf(bigFacts(), 'b');
    const bigVectors = randomUnitVectors(big.length, docVectors[0].length);
    const bigSqlite = await openSqlite(join(dir, 'recall-100000.db'));
    open.push(bigSqlite);
    await bigSqlite.insertAll(big);
    const bigMemory = new InMemoryEntryStore();
    for (const e of big) bigMemory.upsert(e);
    for (const store of [bigSqlite, bigMemory]) await storeVectors(store, model, big, bigVectors);
    progress?.('latency: 100,000 entries stored in SQLite and in memory');
    rows.push(...await measure({
      stores: { SQLite: bigSqlite, InMemoryEntryStore: bigMemory }, size: big.length, vectors: `pseudo-random unit (seed ${VECTOR_SEED})`,
      embedder, reference: referenceOf(big, bigVectors, queryVectors), queries, warmup, samples, touched: big[0],
    }));
  } finally {
    for (const store of open) await store.close?.();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return { samples, warmup, queries: queries.length, rows };
}

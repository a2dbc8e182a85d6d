// Runs the plain JS reference (reference.mjs) over the recall corpus with the real local model
// behind the loopback server, and prints hit@1 / hit@5 / NDCG@10 per kind, for lexical only,
// vector only and hybrid, on the held-out half, the tune half and all questions.
//
//   node bench/recall/run-reference.mjs [--size 61|1000|10000] [--stem suffix|none] [--json] [--misses]
//
// Vectors are cached under target/embeddings-cache, so a size is embedded once per machine.

import { readFile } from 'node:fs/promises';
import { embedAll, startEmbeddingServer, DEFAULT_CACHE_DIR } from '../../scripts/embeddings/server.mjs';
import { MODEL_ID } from '../../scripts/embeddings/model.mjs';
import { distractors } from './distractors.mjs';
import { Bm25Index, entryText, fuse, rankByVector } from './reference.mjs';
import { summarize } from './metrics.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const corpus = JSON.parse(await readFile(new URL('./corpus.json', import.meta.url), 'utf8'));
const size = Number(option('--size', String(corpus.facts.length)));
const stem = option('--stem', 'suffix');
const facts = [
  ...corpus.facts,
  ...distractors(Math.max(0, size - corpus.facts.length), undefined, corpus.facts.map((f) => f.key)),
];


const started = performance.now();
const server = await startEmbeddingServer({ cacheDir: DEFAULT_CACHE_DIR });
const loaded = performance.now();
const docTexts = facts.map(entryText);
const docVectors = await embedAll(server.url, docTexts);
const docsEmbedded = performance.now();
const queryVectors = await embedAll(server.url, corpus.questions.map((q) => q.q));
const embedded = performance.now();
await server.close();

const index = new Bm25Index(facts.map((f, i) => ({ key: f.key, text: docTexts[i] })), { stem });
const docs = facts.map((f, i) => ({ key: f.key, vector: docVectors[i] }));
const runs = { lexical: [], vector: [], hybrid: [] };
let searchMs = 0;
corpus.questions.forEach((question, i) => {
  const t = performance.now();
  const lexical = index.search(question.q).map((r) => r.key);
  const vector = rankByVector(docs, queryVectors[i]);
  const hybrid = fuse([lexical, vector]);
  searchMs += performance.now() - t;
  for (const [mode, ranked] of Object.entries({ lexical, vector, hybrid })) {
    runs[mode].push({ ...question, ranked });
  }
});

const report = { size: facts.length, stem, model: MODEL_ID, modes: {} };
for (const [mode, results] of Object.entries(runs)) {
  report.modes[mode] = {
    heldout: summarize(results.filter((r) => r.split === 'heldout')),
    tune: summarize(results.filter((r) => r.split === 'tune')),
    all: summarize(results),
  };
}
report.timing = {
  loadMs: Math.round(loaded - started),
  embedDocsMs: Math.round(docsEmbedded - loaded),
  embedQueriesMs: Math.round(embedded - docsEmbedded),
  searchMsPerQuery: +(searchMs / corpus.questions.length).toFixed(3),
  server: server.stats,
};

if (args.includes('--json')) {
  console.log(JSON.stringify(report, null, 2));
} else {
  const pct = (x) => `${(x * 100).toFixed(0)}%`.padStart(5);
  console.log(`reference over ${report.size} entries, stemming: ${stem}, model ${MODEL_ID}`);
  for (const split of ['heldout', 'tune', 'all']) {
    console.log(`\n${split}: mode     kind         n  hit@1 hit@5 ndcg@10`);
    for (const mode of Object.keys(runs)) {
      for (const [kind, m] of Object.entries(report.modes[mode][split])) {
        console.log(`  ${mode.padEnd(8)} ${kind.padEnd(11)} ${String(m.n).padStart(3)} ${pct(m.hit1)} ${pct(m.hit5)} ${m.ndcg10.toFixed(3).padStart(7)}`);
      }
    }
  }
  console.log(`\ntiming: ${JSON.stringify(report.timing)}`);
  if (args.includes('--misses')) {
    for (const [mode, results] of Object.entries(runs)) {
      for (const r of results.filter((x) => !x.answers.includes(x.ranked[0]))) {
        console.log(`miss ${mode} ${r.kind} ${JSON.stringify(r.q)} → ${r.ranked.slice(0, 3).join(', ')} (want ${r.answers.join(', ')})`);
      }
    }
  }
}

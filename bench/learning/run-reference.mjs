// Runs the learning benchmark's plain JS reference (reference.mjs) over corpus.json — or a
// LongMemEval file — with the real local model behind the loopback server: every episode (one per
// message) and every question embedded, each question ranked over its haystack's episodes by BM25,
// by cosine and by their fusion, the episodes' sessions scored as LongMemEval scores them
// (recall_any@5, recall_all@5, ndcg@10, per question type and overall).
//
//   node bench/learning/run-reference.mjs [--corpus FILE] [--limit N] [--stem suffix|none] [--json] [--misses]
//
// --corpus: corpus.json (the default) or e.g. longmemeval_s.json; --limit: the first N questions
// only (a LongMemEval file holds 500, each over its own ~50 sessions: embedding all their messages
// on one core takes hours once, then the cache answers). Vectors are cached under
// target/embeddings-cache, keyed by model and text.

import { fileURLToPath } from 'node:url';
import { embedAll, startEmbeddingServer, DEFAULT_CACHE_DIR } from '../../scripts/embeddings/server.mjs';
import { MODEL_ID } from '../../scripts/embeddings/model.mjs';
import { loadCorpus, episodesOf } from './longmemeval.mjs';
import { EpisodeIndex, rankSessions, scored, summarize } from './reference.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const corpusPath = option('--corpus', fileURLToPath(new URL('./corpus.json', import.meta.url)));
const stem = option('--stem', 'suffix');
const limit = Number(option('--limit', 'Infinity'));


const started = performance.now();
const loaded = await loadCorpus(corpusPath);
const questions = loaded.questions.slice(0, limit);
const needed = new Set(questions.flatMap((q) => q.sessionIds));
const sessions = loaded.sessions.filter((s) => needed.has(s.id));
const episodes = episodesOf(sessions);
const bySession = new Map();
for (const e of episodes) {
  if (!bySession.has(e.sessionId)) bySession.set(e.sessionId, []);
  bySession.get(e.sessionId).push(e);
}
const parsed = performance.now();

// Every distinct non-empty text once (the server rejects empty input).
const texts = [...new Set([...episodes.map((e) => e.text), ...questions.map((q) => q.question)])].filter((t) => t.trim() !== '');
const server = await startEmbeddingServer({ cacheDir: DEFAULT_CACHE_DIR });
const modelLoaded = performance.now();
const vectors = new Map();
try {
  const made = await embedAll(server.url, texts);
  texts.forEach((t, i) => vectors.set(t, made[i]));
} finally {
  await server.close();
}
const embedded = performance.now();

// One index per distinct haystack (corpus.json: one for all questions).
const indexes = new Map();
const indexOf = (sessionIds) => {
  const key = sessionIds.join('\n');
  if (!indexes.has(key)) {
    const haystack = sessionIds.flatMap((id) => bySession.get(id) ?? []);
    indexes.set(key, new EpisodeIndex(haystack, haystack.map((e) => vectors.get(e.text) ?? null), { stem }));
  }
  return indexes.get(key);
};

const runs = { lexical: [], vector: [], hybrid: [] };
let searchMs = 0;
for (const q of questions) {
  const index = indexOf(q.sessionIds);
  const qv = vectors.get(q.question);
  const t = performance.now();
  const lexical = index.lexical(q.question);
  const vector = index.vector(qv);
  const hybrid = index.hybrid(q.question, qv);
  searchMs += performance.now() - t;
  for (const [mode, rankedEpisodes] of Object.entries({ lexical, vector, hybrid })) {
    runs[mode].push({ ...q, ranked: rankSessions(rankedEpisodes) });
  }
}

const report = {
  corpus: corpusPath,
  format: loaded.format,
  sessions: sessions.length,
  episodes: episodes.length,
  questions: questions.length,
  scoredQuestions: questions.filter(scored).length,
  stem,
  model: MODEL_ID,
  modes: {},
};
for (const [mode, results] of Object.entries(runs)) report.modes[mode] = summarize(results);
report.timing = {
  loadMs: Math.round(parsed - started),
  modelMs: Math.round(modelLoaded - parsed),
  embedMs: Math.round(embedded - modelLoaded),
  texts: texts.length,
  searchMsPerQuestion: +(searchMs / Math.max(1, questions.length)).toFixed(3),
  server: server.stats,
};

if (args.includes('--json')) {
  console.log(JSON.stringify(report, null, 2));
} else {
  const pct = (x) => `${(x * 100).toFixed(0)}%`.padStart(6);
  console.log(
    `reference over ${report.sessions} sessions, ${report.episodes} episodes, ${report.scoredQuestions} scored questions ` +
      `(${loaded.format}), stemming: ${stem}, model ${MODEL_ID}`,
  );
  console.log(`\nmode     question type                n  r_any@5 r_all@5 ndcg@10`);
  for (const mode of Object.keys(runs)) {
    for (const [type, m] of Object.entries(report.modes[mode])) {
      console.log(
        `${mode.padEnd(8)} ${type.padEnd(26)} ${String(m.n).padStart(4)} ${pct(m.recall_any5)}  ${pct(m.recall_all5)} ${m.ndcg10.toFixed(3).padStart(7)}`,
      );
    }
  }
  console.log(`\ntiming: ${JSON.stringify(report.timing)}`);
  if (args.includes('--misses')) {
    for (const [mode, results] of Object.entries(runs)) {
      for (const r of results.filter((x) => scored(x) && !x.answerSessionIds.some((a) => x.ranked.slice(0, 5).includes(a)))) {
        console.log(
          `miss@5 ${mode} ${r.type} ${r.id} ${JSON.stringify(r.question)} → ${r.ranked.slice(0, 5).join(', ')} (want ${r.answerSessionIds.join(', ')})`,
        );
      }
    }
  }
}

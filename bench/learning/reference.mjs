// The learning benchmark's plain JS reference: episode retrieval without memcore, and
// LongMemEval's session-level metrics. The recall benchmark's reference does the ranking (BM25 k1
// 1.2, b 0.75 with its tokenizer, stop list and suffix stripper; cosine over Float32Array; RRF
// k = 60), here over episode texts (one per user or assistant message) keyed `<sessionId>#<index>`.
// A session ranks where its first episode does (LongMemEval's turn-to-session evaluation).
//
// Metrics as LongMemEval's src/retrieval/eval_utils.py computes them, with binary relevance = the
// question's answer_session_ids: recall_any@k (some answer session in the first k), recall_all@k
// (all of them), ndcg@k (its DCG: rel₁ + Σᵢ₌₂ relᵢ / log2 i, so ranks 1 and 2 weigh alike — not
// the recall benchmark's 1 / log2(i + 1)). Questions without answer sessions and abstention ones
// (ids ending in _abs) are not scored, as LongMemEval's print_retrieval_metrics.py.

import { Bm25Index, fuse, rankByVector } from '../recall/reference.mjs';

/** Fused rankings use RRF with this k. */
export const RRF_K = 60;

/**
 * An episode's key.
 * @param {{ sessionId: string, index: number }} episode
 * @returns {string} `<sessionId>#<index>`
 */
export function episodeKey({ sessionId, index }) {
  return `${sessionId}#${index}`;
}

/** The session id of an episode key (or episode). */
export function sessionOf(episode) {
  if (typeof episode !== 'string') return episode.sessionId;
  const at = episode.lastIndexOf('#');
  return at < 0 ? episode : episode.slice(0, at);
}

/**
 * Episode retrieval over one haystack: lexical, vector and hybrid rankings of episode keys.
 * @example
 * const index = new EpisodeIndex(episodes, vectors); // vectors[i]: episodes[i]'s (optional)
 * index.hybrid('where do I live now?', queryVector) // ['s31#0', 's02#2', …]
 */
export class EpisodeIndex {
  /**
   * @param {{ sessionId: string, index: number, text: string }[]} episodes
   * @param {(Float32Array | null)[]} [vectors] one per episode (null: an empty text, never similar)
   * @param {{ stem?: 'suffix' | 'none' }} [options]
   */
  constructor(episodes, vectors = [], { stem = 'suffix' } = {}) {
    this.keys = episodes.map(episodeKey);
    this.bm25 = new Bm25Index(episodes.map((e, i) => ({ key: this.keys[i], text: e.text })), { stem });
    this.docs = vectors.length === 0 ? [] : episodes.map((_, i) => ({ key: this.keys[i], vector: vectors[i] ?? null }));
  }

  /** Keys of the episodes sharing a term with the query, by BM25 descending. */
  lexical(query) {
    return this.bm25.search(query).map((r) => r.key);
  }

  /** Every key by cosine with the query vector, best first (an episode without a vector last). */
  vector(queryVector) {
    const withVector = this.docs.filter((d) => d.vector);
    const without = this.docs.filter((d) => !d.vector).map((d) => d.key);
    return [...rankByVector(withVector, queryVector), ...without];
  }

  /** RRF (k = 60) of the lexical and the vector ranking. */
  hybrid(query, queryVector) {
    return fuse([this.lexical(query), this.vector(queryVector)], RRF_K);
  }
}

/**
 * Sessions in the order of their first episode in a ranking.
 * @param {(string | { sessionId: string })[]} rankedEpisodes episode keys or episodes, best first
 * @returns {string[]} session ids
 * @example rankSessions(['s02#3', 's01#0', 's02#1']) // ['s02', 's01']
 */
export function rankSessions(rankedEpisodes) {
  const seen = new Set();
  for (const e of rankedEpisodes) seen.add(sessionOf(e));
  return [...seen];
}

/**
 * 1 when some answer session is in the first `k`.
 * @param {string[]} ranked session ids, best first
 * @param {string[]} answers
 * @param {number} k
 * @returns {0 | 1}
 */
export function recallAny(ranked, answers, k) {
  const top = new Set(ranked.slice(0, k));
  return answers.some((a) => top.has(a)) ? 1 : 0;
}

/**
 * 1 when every answer session is in the first `k`.
 * @param {string[]} ranked session ids, best first
 * @param {string[]} answers
 * @param {number} k
 * @returns {0 | 1}
 */
export function recallAll(ranked, answers, k) {
  const top = new Set(ranked.slice(0, k));
  return answers.every((a) => top.has(a)) ? 1 : 0;
}

/** LongMemEval's DCG of binary gains: the first two ranks undiscounted, then 1 / log2(rank). */
function dcg(gains) {
  return gains.reduce((sum, g, i) => sum + (i === 0 ? g : g / Math.log2(i + 1)), 0);
}

/**
 * LongMemEval's NDCG@k with binary relevance (see the file's comment).
 * @param {string[]} ranked session ids, best first
 * @param {string[]} answers the relevant sessions (at least one)
 * @param {number} [k]
 * @returns {number} in [0, 1]
 * @example ndcgAt(['x', 'a'], ['a']) // 1 (rank 2 weighs as rank 1)
 * @example ndcgAt(['x', 'y', 'a'], ['a']) // 1 / log2(3) ≈ 0.631
 */
export function ndcgAt(ranked, answers, k = 10) {
  const relevant = new Set(answers);
  if (relevant.size === 0) throw new RangeError('ndcgAt: a question needs at least one answer session');
  const ideal = dcg(Array.from({ length: Math.min(relevant.size, k) }, () => 1));
  return dcg(ranked.slice(0, k).map((id) => (relevant.has(id) ? 1 : 0))) / ideal;
}

/**
 * The metrics of one question's session ranking.
 * @param {string[]} ranked session ids, best first
 * @param {string[]} answers
 */
export function scoreQuestion(ranked, answers) {
  return {
    recall_any5: recallAny(ranked, answers, 5),
    recall_all5: recallAll(ranked, answers, 5),
    ndcg5: ndcgAt(ranked, answers, 5),
    recall_any10: recallAny(ranked, answers, 10),
    recall_all10: recallAll(ranked, answers, 10),
    ndcg10: ndcgAt(ranked, answers, 10),
  };
}

/** Whether a question is scored (it has answer sessions and is no abstention). */
export function scored(question) {
  return !question.abstention && question.answerSessionIds.length > 0;
}

/**
 * Means of the metrics per question type and overall (`all`), over the scored questions.
 * @param {{ type: string, ranked: string[], answerSessionIds: string[], abstention?: boolean }[]} results
 *   one per question; `ranked`: session ids, best first
 * @returns {Record<string, { n: number, recall_any5: number, recall_all5: number, ndcg5: number, recall_any10: number, recall_all10: number, ndcg10: number }>}
 */
export function summarize(results) {
  const groups = new Map([['all', []]]);
  for (const r of results.filter(scored)) {
    const scores = scoreQuestion(r.ranked, r.answerSessionIds);
    if (!groups.has(r.type)) groups.set(r.type, []);
    groups.get(r.type).push(scores);
    groups.get('all').push(scores);
  }
  const out = {};
  const names = [...groups.keys()].filter((t) => t !== 'all').sort();
  for (const type of [...names, 'all']) {
    const rows = groups.get(type);
    const mean = (name) => (rows.length === 0 ? 0 : rows.reduce((s, r) => s + r[name], 0) / rows.length);
    out[type] = { n: rows.length };
    for (const name of ['recall_any5', 'recall_all5', 'ndcg5', 'recall_any10', 'recall_all10', 'ndcg10']) {
      out[type][name] = mean(name);
    }
  }
  return out;
}

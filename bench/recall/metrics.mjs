// Ranking metrics of the recall benchmark. Relevance is binary: a key is relevant when it is one of
// the question's answers.

/**
 * 1 when one of the first `k` ranked keys answers the question, else 0.
 * @param {string[]} ranked keys, best first
 * @param {string[]} answers the answering keys
 * @param {number} k
 * @returns {0 | 1}
 * @example hitAt(['dog_name', 'cat_name'], ['cat_name'], 1) // 0
 */
export function hitAt(ranked, answers, k) {
  const relevant = new Set(answers);
  return ranked.slice(0, k).some((key) => relevant.has(key)) ? 1 : 0;
}

/**
 * NDCG@k with binary gains: DCG of the ranking over the DCG of the ideal one (every answer first).
 * @param {string[]} ranked keys, best first
 * @param {string[]} answers the answering keys (at least one)
 * @param {number} [k]
 * @returns {number} in [0, 1]
 * @example ndcgAt(['x', 'dog_name'], ['dog_name']) // 1 / log2(3) ≈ 0.631
 */
export function ndcgAt(ranked, answers, k = 10) {
  const relevant = new Set(answers);
  if (relevant.size === 0) throw new RangeError('ndcgAt: a question needs at least one answer');
  let dcg = 0;
  ranked.slice(0, k).forEach((key, i) => {
    if (relevant.has(key)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(relevant.size, k); i++) ideal += 1 / Math.log2(i + 2);
  return dcg / ideal;
}

/**
 * Mean hit@1, hit@5 and NDCG@10 per kind and overall.
 * @param {{ kind: string, ranked: string[], answers: string[] }[]} results one per question
 * @returns {Record<string, { n: number, hit1: number, hit5: number, ndcg10: number }>} keyed by kind, plus `all`
 * @example summarize([{ kind: 'exact', ranked: ['dog_name'], answers: ['dog_name'] }]).all.hit1 // 1
 */
export function summarize(results) {
  const groups = new Map([['all', []]]);
  for (const r of results) {
    if (!groups.has(r.kind)) groups.set(r.kind, []);
    groups.get(r.kind).push(r);
    groups.get('all').push(r);
  }
  const out = {};
  for (const [kind, rs] of groups) {
    const mean = (f) => (rs.length === 0 ? 0 : rs.reduce((s, r) => s + f(r), 0) / rs.length);
    out[kind] = {
      n: rs.length,
      hit1: mean((r) => hitAt(r.ranked, r.answers, 1)),
      hit5: mean((r) => hitAt(r.ranked, r.answers, 5)),
      ndcg10: mean((r) => ndcgAt(r.ranked, r.answers, 10)),
    };
  }
  return out;
}

// The plain JS reference of the recall benchmark: what a competent engineer would write without
// memcore. BM25 (k1 1.2, b 0.75) over `key: value`, lowercased and split on every non-alphanumeric
// character, a small English stop list, and — `stem: 'suffix'`, the default — a tiny suffix
// stripper (-ies → -y, -sses → -ss, -es after s/x/z/ch/sh, -s, -ing, -ed, each only when three or
// more letters remain; `stem: 'none'` turns it off). No Snowball, no synonyms. Vectors: cosine over
// Float32Array. Hybrid: reciprocal rank fusion (k = 60) of the lexical ranking and the ranking of
// every entry by cosine.

/** A small English stop list (articles, pronouns, auxiliaries, prepositions, question words). */
export const STOP_WORDS = new Set(
  (
    'a an the and or but if of to in on at by for with about from into over as is are was were be ' +
    'been being am do does did has have had having i me my mine we our you your yours he him his she ' +
    'her it its they them their this that these those what which who whom whose when where why how ' +
    'can could should would will shall may might must not no so than too very just any some there ' +
    'here s t'
  ).split(' '),
);

/** The tiny suffix stripper (see the file's comment). */
export function stripSuffix(word) {
  const keep = (stem) => stem.length >= 3;
  if (word.endsWith('ies') && keep(word.slice(0, -3))) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (/(s|x|z|ch|sh)es$/.test(word) && keep(word.slice(0, -2))) return word.slice(0, -2);
  if (word.endsWith('ing') && keep(word.slice(0, -3))) return word.slice(0, -3);
  if (word.endsWith('ed') && keep(word.slice(0, -2))) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss') && keep(word.slice(0, -1))) return word.slice(0, -1);
  return word;
}

/**
 * The terms of a text: lowercase, split on non-alphanumerics, stop words dropped, suffixes stripped.
 * @param {string} text
 * @param {{ stem?: 'suffix' | 'none' }} [options]
 * @returns {string[]}
 * @example terms("What's my dog called?") // ['dog', 'call']
 */
export function terms(text, { stem = 'suffix' } = {}) {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '' && !STOP_WORDS.has(w))
    .map((w) => (stem === 'suffix' ? stripSuffix(w) : w));
}

/**
 * A BM25 index over documents `{ key, text }`.
 * @example
 * const index = new Bm25Index([{ key: 'dog_name', text: 'dog_name: Rex' }]);
 * index.search('dog') // [{ key: 'dog_name', score: … }]
 */
export class Bm25Index {
  /**
   * @param {{ key: string, text: string }[]} docs
   * @param {{ k1?: number, b?: number, stem?: 'suffix' | 'none' }} [options]
   */
  constructor(docs, { k1 = 1.2, b = 0.75, stem = 'suffix' } = {}) {
    this.k1 = k1;
    this.b = b;
    this.stem = stem;
    this.docs = docs.map(({ key, text }) => {
      const tf = new Map();
      const ts = terms(text, { stem });
      for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + 1);
      return { key, tf, length: ts.length };
    });
    this.df = new Map();
    for (const d of this.docs) for (const t of d.tf.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
    this.avgLength = this.docs.reduce((s, d) => s + d.length, 0) / Math.max(1, this.docs.length);
  }

  /**
   * Documents matching any query term, by BM25 score descending (ties by key).
   * @param {string} query
   * @returns {{ key: string, score: number }[]}
   */
  search(query) {
    const n = this.docs.length;
    const qs = [...new Set(terms(query, { stem: this.stem }))];
    const out = [];
    for (const d of this.docs) {
      let score = 0;
      for (const t of qs) {
        const f = d.tf.get(t);
        if (!f) continue;
        const df = this.df.get(t);
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * f * (this.k1 + 1)) / (f + this.k1 * (1 - this.b + (this.b * d.length) / this.avgLength));
      }
      if (score > 0) out.push({ key: d.key, score });
    }
    return out.sort((x, y) => y.score - x.score || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  }
}

/**
 * Cosine similarity of two vectors.
 * @param {Float32Array} a
 * @param {Float32Array} b
 * @returns {number}
 */
export function cosine(a, b) {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * Keys ranked by cosine with the query vector, best first (ties by key).
 * @param {{ key: string, vector: Float32Array }[]} docs
 * @param {Float32Array} query
 * @returns {string[]}
 */
export function rankByVector(docs, query) {
  return docs
    .map(({ key, vector }) => ({ key, score: cosine(vector, query) }))
    .sort((x, y) => y.score - x.score || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0))
    .map((r) => r.key);
}

/**
 * Reciprocal rank fusion: each key scores Σ 1 / (k + rank) over the rankings it is in (rank from 1).
 * @param {string[][]} rankings
 * @param {number} [k]
 * @returns {string[]} keys, best first (ties by key)
 * @example fuse([['a', 'b'], ['b', 'c']]) // ['b', 'a', 'c']
 */
export function fuse(rankings, k = 60) {
  const scores = new Map();
  for (const ranking of rankings) {
    ranking.forEach((key, i) => scores.set(key, (scores.get(key) ?? 0) + 1 / (k + i + 1)));
  }
  return [...scores]
    .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))
    .map(([key]) => key);
}

/**
 * The text an entry is embedded and indexed as: `key: value`, the value as tool answers print it.
 * @param {{ key: string, value: unknown }} fact
 * @returns {string}
 */
export function entryText({ key, value }) {
  return `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`;
}

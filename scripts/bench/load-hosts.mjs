// The stand-ins both servers of the load benchmark (scripts/bench/load.mjs) are given — the same
// functions, in each server's own process — and the texts the clients send. No memcore import:
// the plain server (plain-server.mjs) loads this module too, and its process must hold no memcore.
//
// - `embedder`: a deterministic hashed bag of words, 384 dimensions, unit length (memcore's
//   Embedder contract: `{ model, dimensions, maxBatch, embed({ texts, purpose }) → { vectors, model } }`).
//   Words that share a stem-ish prefix share dimensions, so a query finds related entries by "meaning".
// - `model`: an instant extraction model (behaviour §8.6): it answers the `extract` request with a
//   fixed JSON derived from the turn it is shown — the user message ends with `(ref c<i>-r<j>)`, and
//   the answer is two facts: `recent_topic` (the same key every turn: an update, so a version) and
//   `note_c<i>_r<j>` (a new key), both valued from that message. No marker: `{"facts":[]}`.
// - `benchTexts()`: real small talk from the chitchat-dataset when scripts/fetch-chitchat.sh has
//   fetched it (the first messages of 20–280 characters, in file order), else fixed sentences.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const DIMENSIONS = 384;
export const EMBED_MODEL = 'bench-bow-384';

function fnv1a(word) {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    h ^= word.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The words of a text: letters and digits, lower-cased. */
export function wordsOf(text) {
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w !== '');
}

/** One text's vector: each word adds to two dimensions, its first five letters to a third; unit length. */
export function embedText(text) {
  const v = new Float32Array(DIMENSIONS);
  for (const w of wordsOf(text)) {
    const h = fnv1a(w);
    v[h % DIMENSIONS] += 1;
    v[(h >>> 11) % DIMENSIONS] += 0.5;
    if (w.length > 5) v[fnv1a(w.slice(0, 5)) % DIMENSIONS] += 0.5;
  }
  let norm = 0;
  for (let i = 0; i < DIMENSIONS; i++) norm += v[i] * v[i];
  if (norm === 0) {
    v[0] = 1; // the contract: never all zero
    return v;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < DIMENSIONS; i++) v[i] /= norm;
  return v;
}

export const embedder = Object.freeze({
  model: EMBED_MODEL,
  dimensions: DIMENSIONS,
  maxBatch: 256,
  embed: async ({ texts }) => ({ vectors: texts.map(embedText), model: EMBED_MODEL }),
});

const MARKER = / \(ref c(\d+)-r(\d+)\)/;

/** The marker request `j` of client `i` puts at the end of its turn's user message. */
export const turnMarker = (i, j) => ` (ref c${i}-r${j})`;

/**
 * The instant extraction model: `(request) → text`. The turn's user message is found in the
 * prompt's `<user_message>` block (memcore's prompt and the plain server's have the same block).
 */
export async function model(request) {
  const prompt = typeof request === 'string' ? request : request?.user ?? '';
  if (request?.purpose !== undefined && request.purpose !== 'extract') return 'NOOP';
  const block = /<user_message>\n([\s\S]*?)\n<\/user_message>/.exec(prompt);
  const found = block && MARKER.exec(block[1]);
  if (!found) return '{"facts":[]}';
  const said = block[1].slice(0, found.index).trim();
  return JSON.stringify({
    facts: [
      { key: 'recent_topic', value: said.slice(0, 80), category: 'context' },
      { key: `note_c${found[1]}_r${found[2]}`, value: said.slice(0, 240), category: 'fact' },
    ],
  });
}

const FALLBACK = [
  'I just got back from a long hike in the mountains with my sister.',
  'We are thinking about adopting a dog, maybe a beagle or a small terrier.',
  'My favourite coffee is a flat white from the little place near the station.',
  'Work has been busy, we ship the new billing system next Friday.',
  'I started learning the piano again after ten years without practising.',
  'The train to the city was late again this morning, so I worked from home.',
  'Do you have any recommendations for a good science fiction novel?',
  'My daughter starts school in September and she is very excited about it.',
  'I am trying to eat less meat, mostly vegetarian during the week.',
  'We spent the weekend painting the kitchen a pale shade of green.',
  'I run every morning before work, usually about five kilometres by the river.',
  'My brother is moving to Tokyo for a job at a robotics company.',
  'The garden is full of tomatoes this year, more than we can eat.',
  'I prefer tea in the afternoon, green tea with a bit of honey.',
  'We are planning a trip to Portugal in the spring to visit friends in Porto.',
  'My doctor told me to take more breaks from the screen.',
  'I have been watching old movies from the seventies on weekends.',
  'Cycling to the office saves me almost an hour a day.',
  'Winter here is long and dark, so we light a lot of candles.',
  'I like cheese a bit too much, especially aged gouda.',
];

/** Where scripts/fetch-chitchat.sh puts the dataset (git-ignored). */
export const CHITCHAT = fileURLToPath(new URL('../../target/chitchat/dataset.json', import.meta.url));

/**
 * Up to `max` texts: chitchat-dataset messages of 20–280 characters in file order (whitespace
 * collapsed, `<` and `>` dropped so no text looks like a prompt tag), or the fixed sentences.
 * Resolves to `{ texts, source }`.
 */
export function benchTexts(max = 4000) {
  if (existsSync(CHITCHAT)) {
    const texts = [];
    const data = JSON.parse(readFileSync(CHITCHAT, 'utf8'));
    outer: for (const conversation of Object.values(data)) {
      for (const group of conversation.messages ?? []) {
        for (const u of group) {
          if (typeof u?.text !== 'string') continue;
          const t = u.text.replace(/[<>]/g, '').replace(/\s+/g, ' ').trim();
          if (t.length < 20 || t.length > 280) continue;
          texts.push(t);
          if (texts.length >= max) break outer;
        }
      }
    }
    if (texts.length >= 100) return { texts, source: `chitchat-dataset (${texts.length} messages)` };
  }
  return { texts: FALLBACK, source: `${FALLBACK.length} fixed sentences (scripts/fetch-chitchat.sh for real ones)` };
}

/** A keyword query from a text: its three longest words of 4+ letters (ties: first), in text order. */
export function queryOf(text) {
  const words = [...new Set(wordsOf(text))].filter((w) => w.length >= 4);
  const picked = new Set([...words].sort((a, b) => b.length - a.length || words.indexOf(a) - words.indexOf(b)).slice(0, 3));
  const q = words.filter((w) => picked.has(w)).join(' ');
  return q === '' ? wordsOf(text).slice(0, 3).join(' ') || 'hello' : q;
}

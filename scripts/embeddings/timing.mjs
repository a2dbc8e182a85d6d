// Measures the local model: load time, and time per text for batches of 1 and of 32 (short
// `key: value` texts like memcore's entries). Numbers depend on the machine; compare in one run.
//
//   node scripts/embeddings/timing.mjs [--rounds N]

import { loadModel } from './model.mjs';
import { distractors } from '../../bench/recall/distractors.mjs';

const i = process.argv.indexOf('--rounds');
const rounds = i >= 0 ? Number(process.argv[i + 1]) : 3;
const texts = distractors(32 * rounds, 7).map(({ key, value }) => `${key}: ${value}`);

const t0 = performance.now();
const model = await loadModel();
const loadMs = performance.now() - t0;
await model.embed(texts.slice(0, 4)); // warm-up

let t = performance.now();
for (const text of texts.slice(0, 16 * rounds)) await model.embed([text]);
const single = (performance.now() - t) / (16 * rounds);

t = performance.now();
for (let r = 0; r < rounds; r++) await model.embed(texts.slice(r * 32, r * 32 + 32));
const batched = (performance.now() - t) / (32 * rounds);

const tokens = texts.reduce((s, x) => s + model.countTokens(x), 0) / texts.length;
console.log(
  JSON.stringify({
    loadMs: Math.round(loadMs),
    msPerTextBatch1: +single.toFixed(1),
    msPerTextBatch32: +batched.toFixed(1),
    meanTokensPerText: +tokens.toFixed(1),
  }),
);

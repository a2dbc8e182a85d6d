// Makes tests/vectors/search/embeddings.json: the real model's vectors for a fixed small corpus and
// natural queries, replayed by the Rust and JS ranking tests (no model needed to run them).
//
//   node scripts/embeddings/make-vectors.mjs          (rewrites the file; needs setup.sh --model)
//   node scripts/embeddings/make-vectors.mjs --check  (fails when the file differs from the model)
//
// Components are rounded to 6 decimals. The entries' texts are `key: value`, the value as tool
// answers print it (strings raw, other values compact JSON).

import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { loadModel } from './model.mjs';

const OUT = fileURLToPath(new URL('../../tests/vectors/search/embeddings.json', import.meta.url));

const ENTRIES = [
  ['dog_name', 'Rex, a golden retriever'],
  ['cat_name', 'Miso'],
  ['home_city', 'Lisbon'],
  ['employer', 'Northwind Logistics'],
  ['job_title', 'data engineer'],
  ['favorite_color', 'green'],
  ['partner_name', 'Maya'],
  ['children', ['Leo', 'Ana']],
  ['allergies', ['peanuts']],
  ['coffee_order', 'flat white, oat milk'],
  ['birthday', 'November 3'],
  ['birth_year', 1988],
  ['phone_model', 'Pixel 8'],
  ['car', { make: 'Renault', model: 'Zoe', year: 2018 }],
  ['diet', 'vegetarian'],
  ['next_trip', 'Kyoto in October'],
  ['instrument', 'cello'],
  ['doctor_name', 'Dr. Ines Carvalho'],
  ['monthly_rent', 1350],
  ['work_from_home', true],
  ['favorite_author', 'Ursula K. Le Guin'],
  ['running_goal', 'half marathon under 2 hours'],
  ['friend_ana_city', 'Porto'],
  ['dog_walker', 'Carlos, weekdays at noon'],
  ['preferred_language', 'English'],
  ['lieblingsessen', 'Käsespätzle mit Röstzwiebeln'],
  ['ville_natale', "Lyon, où j'ai grandi"],
  ['sleep_schedule', 'bed by 23:00'],
  ['bank', 'ActivoBank'],
  ['wifi_provider', 'MEO fibre'],
];

const QUERIES = [
  ['what is my dog called', ['dog_name']],
  ['which city do I live in', ['home_city']],
  ['where do I work', ['employer']],
  ['pet', ['dog_name', 'cat_name']],
  ['colour', ['favorite_color']],
  ['dogs', ['dog_name']],
  ['kids', ['children']],
  ['Is the user allergic to anything?', ['allergies']],
  ['How does the user take their coffee?', ['coffee_order']],
  ['When was the user born?', ['birthday', 'birth_year']],
  ['What does the user drive?', ['car']],
  ['Does the user eat meat?', ['diet']],
  ['holiday plans', ['next_trip']],
  ['physician', ['doctor_name']],
  ['how much is the rent', ['monthly_rent']],
  ['Does the user work remotely?', ['work_from_home']],
  ['writer the user likes', ['favorite_author']],
  ['What time does the user go to bed?', ['sleep_schedule']],
  ['Was isst der Nutzer am liebsten?', ['lieblingsessen']],
  ["Dans quelle ville l'utilisateur a-t-il grandi ?", ['ville_natale']],
];

const text = (key, value) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`;
const round = (v) => Array.from(v, (x) => Number(x.toFixed(6)) || 0);

const model = await loadModel();
const entryVectors = await model.embed(ENTRIES.map(([k, v]) => text(k, v)));
const queryVectors = await model.embed(QUERIES.map(([q]) => q));

const head = {
  about:
    "The real model's vectors for a fixed corpus and natural queries (issue 21), replayed by the " +
    'ranking tests of every mode. Each vector is the f32 embedding (mean-pooled, L2-normalised) ' +
    'rounded to 6 decimals; the core quantizes it to i8 as any host vector. answers: the keys that ' +
    'answer the query. Entries e26 (German) and e27 (French) are for search.language de / fr.',
  madeBy: 'node scripts/embeddings/make-vectors.mjs (after scripts/setup.sh --model); do not edit by hand',
  model: model.model,
  dimensions: model.dimensions,
};
const entries = ENTRIES.map(([key, value], i) => ({
  id: `e${String(i + 1).padStart(2, '0')}`,
  key,
  value,
  text: text(key, value),
  vector: round(entryVectors[i]),
}));
const queries = QUERIES.map(([q, answers], i) => ({ q, answers, vector: round(queryVectors[i]) }));

const lines = ['{'];
for (const [k, v] of Object.entries(head)) lines.push(`  ${JSON.stringify(k)}: ${JSON.stringify(v)},`);
lines.push('  "entries": [');
entries.forEach((e, i) => lines.push(`    ${JSON.stringify(e)}${i < entries.length - 1 ? ',' : ''}`));
lines.push('  ],');
lines.push('  "queries": [');
queries.forEach((q, i) => lines.push(`    ${JSON.stringify(q)}${i < queries.length - 1 ? ',' : ''}`));
lines.push('  ]', '}');
const made = `${lines.join('\n')}\n`;

if (process.argv.includes('--check')) {
  const committed = await readFile(OUT, 'utf8');
  if (committed !== made) {
    console.error(`${OUT} differs from what the model makes now; rerun without --check and review`);
    process.exit(1);
  }
  console.log('embeddings.json matches the model');
} else {
  await writeFile(OUT, made);
  console.log(`wrote ${OUT} (${made.length} bytes)`);
}

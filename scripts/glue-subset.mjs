// Checks that one wasm-bindgen glue can drive two builds of the core: every line of the smaller
// build's glue (the profile-only core, built without the `entry-memory` feature) must appear in
// the full build's glue, in the same order. The profile-only glue is then the full glue with whole
// functions left out — the same imports (named after their shims' code), the same internal
// exports, the same conversions — so the full glue, shipped once, runs either module; the
// functions it has beyond the module's exports are completed by scripts/package.mjs.
//   node scripts/glue-subset.mjs <smaller glue> <full glue>
import { readFileSync } from 'node:fs';

const [smallerPath, fullPath] = process.argv.slice(2);
const smaller = readFileSync(smallerPath, 'utf8').split('\n');
const full = readFileSync(fullPath, 'utf8').split('\n');
let at = 0;
for (let i = 0; i < smaller.length; i++) {
  // Greedy: the earliest match keeps the most of `full` for the lines after (exact for subsequences).
  while (at < full.length && full[at] !== smaller[i]) at++;
  if (at === full.length) {
    console.error(`glue-subset: line ${i + 1} of ${smallerPath} is not in ${fullPath} after the lines before it:\n  ${smaller[i]}`);
    console.error('The two builds need glue of their own: ship the second glue and give memcore/slim a way to pick it.');
    process.exit(1);
  }
  at++;
}
console.log(`glue-subset: ${smallerPath} (${smaller.length} lines) is a subsequence of ${fullPath} (${full.length} lines)`);

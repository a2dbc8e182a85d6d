// Token counting side by side: memcore vs gpt-tokenizer vs tiktoken (npm, wasm), o200k_base.
//   node scripts/bench/tokens.mjs      (after scripts/build.sh && scripts/install-package.sh)
import { execFileSync } from 'node:child_process';
import { countTokens } from 'memcore';
import { countTokens as gptCount } from 'gpt-tokenizer/encoding/o200k_base';
import { get_encoding } from 'tiktoken';
import { profileOfSize, mixedText, variants, cycle } from './texts.mjs';
import { compare, fmtTime } from './harness.mjs';

const tiktoken = get_encoding('o200k_base');

/** Rows for the bench table: [measurement, memcore, gpt-tokenizer, tiktoken, ratio]. */
export function tokenRows() {
  const rows = [];
  const profile = profileOfSize(8704);
  const counts = [countTokens(profile), gptCount(profile), tiktoken.encode(profile).length];
  if (new Set(counts).size !== 1) throw new Error(`counts disagree: ${counts}`);
  // 320 variants, so no count comes from memcore's memo of recent texts (texts.mjs, `variants`).
  const [pa, pb, pc] = [cycle(variants(profile)), cycle(variants(profile)), cycle(variants(profile))];
  const [a, b, c] = compare([{ fn: () => countTokens(pa()) }, { fn: () => gptCount(pb()) }, { fn: () => tiktoken.encode(pc()).length }]);
  rows.push([`count, 8.5 KB profile (${counts[0]} tokens), per call`, fmtTime(a), fmtTime(b), fmtTime(c), `${(b / a).toFixed(2)}×`]);

  const big = mixedText(1 << 20);
  const [ba, bb, bc] = compare([{ fn: () => countTokens(big) }, { fn: () => gptCount(big) }, { fn: () => tiktoken.encode(big).length }], { rounds: 3, ms: 300 });
  const mbps = (us) => `${(1 / (us / 1e6)).toFixed(1)} MB/s`;
  rows.push(['throughput, 1 MB mixed text', mbps(ba), mbps(bb), mbps(bc), `${(bb / ba).toFixed(2)}×`]);

  // One long pre-tokenizer piece: BPE merges it pair by pair. memcore's merge is linear (a bucket
  // queue by rank); the others rescan, so their time grows with the square of the run.
  // 320 runs (5 MB): more than memcore's memo of recent texts holds.
  const runs = Array.from({ length: 320 }, (_, i) => 'x'.repeat(16384 - i));
  const runCounts = [countTokens(runs[0]), gptCount(runs[0]), tiktoken.encode(runs[0]).length];
  if (new Set(runCounts).size !== 1) throw new Error(`run counts disagree: ${runCounts}`);
  const [ra, rb, rc] = [cycle(runs), cycle(runs), cycle(runs)];
  const [la, lb, lc] = compare([{ fn: () => countTokens(ra()) }, { fn: () => gptCount(rb()) }, { fn: () => tiktoken.encode(rc()).length }], { rounds: 1, ms: 50 });
  rows.push([`count, a 16 KB run of one letter (${runCounts[0]} tokens)`, fmtTime(la), fmtTime(lb), fmtTime(lc), `${(lb / la).toFixed(0)}×`]);

  const init = (lib) => {
    const runs = Array.from({ length: 10 }, () => Number(execFileSync(process.execPath, [new URL('./init-time.mjs', import.meta.url).pathname, lib], { encoding: 'utf8' }).trim()));
    return runs.sort((x, y) => x - y)[5];
  };
  const [ia, ib, ic] = ['memcore', 'gpt-tokenizer', 'tiktoken'].map(init);
  rows.push([`cold start: import + first count, median of 10 processes (target ≤ 40 ms: ${ia <= 40 ? 'met' : '**not met**'})`, `${ia.toFixed(1)} ms`, `${ib.toFixed(1)} ms`, `${ic.toFixed(1)} ms`, `${(ib / ia).toFixed(2)}×`]);
  const ip = init('memcore-profile');
  rows.push(['the same on the profile-only core (memcore/slim, the core and the table read from their files)', `${ip.toFixed(1)} ms`, '—', '—', `${(ib / ip).toFixed(2)}×`]);
  return rows;
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const { printTable } = await import('./harness.mjs');
  printTable(['o200k_base', 'memcore', 'gpt-tokenizer', 'tiktoken (npm)', 'gpt-tokenizer / memcore'], tokenRows());
}

// The bench command: side-by-side measurements in one run. Read the ratios; absolute numbers move
// with the machine's load. Each table compares candidates interleaved in the same process.
import { readFileSync } from 'node:fs';
import { version, parseProfile, renderProfile, countTokens, fitProfile } from 'memcore';
import { compare, compareAsync, fmtTime, printTable } from './bench/harness.mjs';
import { profileOfSize, variants, cycle } from './bench/texts.mjs';
import { fairRows } from './bench/fair.mjs';
import { REAL_TURN_HEADER, realTurnRows } from './bench/turn-real.mjs';
import { tokenRows } from './bench/tokens.mjs';
import { entryRows } from './bench/entries.mjs';
import { turnRows } from './bench/turn.mjs';
import { dreamRows } from './bench/dream.mjs';
import { storeRows } from './bench/stores.mjs';
import { historyRows } from './bench/history.mjs';
import { manyUsersRows } from './bench/many-users.mjs';
import { OWNERSHIP_HEADER, ownershipRows } from './bench/ownership.mjs';
import { tenantRows } from './bench/tenants.mjs';
import { operatorPageRows } from './bench/operator-pages.mjs';
import { TELEMETRY_HEADER, telemetryRows } from './bench/telemetry.mjs';
import { ALONE_HEADER, KIND_HEADER, LOAD_HEADER, loadRows, loadTitle } from './bench/load.mjs';
import { recallBench, reportTables, DEFAULT_JSON as RECALL_JSON } from '../bench/recall/memcore.mjs';
import { learningBench, reportTables as learningTables, DEFAULT_JSON as LEARNING_JSON } from '../bench/learning/memcore.mjs';

const sizes = JSON.parse(readFileSync(new URL('../target/wasm-size.json', import.meta.url), 'utf8'));
const tableSize = (name) => {
  const raw = readFileSync(new URL(`../pkg/tokenizer/${name}.bin`, import.meta.url));
  return raw.length;
};
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

console.log(`memcore ${version()} bench — node ${process.version}, ${new Date().toISOString().slice(0, 10)}\n`);

console.log('## Package size\n');
const { gzipSync } = await import('node:zlib');
const gz = (name) => gzipSync(readFileSync(new URL(`../pkg/tokenizer/${name}.bin`, import.meta.url)), { level: 9 }).length;
printTable(['part', 'raw', 'gzip', 'brotli'], [
  ['core wasm (memcore_bg.wasm)', kib(sizes.raw), kib(sizes.gzip), kib(sizes.brotli)],
  ['profile-only core (memcore_profile_bg.wasm, memcore/slim)', kib(sizes.profile.raw), kib(sizes.profile.gzip), kib(sizes.profile.brotli)],
  ['tokenizer table o200k_base.bin', kib(tableSize('o200k_base')), kib(gz('o200k_base')), '—'],
  ['tokenizer table cl100k_base.bin', kib(tableSize('cl100k_base')), kib(gz('cl100k_base')), '—'],
]);

console.log(`\nThe core wasm was 314.1 KiB gzip before the boundary redesign (issue 9's baseline).`);
// The size targets per core, as issue 45 decided issue 25's: the full core ≤ 580 KiB gzip (also
// the packaging test's ceiling, tests/packaging/server.test.mjs), the profile-only core ≤ 350.
const target = (gzip, limit) => `${kib(gzip)} gzip, target ≤ ${limit} KiB: ${gzip <= limit * 1024 ? 'met' : '**not met**'}`;
console.log(`Full core ${target(sizes.gzip, 580)}; profile-only core ${target(sizes.profile.gzip, 350)}.`);

console.log('\n## Against the JavaScript a competent team would write (scripts/bench/reference.mjs)\n');
printTable(['work', 'memcore', 'competent JS', 'JS / memcore', 'target', 'met'], await fairRows());
console.log('\n## The turn on real text, against the lean JS turn and the reference (scripts/bench/turn-real.mjs)\n');
printTable(REAL_TURN_HEADER, await realTurnRows());

console.log('\n## Bytes per scenario (what a page downloads; tables load on first use)\n');
{
  const pkgFile = (f) => readFileSync(new URL(`../pkg/${f}`, import.meta.url));
  // The JS a browser loads through the browser entry: every module it imports, transitively.
  const seen = new Set();
  const walk = (f) => {
    if (seen.has(f)) return;
    seen.add(f);
    const src = pkgFile(f).toString('utf8');
    for (const [, rel] of src.matchAll(/(?:import|export)[^'"]*?from\s*['"](\.[^'"]+)['"]/g)) walk(new URL(rel, `file:///${f}`).pathname.slice(1));
  };
  walk('browser.js');
  const jsFiles = [...seen];
  const sum = (files, zip) => files.reduce((n, f) => n + (zip ? gzipSync(pkgFile(f), { level: 9 }).length : pkgFile(f).length), 0);
  const scenario = (label, extra) => {
    const files = [...jsFiles, 'wasm/memcore_bg.wasm', ...extra];
    return [label, kib(sum(files, false)), kib(sum(files, true)), String(files.length)];
  };
  printTable(['scenario (browser entry)', 'raw', 'gzip', 'files'], [
    scenario('parse, render, entry tools (no counting)', []),
    scenario('+ counting with o200k_base', ['tokenizer/o200k_base.bin']),
    scenario('+ both encodings', ['tokenizer/o200k_base.bin', 'tokenizer/cl100k_base.bin']),
  ]);
  for (const group of ['browser', 'server']) {
    const file = new URL(`../target/packaging/${group}-sizes.json`, import.meta.url);
    try {
      const sizes = JSON.parse(readFileSync(file, 'utf8'));
      console.log(`\nMeasured by the ${group} packaging tests (target/packaging/${group}-sizes.json):\n`);
      console.log('```\n' + JSON.stringify(sizes, null, 2) + '\n```');
    } catch {}
  }
}

console.log('\n## Token counting (o200k_base)\n');
printTable(['measurement', 'memcore', 'gpt-tokenizer', 'tiktoken (npm)', 'gpt-tokenizer / memcore'], tokenRows());

console.log('\n## Profile pipeline\n');
// The largest generated profile within the 2,000-token budget.
let profile2k = profileOfSize(7000);
for (let size = 7000; countTokens(profile2k) > 2000; size -= 100) profile2k = profileOfSize(size);
const tokens2k = countTokens(profile2k);
// 64 variants: no count comes from the memo of recent texts (texts.mjs, `variants`).
const next2k = cycle(variants(profile2k));
const [pipeline] = await compareAsync([
  { fn: async () => { const text = next2k(); renderProfile(parseProfile(text)); countTokens(text); await fitProfile(text, { maxTokens: 2000 }); } },
]);
const overBudget = profileOfSize(12000);
const nextOver = cycle(variants(overBudget));
const [fitOver] = await compareAsync([{ fn: () => fitProfile(nextOver(), { maxTokens: 2000 }) }]);
const [call, jsCall] = compare([{ fn: () => version() }, { fn: () => '0.1.0' }]);
printTable(['measurement', 'time', 'reference'], [
  [`parse + render + count + fit, ${profile2k.length} B profile (${tokens2k} tokens, budget 2000)`, fmtTime(pipeline), 'target ≤ 1 ms'],
  [`fit a ${overBudget.length} B profile (${countTokens(overBudget)} tokens) to 2000 (condense + cut)`, fmtTime(fitOver), '—'],
  ['one call across the boundary (version())', fmtTime(call), `JS function: ${fmtTime(jsCall)}`],
]);

console.log('\n## Turn pipeline (pure logic: in-memory storage, an instant model)\n');
printTable(['measurement', 'time / tokens', 'reference'], await turnRows());

console.log('\n## Entry memory: recall and search over 10,000 entries of one user\n');
printTable(['measurement', 'memcore (InMemoryEntryStore)', 'memcore (JS host store)', 'competent JS (reference.mjs)', 'JS / memcore'], await entryRows());

console.log('\n## Dream: one run for one user with 10,000 entries in 50 groups (an instant model)\n');
printTable(['measurement', 'time / value', 'reference'], await dreamRows());

console.log('\n## Durable storage: entries of one user (+ 100 other users × 100) in SQLite, PostgreSQL, in memory, and a list-everything host store\n');
printTable(['per call', 'SQLite (WAL file)', 'PostgreSQL (127.0.0.1)', 'InMemoryEntryStore', 'list everything (host store)'], await storeRows());

console.log('\n## The write cost of versioning (history on and off, 10,000 entries; scripts/bench/history.mjs)\n');
printTable(['per call, 10,000 entries', 'history off', 'history on (default)', 'on / off'], await historyRows());
console.log('\n## Memory with many users: every user searched (hybrid) twice, the mirror cap crossed ten times (scripts/bench/many-users.mjs; `--users 1000` for the full run)\n');
printTable(['many users', ''], await manyUsersRows());
console.log("\n## What checking a host-made entry id costs a new entry (one idHolders lookup; scripts/bench/ownership.mjs)\n");
printTable(OWNERSHIP_HEADER, await ownershipRows());
console.log('\n## What a tenant view costs (SQLite file, u1 with 10,000 entries in two tenants + 10 more; scripts/bench/tenants.mjs)\n');
printTable(['per call, 10,000 entries', 'default tenant', "forTenant('acme')", 'tenant / default'], await tenantRows());
console.log('\n## A page of the operators\' console (SQLite file, one user with 10,000 entries, 50 a page through the handler; scripts/bench/operator-pages.mjs)\n');
printTable(['page', 'store pages (entryPage)', 'read whole, paged in JS', 'whole / paged'], await operatorPageRows());

console.log(`\n## ${loadTitle()}\n`);
{
  const rows = await loadRows({ progress: (line) => console.error(line) }); // 200 × 25, 20 users, 40 seeded each
  printTable(LOAD_HEADER, rows);
  console.log('');
  printTable(KIND_HEADER, rows.kinds);
  console.log('');
  printTable(ALONE_HEADER, rows.alone);
  console.log('');
  for (const line of rows.notes) console.log(`- ${line}`);
}

console.log('\n## Recall: memcore\'s search modes over the recall corpus with the real local model (bench/recall/memcore.mjs; docs/internals/measurements.md#recall)\n');
{
  const report = await recallBench({ progress: (line) => console.error(line) });
  console.log(reportTables(report));
  console.log(`(JSON: ${RECALL_JSON})`);
}

console.log('\n## Learning from every turn: episode retrieval, fact learning, the cost per turn (bench/learning/memcore.mjs)\n');
{
  const report = await learningBench({ progress: (line) => console.error(line) });
  console.log(learningTables(report));
  const { writeFileSync } = await import('node:fs');
  writeFileSync(LEARNING_JSON, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`(JSON: ${LEARNING_JSON})`);
}

// Last: the first createTelemetry({ api }) installs the process-wide host-call hook.
console.log('\n## What telemetry costs: none, counting only, the OTel SDK recording every span (scripts/bench/telemetry.mjs)\n');
printTable(TELEMETRY_HEADER, await telemetryRows());

// The bench command: side-by-side measurements in one run. Read the ratios; absolute numbers move
// with the machine's load. Later issues add rows.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { version, parseProfile, renderProfile } from 'memcore';
import { compare, fmtTime, printTable } from './bench/harness.mjs';

const require = createRequire(import.meta.url);
const pkgDir = join(require.resolve('memcore/package.json'), '..');
const sizes = JSON.parse(readFileSync(new URL('../target/wasm-size.json', import.meta.url), 'utf8'));
const sample = readFileSync(new URL('./demo/sample-memory.md', import.meta.url), 'utf8');

// Straightforward JS reference: split into ## sections and join back (no diagnostics, no YAML).
function jsSplitJoin(text) {
  const sections = text.split(/\n(?=## )/);
  return sections.map((s) => s.trimEnd()).join('\n\n') + '\n';
}
const jsConstant = () => '0.1.0';

const rows = [];
function row(name, a, b, labelA, labelB) {
  const [ta, tb] = compare([{ fn: a }, { fn: b }]);
  rows.push([name, `${labelA}: ${fmtTime(ta)}`, `${labelB}: ${fmtTime(tb)}`, `${(tb / ta).toFixed(2)}×`]);
}

row('call across the boundary', () => version(), jsConstant, 'version()', 'JS function');
row('parse + render sample profile (1 KB)', () => renderProfile(parseProfile(sample)), () => jsSplitJoin(sample), 'memcore', 'JS split/join');

console.log(`memcore ${version()} bench — node ${process.version}, package at ${pkgDir}\n`);
console.log(`wasm size: ${(sizes.raw / 1024).toFixed(1)} KiB raw, ${(sizes.gzip / 1024).toFixed(1)} KiB gzip, ${(sizes.brotli / 1024).toFixed(1)} KiB brotli\n`);
printTable(['measurement', 'A', 'B', 'B/A (>1: A faster)'], rows);

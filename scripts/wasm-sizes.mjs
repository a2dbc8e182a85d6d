// Where the bytes of the wasm go: code size per crate, from the name section of an unoptimised
// (names kept) build. Usage: node scripts/wasm-sizes.mjs path/to/file.wasm [top]
import { readFileSync } from 'node:fs';

const bytes = readFileSync(process.argv[2]);
const top = Number(process.argv[3] ?? 25);
let pos = 8;
function leb() {
  let result = 0, shift = 0, b;
  do { b = bytes[pos++]; result += (b & 0x7f) * 2 ** shift; shift += 7; } while (b & 0x80);
  return result;
}
let importedFuncs = 0;
const bodies = [];
const names = new Map();
let dataSize = 0;
while (pos < bytes.length) {
  const id = bytes[pos++];
  const size = leb();
  const end = pos + size;
  if (id === 2) {
    const n = leb();
    for (let i = 0; i < n; i++) {
      const ml = leb(); pos += ml; const fl = leb(); pos += fl;
      const kind = bytes[pos++];
      if (kind === 0) { leb(); importedFuncs++; } else if (kind === 1) { pos++; const f = leb(); leb(); if (f & 1) leb(); } else if (kind === 2) { const f = leb(); leb(); if (f & 1) leb(); } else if (kind === 3) { pos += 2; }
    }
  } else if (id === 10) {
    const n = leb();
    for (let i = 0; i < n; i++) { const s = leb(); bodies.push(s); pos += s; }
  } else if (id === 11) {
    dataSize = size;
  } else if (id === 0) {
    const nl = leb(); const name = bytes.subarray(pos, pos + nl).toString(); pos += nl;
    if (name === 'name') {
      while (pos < end) {
        const sub = bytes[pos++]; const ss = leb(); const se = pos + ss;
        if (sub === 1) { const n = leb(); for (let i = 0; i < n; i++) { const idx = leb(); const l = leb(); names.set(idx, bytes.subarray(pos, pos + l).toString()); pos += l; } }
        pos = se;
      }
    }
  }
  pos = end;
}
const byCrate = new Map();
bodies.forEach((size, i) => {
  const name = names.get(i + importedFuncs) ?? '?';
  const m = /^(?:<)?(?:_<)?([a-z_][a-z0-9_]*)(?:::|\[)/.exec(name.replace(/^_ZN\d+/, ''));
  const crate = m ? m[1] : name.slice(0, 30);
  byCrate.set(crate, (byCrate.get(crate) ?? 0) + size);
});
const total = bodies.reduce((a, b) => a + b, 0);
console.log(`code ${total} bytes in ${bodies.length} functions, data ${dataSize} bytes`);
for (const [crate, size] of [...byCrate].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${String(size).padStart(8)}  ${crate}`);

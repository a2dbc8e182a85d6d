// Where the core .wasm's bytes are: code bytes per crate and module, from the function names.
//   node scripts/wasm-sizes.mjs [--depth N] [--top N] [--raw] [--functions N]
// By default it optimises target/bindgen/memcore_bg.wasm (written by scripts/build.sh, before
// wasm-opt) exactly as the build does but keeping the names (`wasm-opt -g`), so the numbers are
// those of the shipped file's code section; `--raw` reads the un-optimised file instead (faster,
// larger numbers: nothing inlined or merged yet). memcore's modules are split one level deeper.
// An approximation: wasm-opt inlines callees into callers and merges identical functions under
// one of their names, so a few KiB move between groups from one build to the next.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const depth = option('--depth', 2);
const top = option('--top', 40);
const root = new URL('..', import.meta.url).pathname;
const input = join(root, 'target/bindgen/memcore_bg.wasm');
let file = input;
if (!args.includes('--raw')) {
  file = join(mkdtempSync(join(tmpdir(), 'wasm-sizes-')), 'named.wasm');
  // The build's flags (scripts/build.sh) with -g instead of --strip-debug.
  execFileSync(process.execPath, [join(root, 'node_modules/binaryen/bin/wasm-opt'), '-O2', '-Oz', '-g', '--strip-producers',
    '--enable-bulk-memory', '--enable-nontrapping-float-to-int', '--enable-sign-ext', '--enable-mutable-globals',
    '--enable-reference-types', '--enable-multivalue', '--enable-simd', input, '-o', file], { stdio: 'inherit' });
}

const buf = readFileSync(file);
let p = 8;
const leb = () => {
  let result = 0, shift = 0, byte;
  do {
    byte = buf[p++];
    result |= (byte & 0x7f) << shift;
    shift += 7;
  } while (byte & 0x80);
  return result >>> 0;
};
let imports = 0;
const names = new Map();
const bodies = [];
const sections = [];
while (p < buf.length) {
  const id = buf[p++];
  const len = leb();
  const start = p;
  const end = p + len;
  if (id === 2) {
    for (let i = 0, n = leb(); i < n; i++) {
      // Module and field names: read the length before moving past it (`p += leb()` would add
      // the length to the position from before the length's own bytes).
      for (let name = 0; name < 2; name++) {
        const length = leb();
        p += length;
      }
      const kind = buf[p++];
      if (kind === 0) {
        leb();
        imports++;
      } else if (kind === 1) {
        p++;
        if (buf[p++] & 1) leb();
        leb();
      } else if (kind === 2) {
        if (buf[p++] & 1) leb();
        leb();
      } else {
        p += 2;
      }
    }
  } else if (id === 10) {
    for (let i = 0, n = leb(); i < n; i++) {
      const size = leb();
      bodies.push(size);
      p += size;
    }
  } else if (id === 0) {
    const nameLen = leb();
    const custom = buf.subarray(p, p + nameLen).toString();
    p += nameLen;
    if (custom === 'name') {
      while (p < end) {
        const sub = buf[p++];
        const subEnd = leb() + p;
        if (sub === 1) {
          for (let i = 0, n = leb(); i < n; i++) {
            const index = leb();
            const l = leb();
            names.set(index, buf.subarray(p, p + l).toString());
            p += l;
          }
        }
        p = subEnd;
      }
    }
  }
  if (id === 10 || id === 11) sections.push([id === 10 ? 'code' : 'data', len, gzipSync(buf.subarray(start, end), { level: 9 }).length]);
  p = end;
}

const groups = new Map();
bodies.forEach((size, i) => {
  const name = (names.get(i + imports) ?? '?').replace(/^<(.*?) as .*$/, '$1').replace(/^_?<?/, '');
  const parts = name.split('::').filter((x) => !/^h[0-9a-f]{16}$/.test(x));
  const key = parts.slice(0, parts[0] === 'memcore' ? depth + 1 : depth).join('::');
  groups.set(key, (groups.get(key) ?? 0) + size);
});
const total = bodies.reduce((a, b) => a + b, 0);
for (const [name, bytes, gzip] of sections) console.log(`${name} section: ${bytes} bytes, ${gzip} gzip`);
console.log(`\n| code bytes | share | crate / module |\n| ---: | ---: | --- |`);
for (const [key, size] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`| ${size} | ${((size / total) * 100).toFixed(1)} % | ${key} |`);
}
const functions = option('--functions', 0);
if (functions > 0) {
  console.log(`\n| code bytes | function |\n| ---: | --- |`);
  const list = bodies.map((size, i) => [size, names.get(i + imports) ?? '?']).sort((a, b) => b[0] - a[0]);
  for (const [size, name] of list.slice(0, functions)) console.log(`| ${size} | ${name.replace(/::h[0-9a-f]{16}$/, '').slice(0, 200)} |`);
}

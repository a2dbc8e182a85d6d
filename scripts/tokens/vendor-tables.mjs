// Vendor the built rank tables for the native tests (tests/data/tokenizer/*.bin.z, zlib), so
// `cargo test` needs no node. Run after scripts/build.sh when the tables change; the package suite
// fails while the vendored copies differ from what the build writes.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const root = new URL('../../', import.meta.url);
mkdirSync(new URL('tests/data/tokenizer/', root), { recursive: true });
for (const name of ['o200k_base', 'cl100k_base']) {
  const table = readFileSync(new URL(`pkg/tokenizer/${name}.bin`, root));
  writeFileSync(new URL(`tests/data/tokenizer/${name}.bin.z`, root), deflateSync(table, { level: 9 }));
  console.log(`${name}: ${table.length} bytes → tests/data/tokenizer/${name}.bin.z`);
}

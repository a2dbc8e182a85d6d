// Browser / bundler entry: fetches the .wasm and the tokenizer tables next to this file
// (top-level await; the three downloads run in parallel).
import init from './wasm/memcore.js';
import { loadTable, started } from './wire.js';

async function bytes(name) {
  const response = await fetch(new URL(`./tokenizer/${name}.bin`, import.meta.url));
  if (!response.ok) throw new Error(`memcore: could not load tokenizer/${name}.bin (HTTP ${response.status})`);
  return new Uint8Array(await response.arrayBuffer());
}

const tables = Promise.all([bytes('o200k_base'), bytes('cl100k_base')]);
await init({ module_or_path: new URL('./wasm/memcore_bg.wasm', import.meta.url) });
started();
for (const table of await tables) loadTable(table);

export * from './api.js';

// Vercel Edge / Next.js edge entry: `?module` yields a compiled WebAssembly.Module; the tokenizer
// tables are fetched as assets next to this file.
import wasmModule from './wasm/memcore_bg.wasm?module';
import { initSync } from './wasm/memcore.js';
import { loadTable, started } from './wire.js';

initSync({ module: wasmModule });
started();
for (const name of ['o200k_base', 'cl100k_base']) {
  const response = await fetch(new URL(`./tokenizer/${name}.bin`, import.meta.url));
  loadTable(new Uint8Array(await response.arrayBuffer()));
}

export * from './api.js';

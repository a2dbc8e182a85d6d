// Node.js entry: reads the .wasm and the tokenizer tables next to this file, synchronously.
import { readFileSync } from 'node:fs';
import { initSync } from './wasm/memcore.js';
import { loadTable, started } from './wire.js';

initSync({ module: readFileSync(new URL('./wasm/memcore_bg.wasm', import.meta.url)) });
started();
for (const encoding of ['o200k_base', 'cl100k_base']) {
  loadTable(readFileSync(new URL(`./tokenizer/${encoding}.bin`, import.meta.url)));
}

export * from './api.js';

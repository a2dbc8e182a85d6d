// Node.js entry: reads the .wasm and the tokenizer tables next to this file, synchronously.
import { readFileSync } from 'node:fs';
import { initSync, loadTokenizer } from './wasm/memcore.js';
import { markInitialized } from './state.js';

initSync({ module: readFileSync(new URL('./wasm/memcore_bg.wasm', import.meta.url)) });
for (const encoding of ['o200k_base', 'cl100k_base']) {
  loadTokenizer(readFileSync(new URL(`./tokenizer/${encoding}.bin`, import.meta.url)));
}
markInitialized();

export * from './api.js';

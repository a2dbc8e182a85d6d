// Node.js entry (also Bun and Deno through npm): reads the .wasm next to this file at import; a
// tokenizer table is read synchronously the first time something counts with its encoding.
// Each file is named by a literal `new URL('./…', import.meta.url)` so bundlers that emit
// assets (webpack, Turbopack, Vite SSR) find every one of them.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { initSync } from './wasm/memcore.js';
import { started, tableSources } from './wire.js';

// A bundler may hand back its own URL object (another realm); its text is what counts.
const read = (url) => {
  const href = String(url);
  return readFileSync(href.startsWith('file:') ? fileURLToPath(href) : href);
};

const tables = {
  o200k_base: () => new URL('./tokenizer/o200k_base.bin', import.meta.url),
  cl100k_base: () => new URL('./tokenizer/cl100k_base.bin', import.meta.url),
};

initSync({ module: read(new URL('./wasm/memcore_bg.wasm', import.meta.url)) });
started();
tableSources({ sync: (name) => read(tables[name]()) });

export * from './api.js';

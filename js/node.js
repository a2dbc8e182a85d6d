// Node.js entry (also Deno through npm; Bun has its own, bun.js): reads the .wasm next to this file
// at import; a tokenizer table is read synchronously the first time something counts with it.
// Each file is named by a literal `new URL('./…', import.meta.url)` so bundlers that emit
// assets (webpack, Turbopack, Vite SSR) find every one of them.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { initSync } from './wasm/memcore.js';
import { started, tableSources } from './wire.js';

// A bundler may hand back its own URL object (another realm); its text is what counts. Next.js's
// webpack build makes `new URL('./…', import.meta.url)` a server-relative path
// ('/_next/static/media/…', its `parser.javascript.url: 'relative'`) that names no file on the
// server: then the package's own copy is read, found from `import.meta.url` (the package file's
// own URL in such a bundle; `next start` has node_modules, Next.js itself lives there — a
// standalone output moved to another machine does not: build that with Turbopack).
const here = import.meta.url;
const read = (url, file) => {
  const href = String(url);
  return readFileSync(fileURLToPath(href.startsWith('file:') ? href : new URL(file, here)));
};

const tables = {
  o200k_base: () => new URL('./tokenizer/o200k_base.bin', import.meta.url),
  cl100k_base: () => new URL('./tokenizer/cl100k_base.bin', import.meta.url),
};

initSync({ module: read(new URL('./wasm/memcore_bg.wasm', import.meta.url), 'wasm/memcore_bg.wasm') });
started();
tableSources({ sync: (name) => read(tables[name](), `tokenizer/${name}.bin`) });

export * from './api.js';

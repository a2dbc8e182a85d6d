// Vercel Edge / Next.js edge entry: `?module` yields a compiled WebAssembly.Module (possibly of
// another realm — the glue checks its brand, not `instanceof`); tokenizer tables are fetched as
// assets next to this file on first use — `await ready()` before counting synchronously. Only the
// default table (o200k_base) is referenced here, so the function ships one table; a route that
// counts with cl100k_base adds `import 'memcore/tokenizer/cl100k_base'`.
import wasmModule from './wasm/memcore_bg.wasm?module';
import { initSync } from './wasm/memcore.js';
import { started, tableSources } from './wire.js';
import { fetchTable } from './fetch-tables.js';

initSync({ module: wasmModule });
started();
tableSources({ async: fetchTable });

export * from './api.js';

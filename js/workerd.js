// Cloudflare Workers (workerd) entry: the .wasm is a compiled WebAssembly.Module (wrangler's
// default rule for .wasm). No tokenizer table is bundled unless the Worker imports one —
// `import 'memcore/tokenizer/o200k_base'` (a Data module, ~2.6 MB raw) — so a Worker that only
// parses profiles stays small.
import wasmModule from './wasm/memcore_bg.wasm';
import { initSync } from './wasm/memcore.js';
import { started } from './wire.js';

initSync({ module: wasmModule });
started();

export * from './api.js';

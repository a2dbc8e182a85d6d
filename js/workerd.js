// Cloudflare Workers (workerd) entry: the .wasm is a compiled WebAssembly.Module and the tokenizer
// tables are Data modules (ArrayBuffer) — wrangler's default module rules for .wasm and .bin.
import wasmModule from './wasm/memcore_bg.wasm';
import o200k from './tokenizer/o200k_base.bin';
import cl100k from './tokenizer/cl100k_base.bin';
import { initSync, loadTokenizer } from './wasm/memcore.js';
import { markInitialized } from './state.js';

initSync({ module: wasmModule });
loadTokenizer(o200k);
loadTokenizer(cl100k);
markInitialized();

export * from './api.js';

// Cloudflare Workers (workerd) entry: the .wasm is a compiled WebAssembly.Module and the tokenizer
// tables are Data modules (ArrayBuffer) — wrangler's default module rules for .wasm and .bin.
import wasmModule from './wasm/memcore_bg.wasm';
import o200k from './tokenizer/o200k_base.bin';
import cl100k from './tokenizer/cl100k_base.bin';
import { initSync } from './wasm/memcore.js';
import { loadTable, started } from './wire.js';

initSync({ module: wasmModule });
started();
loadTable(new Uint8Array(o200k));
loadTable(new Uint8Array(cl100k));

export * from './api.js';

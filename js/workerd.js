// Cloudflare Workers (workerd) entry: the .wasm is imported as a compiled WebAssembly.Module.
import wasmModule from './wasm/memcore_bg.wasm';
import { initSync } from './wasm/memcore.js';
import { markInitialized } from './state.js';

initSync({ module: wasmModule });
markInitialized();

export * from './api.js';

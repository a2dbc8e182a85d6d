// Vercel Edge / Next.js edge entry: the `?module` suffix yields a compiled WebAssembly.Module.
import wasmModule from './wasm/memcore_bg.wasm?module';
import { initSync } from './wasm/memcore.js';
import { markInitialized } from './state.js';

initSync({ module: wasmModule });
markInitialized();

export * from './api.js';

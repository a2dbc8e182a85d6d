// Browser / bundler entry: fetches the .wasm next to this file (top-level await).
import init from './wasm/memcore.js';
import { markInitialized } from './state.js';

await init({ module_or_path: new URL('./wasm/memcore_bg.wasm', import.meta.url) });
markInitialized();

export * from './api.js';

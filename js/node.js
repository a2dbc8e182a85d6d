// Node.js entry: reads the .wasm next to this file and instantiates it synchronously.
import { readFileSync } from 'node:fs';
import { initSync } from './wasm/memcore.js';
import { markInitialized } from './state.js';

initSync({ module: readFileSync(new URL('./wasm/memcore_bg.wasm', import.meta.url)) });
markInitialized();

export * from './api.js';

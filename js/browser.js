// Browser / bundler entry: instantiates the .wasm next to this file (top-level await); tokenizer
// tables are fetched the first time something counts with their encoding — `await ready()`
// before counting synchronously. A page that only parses profiles downloads only the .wasm.
import init from './wasm/memcore.js';
import { started, tableSources } from './wire.js';
import { addTableUrl, fetchTable } from './fetch-tables.js';

await init({ module_or_path: new URL('./wasm/memcore_bg.wasm', import.meta.url) });
started();
// A page downloads a table only when it counts with it, so both can be named here.
addTableUrl('cl100k_base', () => new URL('./tokenizer/cl100k_base.bin', import.meta.url));
tableSources({ async: fetchTable });

export * from './api.js';

// Bun entry (`bun run`, `bun build --target=bun`, `bun build --compile`): the .wasm and the tables
// are imported with `type: 'file'`, so Bun's bundler copies each next to the bundle (or into the
// executable) and hands back its path; `bun run` gets the file's own path. Bun does not emit the
// files the node entry names with `new URL('./…', import.meta.url)`. The .wasm is read at import,
// a table the first time something counts with its encoding.
import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import wasmFile from './wasm/memcore_bg.wasm' with { type: 'file' };
import o200kFile from './tokenizer/o200k_base.bin' with { type: 'file' };
import cl100kFile from './tokenizer/cl100k_base.bin' with { type: 'file' };
import { initSync } from './wasm/memcore.js';
import { started, tableSources } from './wire.js';

// A bundle names its copies relative to itself ('./memcore_bg-<hash>.wasm'), not to the cwd.
const read = (file) => readFileSync(isAbsolute(file) ? file : fileURLToPath(new URL(file, import.meta.url)));

const tables = { o200k_base: o200kFile, cl100k_base: cl100kFile };

initSync({ module: read(wasmFile) });
started();
tableSources({ sync: (name) => read(tables[name]) });

export * from './api.js';

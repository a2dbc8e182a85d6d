// Assemble pkg/ after wasm-bindgen and wasm-opt: copy the hand-written JS and typings, write
// package.json (version from Cargo.toml), and print the .wasm size raw, gzip and brotli.
import { cpSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';

const root = new URL('../', import.meta.url);
const pkg = new URL('pkg/', root);
const cargo = readFileSync(new URL('Cargo.toml', root), 'utf8');
const version = /^version = "([^"]+)"/m.exec(cargo)[1];

cpSync(new URL('js/', root), pkg, { recursive: true });

// The glue wasm-bindgen generates keeps its instance in a module variable and will not
// instantiate twice; js/wire.js replaces a failed instance through this hook (tested by the
// package suite with memcore/testing's forceTrap). The markers pin the generated code it relies on.
const gluePath = new URL('wasm/memcore.js', pkg);
let glue = readFileSync(gluePath, 'utf8');
for (const marker of ['let wasmModule, wasmInstance, wasm;', 'function initSync(module) {']) {
  if (!glue.includes(marker)) throw new Error(`package: the wasm-bindgen glue changed (no \`${marker}\`); update the reinstantiation hook`);
}
if (!glue.includes('__memcore_reinstantiate')) {
  glue += `
// memcore: replace a failed instance with a fresh one from the same compiled module (js/wire.js).
export function __memcore_reinstantiate() {
    const module = wasmModule;
    wasm = undefined;
    return initSync({ module });
}
`;
  writeFileSync(gluePath, glue);
}
// Strings into wasm: the generated code copies the ASCII prefix one character at a time in JS and
// only then calls encodeInto for the rest, which costs more than encoding the whole text (about
// 7 µs vs 4 µs for a 6 KB profile in Node 20). One encodeInto into a worst-case buffer, shrunk
// after, gives the same bytes.
const asciiLoop = `    let len = arg.length;
    let ptr = malloc(len, 1) >>> 0;

    const mem = getUint8ArrayMemory0();

    let offset = 0;

    for (; offset < len; offset++) {
        const code = arg.charCodeAt(offset);
        if (code > 0x7F) break;
        mem[ptr + offset] = code;
    }
    if (offset !== len) {
        if (offset !== 0) {
            arg = arg.slice(offset);
        }
        ptr = realloc(ptr, len, len = offset + arg.length * 3, 1) >>> 0;
        const view = getUint8ArrayMemory0().subarray(ptr + offset, ptr + len);
        const ret = cachedTextEncoder.encodeInto(arg, view);

        offset += ret.written;
        ptr = realloc(ptr, len, offset, 1) >>> 0;
    }

    WASM_VECTOR_LEN = offset;
    return ptr;`;
const oneEncode = `    // memcore: one encodeInto for the whole text (scripts/package.mjs).
    const len = arg.length * 3;
    let ptr = malloc(len, 1) >>> 0;
    const { written } = cachedTextEncoder.encodeInto(arg, getUint8ArrayMemory0().subarray(ptr, ptr + len));
    if (written !== len) ptr = realloc(ptr, len, written, 1) >>> 0;
    WASM_VECTOR_LEN = written;
    return ptr;`;
if (glue.includes(asciiLoop)) {
  glue = glue.replace(asciiLoop, oneEncode);
  writeFileSync(gluePath, glue);
} else if (!glue.includes('memcore: one encodeInto')) {
  throw new Error('package: the wasm-bindgen glue changed (passStringToWasm0); update the string patch');
}
// A WebAssembly.Module from another realm (Next.js's edge sandbox hands one over) fails
// `instanceof WebAssembly.Module` and would be passed to `new WebAssembly.Module`: test the
// brand instead.
for (const [from, to] of [
  ['if (!(module instanceof WebAssembly.Module)) {', "if (Object.prototype.toString.call(module) !== '[object WebAssembly.Module]') {"],
  ['if (instance instanceof WebAssembly.Instance) {', "if (Object.prototype.toString.call(instance) === '[object WebAssembly.Instance]') {"],
]) {
  if (glue.includes(from)) glue = glue.replace(from, to);
  else if (!glue.includes(to)) throw new Error(`package: the wasm-bindgen glue changed (no \`${from}\`); update the realm patch`);
}
// The glue's fallback `new URL('memcore_bg.wasm', import.meta.url)` (for `init()` with no argument)
// is never taken — every entry passes the module or its URL, and memcore/slim refuses a missing
// one — but bundlers still emit the file it names: Next.js's edge functions shipped the .wasm twice
// (once as the `?module` import, once as this asset). No URL, no second copy.
{
  const from = "module_or_path = new URL('memcore_bg.wasm', import.meta.url);";
  const to = "throw new Error('memcore: init needs the module, its bytes or its URL');";
  if (glue.includes(from)) glue = glue.replace(from, to);
  else if (!glue.includes(to)) throw new Error(`package: the wasm-bindgen glue changed (no \`${from}\`); update the default-URL patch`);
}
writeFileSync(gluePath, glue);
// The core's constants as JS, from the core itself (js/api.js re-exports them).
{
  const built = await import(new URL('wasm/memcore.js', pkg).href);
  built.initSync({ module: readFileSync(new URL('wasm/memcore_bg.wasm', pkg)) });
  const core = JSON.parse(built.coreConstants());
  const docs = {
    WEB_SEARCH_TOOLTIP: ['webSearchTooltip', 'The exact tooltip of the admin UI switch while web search is on (SPEC §1.8).'],
    SECTION_HEADINGS: ['sectionHeadings', 'The six profile sections, in order.'],
    MAX_EDIT_BODY_BYTES: ['maxEditBodyBytes', 'The largest profile body `applyUserEdit` accepts, in UTF-8 bytes.'],
    TRUNCATION_MARKER: ['truncationMarker', 'The marker appended by the hard cut (SPEC §1.5), byte for byte.'],
    UPDATING_NOTICE: ['updatingNotice', 'The notice shown while a profile is rewritten (SPEC §1.7 step 6), byte for byte.'],
    DEFAULT_ENCODING: ['defaultEncoding', 'The encoding used when none is named (SPEC §1.4).'],
  };
  let out = '// Generated by scripts/package.mjs from the core (coreConstants); do not edit.\n';
  for (const [name, [field, doc]] of Object.entries(docs)) {
    const value = core[field];
    if (value === undefined) throw new Error(`package: coreConstants has no ${field}`);
    const literal = Array.isArray(value) ? `Object.freeze(${JSON.stringify(value)})` : JSON.stringify(value);
    out += `\n/** ${doc} */\nexport const ${name} = ${literal};\n`;
  }
  writeFileSync(new URL('constants.js', pkg), out);
}
if (existsSync(new URL('README.md', root))) cpSync(new URL('README.md', root), new URL('README.md', pkg));

const manifest = {
  name: 'memcore',
  version,
  description: 'Per-user memory engine for LLM assistants (profile memory and entry memory), Rust compiled to WebAssembly.',
  license: 'MIT',
  type: 'module',
  // require(esm) without a flag: 20.19 and 22.12 (CommonJS `require('memcore')` works from there).
  engines: { node: '^20.19.0 || >=22.12.0' },
  sideEffects: ['./node.js', './bun.js', './browser.js', './workerd.js', './edge-light.js', './server/*.js', './tokenizer/*.js'],
  types: './index.d.ts',
  main: './node.js',
  exports: {
    '.': {
      types: './index.d.ts',
      workerd: './workerd.js',
      'edge-light': './edge-light.js',
      // Bun's runtime and `bun build --target=bun` (before `node`, which Bun also matches).
      bun: './bun.js',
      node: './node.js',
      browser: './browser.js',
      default: './browser.js',
    },
    './slim': { types: './slim.d.ts', default: './slim.js' },
    // The REST + MCP handler; each runtime's file starts the core through that runtime's entry.
    './server': {
      types: './server.d.ts',
      workerd: './server/workerd.js',
      'edge-light': './server/edge-light.js',
      bun: './server/bun.js',
      node: './server/node.js',
      default: './server/browser.js',
    },
    './testing': { types: './testing.d.ts', default: './testing.js' },
    './adapters/memory': { types: './adapters/memory-storage.d.ts', default: './adapters/memory-storage.js' },
    './adapters/openai': { types: './adapters/openai.d.ts', default: './adapters/openai.js' },
    // Node only: no `default`, so browsers, workers and edge bundlers cannot resolve it.
    './adapters/fs': { types: './adapters/fs-storage.d.ts', node: './adapters/fs-storage.js' },
    // Node only (a build tool): copies the .wasm and the tables next to an esbuild bundle.
    './esbuild': { types: './esbuild.d.ts', node: './esbuild.js' },
    // `import 'memcore/tokenizer/o200k_base'`: make a table available (Workers bundle it only then).
    // Agent frameworks and GraphQL: thin modules over createMemoryTools / ContextMemory; each
    // framework is an optional peer dependency (memcore/graphql imports no GraphQL library).
    './graphql': { types: './graphql.d.ts', default: './graphql.js' },
    './ai-sdk': { types: './ai-sdk.d.ts', default: './ai-sdk.js' },
    './openai-agents': { types: './openai-agents.d.ts', default: './openai-agents.js' },
    './langchain': { types: './langchain.d.ts', default: './langchain.js' },
    './tokenizer/o200k_base': { types: './tokenizer/table.d.ts', workerd: './tokenizer/o200k_base.workerd.js', default: './tokenizer/o200k_base.js' },
    './tokenizer/cl100k_base': { types: './tokenizer/table.d.ts', workerd: './tokenizer/cl100k_base.workerd.js', default: './tokenizer/cl100k_base.js' },
    // The raw tables, for `loadTokenizer(bytes)` with 'memcore/slim'.
    './tokenizer/o200k_base.bin': './tokenizer/o200k_base.bin',
    './tokenizer/cl100k_base.bin': './tokenizer/cl100k_base.bin',
    './memcore.wasm': './wasm/memcore_bg.wasm',
    './package.json': './package.json',
  },
  // For TypeScript's `moduleResolution: node` (node10), which ignores `exports`.
  typesVersions: {
    '*': {
      slim: ['./slim.d.ts'],
      server: ['./server.d.ts'],
      testing: ['./testing.d.ts'],
      'adapters/memory': ['./adapters/memory-storage.d.ts'],
      'adapters/openai': ['./adapters/openai.d.ts'],
      'adapters/fs': ['./adapters/fs-storage.d.ts'],
      esbuild: ['./esbuild.d.ts'],
      graphql: ['./graphql.d.ts'],
      'ai-sdk': ['./ai-sdk.d.ts'],
      'openai-agents': ['./openai-agents.d.ts'],
      langchain: ['./langchain.d.ts'],
      'tokenizer/o200k_base': ['./tokenizer/table.d.ts'],
      'tokenizer/cl100k_base': ['./tokenizer/table.d.ts'],
    },
  },
  // Only the subpath of a framework needs it; the versions are the majors whose API those modules
  // use (the dev workspace pins and tests one of each).
  // The MCP endpoint of memcore/server loads the official SDK (its web-standard transport) and the
  // zod schemas it reads on its first request: a host serving only REST installs neither.
  peerDependencies: {
    '@modelcontextprotocol/sdk': '^1.32.2',
    zod: '^3.25.0 || ^4.0.0',
    '@langchain/core': '^1.0.0',
    '@openai/agents': '>=0.1.0 <1.0.0',
    ai: '^5.0.0 || ^6.0.0 || ^7.0.0',
    graphql: '^16.0.0 || ^17.0.0',
  },
  peerDependenciesMeta: {
    '@modelcontextprotocol/sdk': { optional: true },
    zod: { optional: true },
    '@langchain/core': { optional: true },
    '@openai/agents': { optional: true },
    ai: { optional: true },
    graphql: { optional: true },
  },
  bin: existsSync(new URL('bin/memcore.js', pkg)) ? { memcore: './bin/memcore.js' } : undefined,
  files: ['**/*.js', '**/*.d.ts', 'adapters/**', 'wasm/memcore_bg.wasm', 'tokenizer/*.bin', 'README.md'],
};
writeFileSync(new URL('package.json', pkg), JSON.stringify(manifest, null, 2) + '\n');

const wasm = readFileSync(new URL('wasm/memcore_bg.wasm', pkg));
const sizes = {
  raw: wasm.length,
  gzip: gzipSync(wasm, { level: 9 }).length,
  brotli: brotliCompressSync(wasm, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
};
writeFileSync(new URL('target/wasm-size.json', root), JSON.stringify(sizes) + '\n');
const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log(`memcore_bg.wasm: ${kb(sizes.raw)} raw, ${kb(sizes.gzip)} gzip, ${kb(sizes.brotli)} brotli`);

// Typings for `import core from 'memcore/memcore.wasm'` and `'memcore/memcore-profile.wasm'`
// where a bundler compiles a `.wasm` import to a module (wrangler and workerd: a CompiledWasm
// module), to pass to `initSync` of `memcore/slim`. With Vite's `?url` or esbuild's file loader
// the import is a URL string instead, typed by that tool (`vite/client`'s `*?url`).
/** The compiled core. */
declare const module: WebAssembly.Module;
export default module;

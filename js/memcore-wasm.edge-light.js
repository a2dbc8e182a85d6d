// `import core from 'memcore/memcore.wasm'` in an edge function (Next.js, Vercel Edge: the
// `edge-light` condition): the full core as a compiled WebAssembly.Module, for `initSync` of
// memcore/slim. Edge bundlers compile a `.wasm` import only with `?module`, which a package
// subpath cannot carry (the query would be looked up in `exports`), so this module adds it to a
// relative path.
import module from './wasm/memcore_bg.wasm?module';

export default module;

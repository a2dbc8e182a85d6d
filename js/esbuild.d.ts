// Typings for `memcore/esbuild` (Node only).

/** An esbuild plugin (structurally: esbuild's `Plugin`; also a Bun `BunPlugin`). */
export interface MemcoreAssetsPlugin {
  name: string;
  setup(build: unknown): void;
}

/**
 * Copy memcore's `.wasm` and tokenizer tables next to an esbuild (or `Bun.build`) bundle: neither
 * emits the files memcore names with `new URL('./…', import.meta.url)`.
 * @example
 * import { memcoreAssets } from 'memcore/esbuild';
 * await esbuild.build({ entryPoints: ['app.js'], bundle: true, format: 'esm', outdir: 'dist', plugins: [memcoreAssets()] });
 */
export function memcoreAssets(options?: { tables?: Array<'o200k_base' | 'cl100k_base'> }): MemcoreAssetsPlugin;

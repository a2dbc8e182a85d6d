// `memcore/esbuild`: an esbuild plugin that puts memcore's assets next to the bundle. esbuild
// bundles memcore's JavaScript but, unlike webpack and Vite, does not emit the files it names with
// `new URL('./…', import.meta.url)`; the entries look for them relative to the bundle, so this
// copies `wasm/memcore_bg.wasm` and `tokenizer/*.bin` into the output directory once a build ends.
// Bun's bundler behaves like esbuild and its plugin API has the same `onEnd` hook, so the same
// plugin works with `Bun.build({ …, plugins: [memcoreAssets()] })`.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
const ASSETS = ['wasm/memcore_bg.wasm', 'tokenizer/o200k_base.bin', 'tokenizer/cl100k_base.bin'];

/**
 * @param {{ tables?: Array<'o200k_base' | 'cl100k_base'> }} [options] which tables to copy (default both)
 * @example
 * import { memcoreAssets } from 'memcore/esbuild';
 * await esbuild.build({ entryPoints: ['app.js'], bundle: true, format: 'esm', outdir: 'dist', plugins: [memcoreAssets()] });
 */
export function memcoreAssets(options = {}) {
  const tables = options.tables ?? ['o200k_base', 'cl100k_base'];
  const files = ASSETS.filter((f) => !f.startsWith('tokenizer/') || tables.some((t) => f === `tokenizer/${t}.bin`));
  return {
    name: 'memcore-assets',
    setup(build) {
      build.onEnd((result) => {
        // esbuild reports `errors`, Bun.build `success`; neither copies after a failed build.
        if (result.errors?.length || result.success === false) return;
        // esbuild: `build.initialOptions`; Bun: `build.config`.
        const { outdir, outfile } = build.initialOptions ?? build.config ?? {};
        const out = outdir ?? (outfile ? dirname(outfile) : undefined);
        if (!out) throw new Error('memcore-assets: set outdir or outfile');
        for (const file of files) {
          mkdirSync(dirname(join(out, file)), { recursive: true });
          copyFileSync(join(root, file), join(out, file));
        }
      });
    },
  };
}

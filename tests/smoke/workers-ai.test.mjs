// The Workers AI embedder in workerd (the real Workers runtime, through miniflare): a Worker imports
// `memcore/adapters/workers-ai` from the installed package and embeds through an `AI` object the
// worker script builds itself (miniflare has no real AI binding offline), shaped like the binding's
// answer (`{ shape, data }`), then answers over HTTP on 127.0.0.1.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createRequire } from 'node:module';
import { Miniflare } from 'miniflare';

const require = createRequire(import.meta.url);
const pkgDir = join(require.resolve('memcore/package.json'), '..');
const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
const entry = manifest.exports['./adapters/workers-ai'].default;

function packageModules(dir) {
  const modules = [];
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (statSync(file).isDirectory()) {
      modules.push(...packageModules(file));
      continue;
    }
    if (name.endsWith('.js')) modules.push({ type: 'ESModule', path: `/app/node_modules/memcore/${relative(pkgDir, file)}`, contents: readFileSync(file, 'utf8') });
  }
  return modules;
}

const WORKER = `
import { workersAIEmbeddings } from 'memcore/adapters/workers-ai';
// What env.AI does for a text-embedding model, built here: miniflare has no AI binding offline.
const AI = {
  calls: [],
  async run(model, inputs, options) {
    this.calls.push({ model, texts: inputs.text.length, signal: options?.signal instanceof AbortSignal });
    if (inputs.text.includes('fail')) throw new Error('3040: Capacity temporarily exceeded');
    return { shape: [inputs.text.length, 3], data: inputs.text.map((t) => [t.length, 1, -1]), pooling: 'mean' };
  },
};
export default {
  async fetch(request) {
    const texts = await request.json();
    const embedder = workersAIEmbeddings({ ai: AI, model: '@cf/test/embedder', maxBatch: 2 });
    AI.calls.length = 0;
    try {
      const { vectors, model } = await embedder.embed({ texts, purpose: 'document', signal: AbortSignal.timeout(5000) });
      return Response.json({
        model,
        dimensions: embedder.dimensions,
        float32: vectors.every((v) => v instanceof Float32Array),
        vectors: vectors.map((v) => Array.from(v)),
        calls: AI.calls,
      });
    } catch (error) {
      return Response.json({ name: error.name, code: error.code, details: error.details, message: error.message }, { status: 502 });
    }
  },
};`;

let mf;
let url;

before(async () => {
  mf = new Miniflare({
    modulesRoot: '/app',
    modules: [
      { type: 'ESModule', path: '/app/worker.mjs', contents: WORKER },
      // What a bundler does for `import 'memcore/adapters/workers-ai'` (its `default` condition).
      { type: 'ESModule', path: '/app/memcore/adapters/workers-ai', contents: `export * from '../../node_modules/memcore/${entry.replace(/^\.\//, '')}';` },
      ...packageModules(pkgDir),
    ],
    host: '127.0.0.1',
    port: 0,
  });
  url = await mf.ready;
});

after(async () => {
  await mf?.dispose();
});

test('a Worker embeds with workersAIEmbeddings: batches, Float32Array vectors in order, the signal passed', async () => {
  assert.equal(url.hostname, '127.0.0.1');
  const response = await fetch(url, { method: 'POST', body: JSON.stringify(['a', 'bb', 'ccc']) });
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), {
    model: '@cf/test/embedder',
    dimensions: 3,
    float32: true,
    vectors: [[1, 1, -1], [2, 1, -1], [3, 1, -1]],
    calls: [
      { model: '@cf/test/embedder', texts: 2, signal: true },
      { model: '@cf/test/embedder', texts: 1, signal: true },
    ],
  });
});

test('a failing binding in a Worker is a MemcoreError E_HOST with the Workers AI code', async () => {
  const response = await fetch(url, { method: 'POST', body: JSON.stringify(['fail']) });
  assert.equal(response.status, 502);
  assert.deepEqual(await response.json(), {
    name: 'MemcoreError',
    code: 'E_HOST',
    details: { model: '@cf/test/embedder', transient: true, code: 3040 },
    message: 'Workers AI model @cf/test/embedder failed (3040: Capacity temporarily exceeded); retry later',
  });
});

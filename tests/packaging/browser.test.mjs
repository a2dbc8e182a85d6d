// The packed package in real browser toolchains: for Vite (build and dev server), webpack 5,
// esbuild (memcore's plugin, and the plain CLI with a copy step), Bun (CLI with a copy step, and
// Bun.build with the same plugin) and a bare import map, a throwaway project per toolchain
// (tests/packaging/browser/fixtures/<toolchain>) gets the tarball target/pack/memcore-*.tgz
// installed, is built with the toolchain pinned in tests/packaging/browser/package-lock.json, and is
// run in Debian's Chromium from a static server on 127.0.0.1. Every page must count exactly with
// both encodings (js-tiktoken is the oracle), parse a profile, and log no error; a parse-only page
// must download the core .wasm and no table; a page that imports 'memcore/tokenizer/o200k_base'
// must start that download by itself; `memcore/slim` pages load the exported files through each
// bundler's asset URL. Bytes downloaded per page go to target/packaging/browser-sizes.json.
//
// How the tarball is installed: `npm install <tarball>` once into .work/_install (a throwaway
// project), then that node_modules/memcore is copied into each fixture project under .work/; the
// toolchains are found from tests/packaging/browser/node_modules by Node's usual upward lookup
// (`npm run` puts every ancestor's node_modules/.bin on PATH).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getEncoding } from 'js-tiktoken';
import { serveDir, freePort, launchChromium, runPage, assetHashes, describe } from './browser/harness.mjs';
import { PROFILE, TEXT } from './browser/fixtures/shared/sample.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GROUP = join(ROOT, 'tests/packaging/browser');
const FIXTURES = join(GROUP, 'fixtures');
const WORK = join(GROUP, '.work');
const SIZES = join(ROOT, 'target/packaging/browser-sizes.json');
const HEADINGS = ['Identity', 'Communication Preferences', 'Work Context', 'Skills & Expertise', 'Recent Topics', 'Follow-ups'];
const oracle = { o200k_base: getEncoding('o200k_base'), cl100k_base: getEncoding('cl100k_base') };
const exact = (encoding, text) => oracle[encoding].encode(text, [], []).length;

// ─── Running things ─────────────────────────────────────────────────────────────────────────────

function run(command, args, { cwd, env } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve(output);
      else reject(new Error(`\`${command} ${args.join(' ')}\` in ${cwd} failed (${signal ?? `exit ${code}`}):\n${output}`));
    });
  });
}

/** A small pool: at most `limit` jobs at once (the machine has 2 cores). */
function pool(limit) {
  let active = 0;
  const queue = [];
  const next = () => {
    if (active >= limit || !queue.length) return;
    active += 1;
    const { job, resolve, reject } = queue.shift();
    job().then(resolve, reject).finally(() => {
      active -= 1;
      next();
    });
  };
  return (job) =>
    new Promise((resolve, reject) => {
      queue.push({ job, resolve, reject });
      next();
    });
}

// ─── Setup: toolchains, the tarball, the projects ───────────────────────────────────────────────

function findTarball() {
  const dir = join(ROOT, 'target/pack');
  const found = existsSync(dir) ? readdirSync(dir).filter((f) => /^memcore-.*\.tgz$/.test(f)) : [];
  if (found.length !== 1) {
    throw new Error(
      `tests/packaging/browser: expected exactly one target/pack/memcore-*.tgz, found ${found.length ? found.join(', ') : 'none'}. ` +
        'Build and pack the package first: scripts/build.sh && scripts/install-package.sh',
    );
  }
  return join(dir, found[0]);
}

/** `npm ci` in tests/packaging/browser when its lockfile changed since the last install (like scripts/setup.sh). */
async function installToolchains() {
  const stamp = join(GROUP, 'node_modules/.memcore-lock-hash');
  const want = createHash('sha256').update(readFileSync(join(GROUP, 'package-lock.json'))).digest('hex');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === want) return false;
  await run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: GROUP });
  writeFileSync(stamp, want + '\n');
  return true;
}

/** Copy a fixture (plus the shared page code, into `sharedInto`) and the installed package into .work/<name>. */
function project(name, fixture, sharedInto = '.') {
  const dir = join(WORK, name);
  cpSync(join(FIXTURES, fixture), dir, { recursive: true });
  cpSync(join(FIXTURES, 'shared'), join(dir, sharedInto), { recursive: true });
  cpSync(join(WORK, '_install/node_modules/memcore'), join(dir, 'node_modules/memcore'), { recursive: true });
  return dir;
}

let browser;
let version;
let assets;
const builds = {};
const sizes = {};
const dirs = {};
const started = Date.now();

before(async () => {
  const tarball = findTarball();
  const browserStarting = launchChromium();
  browserStarting.catch(() => {});
  await installToolchains();
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(join(WORK, '_install'), { recursive: true });
  writeFileSync(join(WORK, '_install/package.json'), '{ "private": true }\n');
  await run('npm', ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', tarball], { cwd: join(WORK, '_install') });
  const pkgDir = join(WORK, '_install/node_modules/memcore');
  version = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).version;
  assets = assetHashes(pkgDir);

  dirs.vite = project('vite', 'vite');
  dirs.viteSlim = project('vite-slim', 'vite-slim');
  dirs.webpack = project('webpack', 'webpack', 'src');
  dirs.esbuild = project('esbuild', 'esbuild');
  dirs.bun = project('bun', 'bun');
  dirs.importmap = project('importmap', 'importmap');

  // Every build starts now, two at a time, slowest first; each test awaits the ones it serves.
  const limited = pool(2);
  const build = (key, dir, script) => {
    builds[key] = limited(() => run('npm', ['run', '--silent', script], { cwd: dir }));
    builds[key].catch(() => {}); // reported by the test that awaits it
  };
  build('webpack', dirs.webpack, 'build');
  build('vite', dirs.vite, 'build');
  build('viteSlim', dirs.viteSlim, 'build');
  build('esbuildPlugin', dirs.esbuild, 'build:plugin');
  build('esbuildCli', dirs.esbuild, 'build:cli');
  build('esbuildSlim', dirs.esbuild, 'build:slim');
  build('bunCli', dirs.bun, 'build:cli');
  build('bunPlugin', dirs.bun, 'build:plugin');
  build('bunSlim', dirs.bun, 'build:slim');
  browser = await browserStarting;
});

after(async () => {
  await browser?.close();
  if (Object.keys(sizes).length) {
    mkdirSync(join(ROOT, 'target/packaging'), { recursive: true });
    writeFileSync(SIZES, JSON.stringify({ version, note: 'bytes: the response bodies of one page load in a fresh browser context, as served (no compression); gzipBytes: the same bodies gzipped at level 9; breakdown: bytes by kind (asset = which memcore file the body is, by content)', scenarios: sizes }, null, 2) + '\n');
    const rows = [];
    for (const [scenario, pages] of Object.entries(sizes)) {
      for (const [page, s] of Object.entries(pages)) rows.push(`${scenario.padEnd(22)} ${page.padEnd(8)} ${String(s.bytes).padStart(9)} B  ${String(s.gzipBytes).padStart(9)} B gzip  (${formatBreakdown(s.breakdown)})`);
    }
    console.log(`bytes downloaded per page (written to ${SIZES}):\n${rows.join('\n')}\nwall time of the file: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
});

// ─── What every page must show ───────────────────────────────────────────────────────────────────

function breakdown(requests) {
  const by = {};
  for (const r of requests) {
    const kind = r.asset ?? (/\.m?js$/.test(r.path) || r.contentType?.includes('javascript') ? 'js' : r.contentType?.includes('html') ? 'html' : 'other');
    by[kind] = (by[kind] ?? 0) + r.bytes;
  }
  return by;
}
const formatBreakdown = (by) => Object.entries(by).map(([k, v]) => `${k} ${v}`).join(', ');

function record(scenario, page, result) {
  sizes[scenario] ??= {};
  sizes[scenario][page] = {
    bytes: result.bytes,
    gzipBytes: result.gzipBytes,
    requests: result.requests.length,
    breakdown: breakdown(result.requests),
    files: result.requests.map((r) => ({ path: r.path, bytes: r.bytes, ...(r.asset ? { asset: r.asset } : {}) })),
  };
}

const downloads = (requests, asset) => requests.filter((r) => r.asset === asset).length;
const tableRequests = (requests) => requests.filter((r) => r.path.endsWith('.bin') || r.asset === 'o200k_base' || r.asset === 'cl100k_base');

function checkHealthy(label, result) {
  assert.deepEqual(result.errors, [], `${label}: console or page errors`);
  assert.ok(result.report.ok, `${label}: the page failed: ${result.report.error}`);
  const failed = result.requests.filter((r) => r.status === null || r.status >= 400 || r.bodyError);
  assert.deepEqual(failed.map((r) => `${r.status} ${r.path}`), [], `${label}: failed requests (${describe(result.requests)})`);
  // The core .wasm, once, served as application/wasm (so instantiateStreaming was used).
  assert.equal(downloads(result.requests, 'wasm'), 1, `${label}: the .wasm downloads (${describe(result.requests)})`);
  const wasm = result.requests.find((r) => r.asset === 'wasm');
  assert.match(wasm.contentType ?? '', /^application\/wasm/, `${label}: the .wasm content type`);
}

function checkProfile(label, r) {
  assert.equal(r.version, version, `${label}: version()`);
  assert.deepEqual(r.headings, HEADINGS, `${label}: parseProfile headings`);
  assert.match(r.identity, /credit risk analyst/, `${label}: the Identity section`);
  assert.equal(r.userId, 'user_123', `${label}: the frontmatter`);
}

function checkCounts(label, r) {
  assert.equal(r.text, TEXT, `${label}: the page counted the shared sample`);
  assert.ok(r.text.startsWith(PROFILE));
  assert.equal(r.o200k, exact('o200k_base', r.text), `${label}: countTokens o200k_base`);
  assert.equal(r.cl100k, exact('cl100k_base', r.text), `${label}: countTokens cl100k_base`);
}

/** The default entry: counts exactly with both encodings after ready(); before it, E_NO_TOKENIZER. */
async function countPage(scenario, url) {
  const label = `${scenario} (count)`;
  const result = await runPage(browser, url, { assets });
  checkHealthy(label, result);
  const r = result.report.result;
  assert.equal(r.mode, 'count');
  checkProfile(label, r);
  assert.equal(r.beforeReady, 'E_NO_TOKENIZER', `${label}: countTokens before ready()`);
  assert.equal(r.beforeReadyCl100k, 'E_NO_TOKENIZER', `${label}: countTokens cl100k_base before ready()`);
  checkCounts(label, r);
  assert.equal(downloads(result.requests, 'o200k_base'), 1, `${label}: o200k_base downloads (${describe(result.requests)})`);
  assert.equal(downloads(result.requests, 'cl100k_base'), 1, `${label}: cl100k_base downloads (${describe(result.requests)})`);
  record(scenario, 'count', result);
}

/** A page that only parses: the .wasm and nothing of the tokenizer. */
async function parsePage(scenario, url) {
  const label = `${scenario} (parse only)`;
  const result = await runPage(browser, url, { assets });
  checkHealthy(label, result);
  assert.equal(result.report.result.mode, 'parse');
  checkProfile(label, result.report.result);
  assert.deepEqual(tableRequests(result.requests).map((r) => r.path), [], `${label}: no table may be requested (${describe(result.requests)})`);
  record(scenario, 'parse', result);
}

/** `import 'memcore/tokenizer/o200k_base'` (before 'memcore'): that table downloads with nothing counted; cl100k_base does not. */
async function preloadPage(scenario, url) {
  const label = `${scenario} (table import)`;
  const result = await runPage(browser, url, {
    assets,
    interact: async (page, session) => {
      await session.waitForAsset('o200k_base', 20000);
      return page.evaluate(() => window.__count());
    },
  });
  checkHealthy(label, result);
  assert.equal(result.report.result.version, version);
  assert.equal(result.extra.text, TEXT);
  assert.equal(result.extra.o200k, exact('o200k_base', TEXT), `${label}: countTokens o200k_base`);
  assert.equal(downloads(result.requests, 'o200k_base'), 1, `${label}: o200k_base downloads`);
  assert.equal(downloads(result.requests, 'cl100k_base'), 0, `${label}: cl100k_base must not download (${describe(result.requests)})`);
  record(scenario, 'preload', result);
}

/** memcore/slim: nothing before init(); the page hands over the .wasm and both tables itself. */
async function slimPage(scenario, url) {
  const label = `${scenario} (slim)`;
  const result = await runPage(browser, url, { assets });
  checkHealthy(label, result);
  const r = result.report.result;
  assert.equal(r.mode, 'slim');
  assert.equal(r.beforeInit, 'E_NOT_INITIALIZED', `${label}: version() before init`);
  checkProfile(label, r);
  assert.equal(r.beforeReady, 'E_NO_TOKENIZER', `${label}: countTokens before loadTokenizer`);
  assert.equal(r.beforeReadyCl100k, 'E_NO_TOKENIZER', `${label}: countTokens cl100k_base before loadTokenizer`);
  assert.deepEqual(r.loaded, ['o200k_base', 'cl100k_base'], `${label}: loadTokenizer answers`);
  assert.deepEqual(r.hasTokenizer, [true, true]);
  checkCounts(label, r);
  assert.equal(downloads(result.requests, 'o200k_base'), 1, `${label}: o200k_base downloads`);
  assert.equal(downloads(result.requests, 'cl100k_base'), 1, `${label}: cl100k_base downloads`);
  record(scenario, 'slim', result);
}

async function served(dir, fn) {
  const server = await serveDir(dir);
  try {
    await fn(server.url);
  } finally {
    await server.close();
  }
}

/** `vite` (the dev server) on 127.0.0.1 and a free port, for the duration of `fn`. */
async function viteDev(dir, fn) {
  // The port is free when chosen; should another process take it first, `--strictPort` fails fast.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await viteDevOnce(dir, await freePort(), fn);
    } catch (error) {
      if (attempt === 3 || !/already in use/i.test(error.message)) throw error;
    }
  }
}

async function viteDevOnce(dir, port, fn) {
  const vite = join(GROUP, 'node_modules/vite/bin/vite.js');
  // No colour: a CI that sets FORCE_COLOR would otherwise wrap the port in escape codes.
  const env = { ...process.env, NO_COLOR: '1' };
  delete env.FORCE_COLOR;
  const child = spawn(process.execPath, [vite, '--host', '127.0.0.1', '--port', String(port), '--strictPort', '--clearScreen', 'false'], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const onData = (d) => (output += String(d).replace(/\x1b\[[0-9;]*m/g, ''));
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  let gone = null;
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve((gone = `${signal ?? code}`))));
  try {
    // Ready when the server answers over HTTP (not when a line of its log looks right).
    for (let waited = 0; ; waited += 200) {
      if (gone !== null) throw new Error(`vite dev exited (${gone}) before listening:\n${output}`);
      if (/already in use/i.test(output)) throw new Error(output);
      const up = await fetch(`http://127.0.0.1:${port}/`).then(
        () => true,
        () => false,
      );
      if (up) break;
      if (waited > 60_000) throw new Error(`vite dev did not answer within 60 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await fn(`http://127.0.0.1:${port}/`);
    assert.doesNotMatch(output, /error/i, `vite dev server output:\n${output}`);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

// ─── The toolchains ──────────────────────────────────────────────────────────────────────────────

test('Vite: `vite build` with no config, served from dist/', async () => {
  await builds.vite;
  await served(join(dirs.vite, 'dist'), async (url) => {
    await countPage('vite-build', url);
    await parsePage('vite-build', `${url}?parse`);
  });
});

test('Vite: the dev server (`vite`, no config) serves the same pages', async () => {
  await builds.vite; // the same project: the build's dist/ is not used by the dev server
  await viteDev(dirs.vite, async (url) => {
    await countPage('vite-dev', url);
    await parsePage('vite-dev', `${url}?parse`);
    await preloadPage('vite-dev', `${url}preload.html`);
  });
});

test('Vite: memcore/slim with `?url` for the exported .wasm and .bin files (build and dev server)', async () => {
  await builds.viteSlim;
  await served(join(dirs.viteSlim, 'dist'), (url) => slimPage('vite-slim-build', url));
  await viteDev(dirs.viteSlim, (url) => slimPage('vite-slim-dev', url));
});

test('webpack 5: `webpack` with mode and entries only (assets from new URL, top-level await built in)', async () => {
  await builds.webpack;
  await served(join(dirs.webpack, 'dist'), async (url) => {
    await countPage('webpack', url);
    await parsePage('webpack', `${url}?parse`);
    await preloadPage('webpack', `${url}preload.html`);
    await slimPage('webpack-slim', `${url}slim.html`);
  });
});

test('esbuild: the JS API with memcoreAssets() from memcore/esbuild', async () => {
  await builds.esbuildPlugin;
  assert.ok(existsSync(join(dirs.esbuild, 'dist-plugin/wasm/memcore_bg.wasm')));
  assert.ok(existsSync(join(dirs.esbuild, 'dist-plugin/tokenizer/o200k_base.bin')));
  await served(join(dirs.esbuild, 'dist-plugin'), async (url) => {
    await countPage('esbuild-plugin', url);
    await parsePage('esbuild-plugin', `${url}?parse`);
    await preloadPage('esbuild-plugin', `${url}preload.html`);
  });
});

test('esbuild: the plain CLI, then a copy of wasm/ and tokenizer/*.bin into the outdir', async () => {
  await builds.esbuildCli;
  await served(join(dirs.esbuild, 'dist-cli'), async (url) => {
    await countPage('esbuild-cli', url);
    await parsePage('esbuild-cli', `${url}?parse`);
    await preloadPage('esbuild-cli', `${url}preload.html`);
  });
});

test('esbuild: memcore/slim with the file loader for the exported .wasm and .bin files', async () => {
  await builds.esbuildSlim;
  await served(join(dirs.esbuild, 'dist-slim'), (url) => slimPage('esbuild-slim', url));
});

test('Bun: `bun build --target=browser`, then the same copy step', async () => {
  await builds.bunCli;
  await served(join(dirs.bun, 'dist-cli'), async (url) => {
    await countPage('bun-cli', url);
    await parsePage('bun-cli', `${url}?parse`);
    await preloadPage('bun-cli', `${url}preload.html`);
  });
});

test('Bun: Bun.build with memcoreAssets() (Bun plugins have the onEnd hook)', async () => {
  await builds.bunPlugin;
  await served(join(dirs.bun, 'dist-plugin'), async (url) => {
    await countPage('bun-plugin', url);
    await parsePage('bun-plugin', `${url}?parse`);
    await preloadPage('bun-plugin', `${url}preload.html`);
  });
});

test("Bun: memcore/slim with `with { type: 'file' }` for the exported .wasm and .bin files", async () => {
  await builds.bunSlim;
  await served(join(dirs.bun, 'dist-slim'), (url) => slimPage('bun-slim', url));
});

test('no bundler: an import map to /node_modules/memcore/browser.js, the project dir served as is', async () => {
  await served(dirs.importmap, async (url) => {
    await countPage('importmap', url);
    await parsePage('importmap', `${url}?parse`);
    await preloadPage('importmap', `${url}preload.html`);
  });
});

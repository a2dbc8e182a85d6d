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
import { ContextMemory, InMemoryEntryStore, applyUserEdit } from 'memcore';
import { EMPTY_PROFILE_BODY } from 'memcore/constants';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import { createMemoryHandler, toNodeListener } from 'memcore/server';

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
  dirs.viteEditor = project('vite-editor', 'vite-editor');

  // Every build starts now, two at a time, slowest first; each test awaits the ones it serves.
  const limited = pool(2);
  const build = (key, dir, script) => {
    builds[key] = limited(() => run('npm', ['run', '--silent', script], { cwd: dir }));
    builds[key].catch(() => {}); // reported by the test that awaits it
  };
  build('webpack', dirs.webpack, 'build');
  build('vite', dirs.vite, 'build');
  build('viteSlim', dirs.viteSlim, 'build');
  build('viteEditor', dirs.viteEditor, 'build');
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

/** `core`: which core the page starts, `wasm` (the full one) or `profileWasm` (the profile-only one). */
function checkHealthy(label, result, core = 'wasm') {
  assert.deepEqual(result.errors, [], `${label}: console or page errors`);
  assert.ok(result.report.ok, `${label}: the page failed: ${result.report.error}`);
  const failed = result.requests.filter((r) => r.status === null || r.status >= 400 || r.bodyError);
  assert.deepEqual(failed.map((r) => `${r.status} ${r.path}`), [], `${label}: failed requests (${describe(result.requests)})`);
  // The core .wasm, once, served as application/wasm (so instantiateStreaming was used); the other never.
  assert.equal(downloads(result.requests, core), 1, `${label}: the .wasm downloads (${describe(result.requests)})`);
  assert.equal(downloads(result.requests, core === 'wasm' ? 'profileWasm' : 'wasm'), 0, `${label}: the other core's downloads`);
  const wasm = result.requests.find((r) => r.asset === core);
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
async function slimPage(scenario, url, { profile = false } = {}) {
  const label = `${scenario} (slim${profile ? ', profile-only core' : ''})`;
  const result = await runPage(browser, url, { assets });
  checkHealthy(label, result, profile ? 'profileWasm' : 'wasm');
  const r = result.report.result;
  assert.equal(r.mode, 'slim');
  assert.equal(r.beforeInit, 'E_NOT_INITIALIZED', `${label}: version() before init`);
  checkProfile(label, r);
  assert.equal(r.beforeReady, 'E_NO_TOKENIZER', `${label}: countTokens before loadTokenizer`);
  assert.equal(r.beforeReadyCl100k, 'E_NO_TOKENIZER', `${label}: countTokens cl100k_base before loadTokenizer`);
  assert.deepEqual(r.loaded, ['o200k_base', 'cl100k_base'], `${label}: loadTokenizer answers`);
  assert.deepEqual(r.hasTokenizer, [true, true]);
  checkCounts(label, r);
  assert.equal(r.entries, profile ? 'E_CONFIG' : 'no error', `${label}: entry memory (searchTerms)`);
  assert.equal(r.afterEntries, r.o200k, `${label}: a count after the entry-memory call`);
  assert.equal(downloads(result.requests, 'o200k_base'), 1, `${label}: o200k_base downloads`);
  assert.equal(downloads(result.requests, 'cl100k_base'), 1, `${label}: cl100k_base downloads`);
  record(scenario, profile ? 'slimProfileCore' : 'slim', result);
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

test('Vite: memcore/slim with `?url` for the exported .wasm and .bin files, the full core and the profile-only core (build and dev server)', async () => {
  await builds.viteSlim;
  await served(join(dirs.viteSlim, 'dist'), async (url) => {
    await slimPage('vite-slim-build', url);
    await slimPage('vite-slim-build', `${url}?profile`, { profile: true });
  });
  await viteDev(dirs.viteSlim, async (url) => {
    await slimPage('vite-slim-dev', url);
    await slimPage('vite-slim-dev', `${url}?profile`, { profile: true });
  });
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

// ─── memcore/editor in a Vite app ────────────────────────────────────────────────────────────────
// The Settings element imported from the package (JS + CSS through the bundler), driven through
// every state in Chromium; screenshots into target/screenshots/package-editor-<state>.png.

const SCREENSHOTS = join(ROOT, 'target/screenshots');
const STORED_BODY = `# User Memory

## Identity
- Works as a credit risk analyst in Zurich.

## Communication Preferences
- Prefers concise answers with concrete examples.

## Work Context
- Preparing the quarterly IFRS 9 impairment report.

## Skills & Expertise
_(empty)_

## Recent Topics
- 2026-06-17 11:40 UTC: Discussed expected-credit-loss staging rules.

## Follow-ups
_(empty)_
`;

const editorUi = (page) => ({
  root: page.locator('#memory'),
  status: page.getByTestId('editor-status'),
  message: page.getByTestId('editor-message'),
  body: page.getByTestId('editor-body'),
  save: page.getByTestId('editor-save'),
  discard: page.getByTestId('editor-discard'),
  retry: page.getByTestId('editor-retry'),
  start: page.getByTestId('editor-start'),
  diagnostics: page.getByTestId('editor-diagnostics'),
  meta: page.getByTestId('editor-meta'),
});
const inEditorState = (page, state) => page.locator(`#memory[data-state="${state}"]`).waitFor({ timeout: 20000 });
/** Wait until the page's callbacks have been called `n` times; the last call. */
async function nthCall(page, n) {
  await page.waitForFunction((count) => window.__calls.length >= count, n, { timeout: 20000 });
  return page.evaluate((i) => ({ kind: window.__calls[i].kind, body: window.__calls[i].body ?? null, aborted: window.__calls[i].aborted, abortReason: window.__calls[i].abortReason }), n - 1);
}
const settle = (page, index, how, value) => page.evaluate(([i, h, v]) => window.__settle(i, h, v), [index, how, value]);
async function photograph(page, state) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `package-editor-${state}.png`), fullPage: true });
}
function checkEditorPage(label, result) {
  assert.deepEqual(result.errors, [], `${label}: console or page errors`);
  assert.ok(result.report.ok, `${label}: the page failed: ${result.report.error}`);
  assert.deepEqual(result.report.result.states, ['loading', 'empty', 'unavailable', 'error', 'ready', 'unsaved', 'saving', 'saved', 'save-error']);
  assert.equal(result.report.result.limit, 1048576);
  const failed = result.requests.filter((r) => r.status === null || r.status >= 400 || r.bodyError);
  assert.deepEqual(failed.map((r) => `${r.status} ${r.path}`), [], `${label}: failed requests (${describe(result.requests)})`);
  assert.deepEqual(tableRequests(result.requests).map((r) => r.path), [], `${label}: the editor never loads a tokenizer table`);
  // The CSS came with the bundle: the editor's own rules apply.
  assert.ok(result.requests.some((r) => r.path.endsWith('.css')), `${label}: no stylesheet was loaded (${describe(result.requests)})`);
}

test('memcore/editor in a Vite build: every state through load/save callbacks, photographed', async () => {
  await builds.viteEditor;
  const seen = new Set();
  await served(join(dirs.viteEditor, 'dist'), async (url) => {
    const result = await runPage(browser, `${url}?callbacks`, {
      assets,
      interact: async (page, session) => {
        const e = editorUi(page);
        const at = async (state) => {
          await inEditorState(page, state);
          seen.add(state);
          await photograph(page, state);
        };
        // The editor's stylesheet applies (scoped to .cm-editor).
        assert.equal(await e.root.evaluate((el) => getComputedStyle(el).display), 'flex');

        assert.equal((await nthCall(page, 1)).kind, 'load');
        await at('loading');
        assert.equal(await e.status.textContent(), 'Loading your context memory…');
        assert.equal(await e.root.getAttribute('aria-busy'), 'true');
        assert.equal(downloads(session.requests, 'wasm'), 0, 'the core is not loaded to show the page');

        await settle(page, 0, 'reject', { message: 'the profile service is down' });
        await at('error');
        assert.equal(await e.message.textContent(), 'The profile service is down. Your memory is unchanged.');
        assert.equal(await e.retry.isVisible(), true);

        await e.retry.click();
        assert.equal((await nthCall(page, 2)).kind, 'load');
        await settle(page, 1, 'reject', { message: 'You turned context memory off in your preferences.', code: 'E_MEMORY_DISABLED', details: { reason: 'user-opted-out' } });
        await at('unavailable');
        assert.equal(await e.message.textContent(), 'You turned context memory off in your preferences.');
        assert.equal(await e.message.getAttribute('data-reason'), 'user-opted-out');
        assert.equal(await e.body.isVisible(), false);

        await page.evaluate(() => { window.__editor.reload(); });
        await nthCall(page, 3);
        await settle(page, 2, 'resolve', { exists: false, body: '', lastUpdated: null, turnCount: null });
        await at('empty');
        assert.match(await e.message.textContent(), /Memory builds up from your conversations/);

        await e.start.click();
        await inEditorState(page, 'unsaved');
        assert.equal(await e.body.inputValue(), EMPTY_PROFILE_BODY, 'the starting body is the package constant');
        // A renamed heading: the core (imported by the editor on the first edit, through the
        // bundle) reports it inline before saving.
        const edited = EMPTY_PROFILE_BODY.replace('## Work Context\n_(empty)_', '## Job\n- Leads the model validation team.');
        await e.body.fill(edited);
        await page.locator('#memory[data-diagnosed]').waitFor({ timeout: 20000 });
        const expected = applyUserEdit(null, edited, { userId: 'preview', now: 0 }).diagnostics.filter((d) => d.severity === 'warning');
        assert.ok(expected.length > 0);
        assert.equal(await page.locator('#memory').getAttribute('data-diagnosed'), String(expected.length));
        for (const d of expected) assert.match(await e.diagnostics.textContent(), new RegExp(`line ${d.line}`));
        await session.waitForAsset('wasm', 20000);
        await at('unsaved');
        assert.equal(await e.save.isEnabled(), true);
        assert.equal(await e.discard.isEnabled(), true);

        await e.save.click();
        const saving = await nthCall(page, 4);
        assert.deepEqual([saving.kind, saving.body], ['save', edited]);
        await at('saving');
        assert.equal(await e.body.getAttribute('readonly'), '');
        assert.equal(await e.save.textContent(), 'Saving…');

        await settle(page, 3, 'reject', { message: 'the disk is full' });
        await at('save-error');
        assert.equal(await e.status.textContent(), 'Could not save: the disk is full. Your edit is still here; try again.');
        assert.equal(await e.body.inputValue(), edited, 'the edit is kept');

        await e.body.press('Control+s');
        assert.equal((await nthCall(page, 5)).body, edited);
        await settle(page, 4, 'resolve', {
          saved: true, exists: true, body: edited, lastUpdated: '2026-06-17T12:00:00+00:00', turnCount: 0,
          diagnostics: applyUserEdit(null, edited, { userId: 'user_123', now: 0 }).diagnostics, redactedSecrets: 1,
        });
        await at('saved');
        assert.equal(await e.status.textContent(), 'Saved — see the notes below. A password or key was replaced by [redacted]: memory never keeps credentials.');
        assert.equal(await e.meta.textContent(), 'Last updated 2026-06-17 12:00 UTC · 0 automatic rewrites');
        assert.equal(await e.save.isDisabled(), true);

        await page.evaluate(() => { window.__editor.reload(); });
        await nthCall(page, 6);
        await settle(page, 5, 'resolve', { exists: true, body: STORED_BODY, lastUpdated: '2026-06-17T12:00:00+00:00', turnCount: 12 });
        await at('ready');
        assert.equal(await e.body.inputValue(), STORED_BODY);
        assert.equal(await e.meta.textContent(), 'Last updated 2026-06-17 12:00 UTC · 12 automatic rewrites');
        assert.equal(await e.save.isDisabled(), true);
        // destroy(): the element is emptied, later answers change nothing.
        await page.evaluate(() => { window.__editor.reload(); window.__editor.destroy(); });
        await nthCall(page, 7);
        await settle(page, 6, 'resolve', { exists: false, body: '', lastUpdated: null, turnCount: null });
        assert.equal(await page.evaluate(() => document.getElementById('memory').childElementCount), 0);
        return null;
      },
    });
    checkEditorPage('vite-editor (callbacks)', result);
    assert.equal(downloads(result.requests, 'wasm'), 1, 'the core, once, for the diagnostics');
    record('vite-editor', 'editor', result);
  });
  assert.deepEqual([...seen].sort(), ['empty', 'error', 'loading', 'ready', 'save-error', 'saved', 'saving', 'unavailable', 'unsaved']);
});

test('memcore/editor in a Vite build: bad answers and a callback that never answers are errors, the next load works', async () => {
  await builds.viteEditor;
  await served(join(dirs.viteEditor, 'dist'), async (url) => {
    const result = await runPage(browser, `${url}?callbacks`, {
      assets,
      interact: async (page) => {
        const e = editorUi(page);
        const bad = [null, 'memory', { exists: 'yes' }, { exists: true, body: 42 }];
        for (const [i, answer] of bad.entries()) {
          if (i > 0) await e.retry.click();
          await nthCall(page, i + 1);
          await settle(page, i, 'resolve', answer);
          await page.waitForFunction((n) => document.querySelector('#memory').dataset.state === 'error' && window.__calls.length === n, i + 1);
          assert.equal(await e.message.textContent(), 'The answer is not a profile view ({ exists, body, lastUpdated, turnCount }). Your memory is unchanged.', JSON.stringify(answer));
        }
        // A thrown non-Error and a save answer with junk diagnostics: shown, not crashed on.
        await e.retry.click();
        await nthCall(page, bad.length + 1);
        await settle(page, bad.length, 'resolve', { exists: true, body: STORED_BODY, lastUpdated: 'not a date', turnCount: -3 });
        await inEditorState(page, 'ready');
        assert.equal(await e.meta.textContent(), '', 'an unreadable date is not shown');
        await e.body.fill(`${STORED_BODY}- One more.\n`);
        await e.save.click();
        await nthCall(page, bad.length + 2);
        await settle(page, bad.length + 1, 'resolve', { exists: true, body: `${STORED_BODY}- One more.\n`, lastUpdated: null, turnCount: null, diagnostics: [null, { line: 'x' }, 7], redactedSecrets: 'many' });
        await inEditorState(page, 'saved');
        assert.equal(await e.status.textContent(), 'Saved.');
      },
    });
    checkEditorPage('vite-editor (bad answers)', result);

    const timedOut = await runPage(browser, `${url}?callbacks&timeout=300`, {
      assets,
      interact: async (page) => {
        const e = editorUi(page);
        await nthCall(page, 1);
        await inEditorState(page, 'error');
        assert.equal(await e.message.textContent(), 'No answer within 0.3 s. Your memory is unchanged.');
        const call = await nthCall(page, 1);
        assert.equal(call.aborted, true, "the callback's signal is aborted");
        assert.equal(call.abortReason, 'no answer within 0.3 s');
        // A late answer changes nothing; Retry loads again.
        await settle(page, 0, 'resolve', { exists: true, body: 'late', lastUpdated: null, turnCount: null });
        assert.equal(await page.locator('#memory').getAttribute('data-state'), 'error');
        await e.retry.click();
        await nthCall(page, 2);
        await settle(page, 1, 'resolve', { exists: false, body: '', lastUpdated: null, turnCount: null });
        await inEditorState(page, 'empty');
      },
    });
    checkEditorPage('vite-editor (timeout)', timedOut);
  });
});

test('memcore/editor in a Vite build over memcore/server: the stored profile is shown and saved', async () => {
  await builds.viteEditor;
  const memory = new ContextMemory({ storage: new InMemoryProfileStorage() });
  await memory.updateMyContextMemory('user_123', STORED_BODY);
  const api = toNodeListener(createMemoryHandler({ entries: new InMemoryEntryStore(), profiles: memory, authenticate: () => ({ userId: 'user_123' }) }));
  const server = await serveDir(join(dirs.viteEditor, 'dist'), { api });
  try {
    const added = `${STORED_BODY}- Asked to keep the API key sk-Zq8vT2mPw9LkR4sY7bXcQ1 handy.\n`;
    const result = await runPage(browser, server.url, {
      assets,
      interact: async (page, session) => {
        const e = editorUi(page);
        await inEditorState(page, 'ready');
        assert.equal(await e.body.inputValue(), STORED_BODY);
        assert.equal(downloads(session.requests, 'wasm'), 0, 'no wasm to show the stored profile');
        await e.body.fill(added);
        await inEditorState(page, 'unsaved');
        await page.locator('#memory[data-diagnosed="0"]').waitFor({ timeout: 20000 });
        await e.save.click();
        await inEditorState(page, 'saved');
        return { status: await e.status.textContent(), body: await e.body.inputValue() };
      },
    });
    checkEditorPage('vite-editor (endpoint)', result);
    assert.equal(result.extra.status, 'Saved. A password or key was replaced by [redacted]: memory never keeps credentials.');
    const stored = await memory.getMyContextMemory('user_123');
    assert.equal(stored.body, result.extra.body, 'the page shows what was stored');
    assert.match(stored.body, /Asked to keep the API key \[redacted\] handy\./);
    assert.ok(result.requests.some((r) => r.path === '/contextmemory/me' && r.status === 200));
  } finally {
    await server.close();
  }
});

test('memcore/editor on the Vite dev server: over a ContextMemory in the page (contextMemoryCallbacks)', async () => {
  await builds.viteEditor;
  await viteDev(dirs.viteEditor, async (url) => {
    const result = await runPage(browser, `${url}?local`, {
      assets,
      interact: async (page) => {
        const e = editorUi(page);
        await inEditorState(page, 'empty');
        await e.start.click();
        const body = EMPTY_PROFILE_BODY.replace('## Identity\n_(empty)_', '## Identity\n- A data engineer in Lisbon.');
        await e.body.fill(body);
        await e.save.click();
        await inEditorState(page, 'saved');
        const view = await page.evaluate(() => window.__contextMemory.getMyContextMemory('user_123'));
        assert.equal(view.exists, true);
        assert.equal(view.body, body);
        assert.equal(view.turnCount, 0);
        await page.evaluate(() => { window.__editor.reload(); });
        await inEditorState(page, 'ready');
        assert.equal(await e.body.inputValue(), body);
      },
    });
    checkEditorPage('vite-editor (dev, local)', result);
  });
});

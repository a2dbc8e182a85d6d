// Helpers for tests/packaging/browser.test.mjs: a static server on 127.0.0.1, Chromium (Debian's,
// through playwright-core), and a page runner that records every request and response (status,
// body size, which memcore asset the body is) and every console error and page error.
import { createServer } from 'node:http';
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createServer as netServer } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.wasm': 'application/wasm',
  '.bin': 'application/octet-stream',
};

/**
 * Serve `root` as static files on 127.0.0.1 (a random free port); resolves to `{ url, close() }`.
 * `api(req, res)` (a Node listener) answers the paths under `apiPrefix` instead.
 */
export function serveDir(root, { api, apiPrefix = '/contextmemory/' } = {}) {
  const base = normalize(root + sep);
  const server = createServer(async (req, res) => {
    if (api && req.url.startsWith(apiPrefix)) return api(req, res);
    let path;
    try {
      path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      res.writeHead(400).end('bad request');
      return;
    }
    let file = normalize(join(base, path));
    if (!file.startsWith(base)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    try {
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}/`,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      });
    });
  });
}

/** A free TCP port on 127.0.0.1 (for a server that must be told its port, like `vite --strictPort`). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = netServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

export function launchChromium() {
  // playwright gives every launch a fresh, empty user-data-dir of its own.
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** The package's binary assets by content hash: `{ [sha256]: 'wasm' | 'profileWasm' | 'o200k_base' | 'cl100k_base' }`. */
export function assetHashes(pkgDir) {
  return {
    [sha256(readFileSync(join(pkgDir, 'wasm/memcore_bg.wasm')))]: 'wasm',
    [sha256(readFileSync(join(pkgDir, 'wasm/memcore_profile_bg.wasm')))]: 'profileWasm',
    [sha256(readFileSync(join(pkgDir, 'tokenizer/o200k_base.bin')))]: 'o200k_base',
    [sha256(readFileSync(join(pkgDir, 'tokenizer/cl100k_base.bin')))]: 'cl100k_base',
  };
}

const gzipCache = new Map();
function gzipSize(hash, body) {
  if (!gzipCache.has(hash)) gzipCache.set(hash, gzipSync(body, { level: 9 }).length);
  return gzipCache.get(hash);
}

/**
 * Open `url` in a fresh browser context (no cache) and wait until the page set `window.__memcore`.
 * `interact(page, session)` may then drive the page (its value is returned as `extra`). Resolves to
 * `{ report, extra, requests, errors, bytes, gzipBytes }`: `requests` lists every request with its
 * status, body size and `asset` (which memcore file the body is, by content), `bytes` sums the
 * response bodies (as served: no compression), `gzipBytes` the same bodies gzipped (level 9).
 */
export async function runPage(browser, url, { assets, interact, timeout = 30000 } = {}) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  const requests = [];
  const pending = [];
  const listeners = new Set();
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console error: ${msg.text()}`);
    // wasm-bindgen falls back to a slower path, with a warning, when .wasm is not application/wasm.
    if (msg.type() === 'warning' && /instantiateStreaming|MIME/i.test(msg.text())) errors.push(`console warning: ${msg.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => {
    if (!request.url().startsWith('data:')) errors.push(`request failed: ${request.url()} ${request.failure()?.errorText}`);
  });
  page.on('request', (request) => {
    if (request.url().startsWith('data:')) return;
    requests.push({ url: request.url(), path: new URL(request.url()).pathname, status: null, bytes: 0, gzipBytes: 0, asset: null, request });
  });
  page.on('response', (response) => {
    const entry = requests.find((r) => r.request === response.request());
    if (!entry) return;
    entry.status = response.status();
    pending.push(
      (async () => {
        try {
          if (entry.status >= 300 && entry.status < 400) return;
          const body = await response.body();
          const hash = sha256(body);
          entry.bytes = body.length;
          entry.gzipBytes = gzipSize(hash, body);
          entry.asset = assets?.[hash] ?? null;
          entry.contentType = response.headers()['content-type'];
          for (const listener of listeners) listener(entry);
        } catch (error) {
          entry.bodyError = String(error?.message ?? error);
        }
      })(),
    );
  });
  const session = {
    requests,
    /** Resolves with the request whose body is `asset` once it has arrived (rejects after `ms`). */
    waitForAsset(asset, ms = timeout) {
      const found = requests.find((r) => r.asset === asset);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(listener);
          reject(new Error(`no ${asset} was downloaded within ${ms} ms; requests: ${describe(requests)}`));
        }, ms);
        const listener = (entry) => {
          if (entry.asset !== asset) return;
          clearTimeout(timer);
          listeners.delete(listener);
          resolve(entry);
        };
        listeners.add(listener);
      });
    },
  };
  try {
    await page.goto(url);
    try {
      await page.waitForFunction(() => window.__memcore !== undefined, null, { timeout });
    } catch (error) {
      throw new Error(`${url}: the page never reported (${error.message.split('\n')[0]}); errors: ${JSON.stringify(errors)}; requests: ${describe(requests)}`);
    }
    const report = await page.evaluate(() => window.__memcore);
    const extra = report.ok && interact ? await interact(page, session) : undefined;
    // Let anything the page still starts (a table download nobody asked for) show up.
    await page.waitForLoadState('networkidle');
    await page.evaluate(() => new Promise((r) => setTimeout(r, 250)));
    await Promise.all(pending);
    for (const r of requests) delete r.request;
    return {
      report,
      extra,
      requests,
      errors,
      bytes: requests.reduce((sum, r) => sum + r.bytes, 0),
      gzipBytes: requests.reduce((sum, r) => sum + r.gzipBytes, 0),
    };
  } finally {
    await context.close();
  }
}

export function describe(requests) {
  return requests.map((r) => `${r.status ?? '…'} ${r.path}${r.asset ? ` (${r.asset})` : ''} ${r.bytes} B`).join('; ');
}

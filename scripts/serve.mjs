// The local server for www/ on 127.0.0.1 only:
//   /                       → www/ (index, editor.html, playground.html)
//   /node_modules/memcore/  → the installed package (node_modules/memcore), else the built pkg/
//   /contextmemory/me       → GET/PUT the Settings surface over a ContextMemory with file storage
//                             (memcore/server's createMemoryHandler; test hooks in faults.mjs)
// `node scripts/serve.mjs [port] [--data DIR] [--user ID] [--empty] [--slow MS] [--fail get|put]
//  [--unavailable web-search|opted-out|flag-off|space-off]` — see the README.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { extname, normalize, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ContextMemory, FileSystemProfileStorage, InMemoryEntryStore, createMemoryHandler, memoryPath, packageDir } from './serve/memcore.mjs';
import { withFaults } from './serve/faults.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.md': 'text/markdown; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.bin': 'application/octet-stream',
};

function resolvePath(urlPath) {
  let clean;
  try {
    clean = normalize(decodeURIComponent(urlPath)).replace(/^([/\\])+/, '');
  } catch {
    return null;
  }
  const pkgPrefix = `node_modules${sep}memcore`;
  const [mount, rest] = clean === pkgPrefix || clean.startsWith(pkgPrefix + sep)
    ? [packageDir, clean.slice(pkgPrefix.length)]
    : [join(root, 'www'), clean];
  const file = join(mount, rest === '' ? 'index.html' : rest);
  // Refuse anything that escapes its mount (e.g. /../../etc/passwd).
  return file === mount || file.startsWith(mount + sep) ? file : null;
}

async function serveStatic(req, res) {
  const file = resolvePath(new URL(req.url, 'http://x').pathname);
  if (!file) {
    res.writeHead(403).end('forbidden');
    return;
  }
  try {
    const body = await readFile(file.endsWith(sep) ? join(file, 'index.html') : file);
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(body);
  } catch {
    res.writeHead(404).end('not found');
  }
}

/** node:http → a Fetch-API handler (the shape createMemoryHandler will have). */
async function bridge(handler, req, res) {
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const request = new Request(new URL(req.url, `http://${req.headers.host ?? '127.0.0.1'}`), {
    method: req.method,
    headers: Object.entries(req.headers).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]])),
    body: hasBody ? Readable.toWeb(req) : undefined,
    duplex: hasBody ? 'half' : undefined,
  });
  const response = await handler(request);
  if (!response) return false;
  // An answer given before the request body was read (a 413) ends the connection: the client is
  // still sending, and the rest of its upload must not be read as the next request.
  const headers = Object.fromEntries(response.headers);
  if (hasBody && !req.complete) headers.connection = 'close';
  res.writeHead(response.status, headers);
  res.end(Buffer.from(await response.arrayBuffer()));
  return true;
}

/** The paths memcore/server answers here; everything else is a static file. */
const API_PATH = /^\/(contextmemory|usermemorystore|propertiesstore|mcp)(\/|$)/;

const REASONS = {
  'web-search': { companyId: 'local', featureFlag: 'true', webSearchEnabled: true },
  'opted-out': { companyId: 'local', featureFlag: 'true', userAllowsMemory: false },
  'flag-off': { companyId: 'local', featureFlag: 'false' },
  'space-off': { companyId: 'local', featureFlag: 'true', spaceSetting: false },
};

/**
 * Start the server. Resolves to `{ url, close(), faults, setEnablement(inputs | null), dataDir,
 * userId, memoryFile }`. `serve(0)` (a port number) is the same as `serve({ port: 0 })`.
 * @param {number | { port?: number, dataDir?: string, userId?: string, seed?: boolean, enablement?: object | null }} options
 */
export async function serve(options = {}) {
  const { port = 0, dataDir = join(root, 'target', 'serve-data'), userId = 'local-user', seed = false, enablement = null } =
    typeof options === 'number' ? { port: options } : options;

  const storage = new FileSystemProfileStorage({ baseDir: resolve(dataDir) });
  const memory = new ContextMemory({ storage });
  const path = memoryPath(userId);
  if (seed && !(await storage.read(path))) {
    await storage.write(path, await readFile(join(root, 'www', 'sample-memory.md'), 'utf8'), { ifAbsent: true });
  }
  let inputs = enablement;
  // The package's own REST handler (memcore/server) serves the Settings operations (and, on the
  // same port, the entry-memory routes over an in-memory store); requests for other paths are the
  // pages and the package's files.
  const api = createMemoryHandler({
    entries: new InMemoryEntryStore(),
    profiles: memory,
    authenticate: () => ({ userId }),
    enablement: () => inputs,
  });
  const routed = (request) => (API_PATH.test(new URL(request.url).pathname) ? api(request) : null);
  const { handle, faults } = withFaults(routed);

  const server = createServer(async (req, res) => {
    try {
      if (!(await bridge(handle, req, res))) await serveStatic(req, res);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error?.message ?? error));
    }
  });
  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  const { port: actual } = server.address();
  return {
    url: `http://127.0.0.1:${actual}/`,
    faults,
    dataDir: storage.baseDir,
    userId,
    memoryFile: join(storage.baseDir, path),
    setEnablement: (next) => {
      inputs = next;
    },
    close: () => {
      faults.clear();
      const closed = new Promise((r) => server.close(r));
      server.closeAllConnections();
      return closed;
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      data: { type: 'string' },
      user: { type: 'string' },
      empty: { type: 'boolean' },
      slow: { type: 'string' },
      fail: { type: 'string', multiple: true },
      unavailable: { type: 'string' },
    },
  });
  if (values.unavailable && !REASONS[values.unavailable]) {
    console.error(`--unavailable must be one of ${Object.keys(REASONS).join(', ')}`);
    process.exit(2);
  }
  const server = await serve({
    port: Number(positionals[0] ?? 8080),
    dataDir: values.data,
    userId: values.user,
    seed: !values.empty,
    enablement: values.unavailable ? REASONS[values.unavailable] : null,
  });
  for (const method of ['GET', 'PUT']) {
    if (values.slow) server.faults.delay(method, Number(values.slow));
    if (values.fail?.some((m) => m.toUpperCase() === method)) server.faults.fail(method);
  }
  console.log(`memcore pages at ${server.url} (package from ${packageDir})`);
  console.log(`  Settings editor: ${server.url}editor.html   (profile: ${server.memoryFile})`);
  console.log(`  Playground:      ${server.url}playground.html`);
}

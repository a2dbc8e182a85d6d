// A tiny static server for www/ and the installed package, on 127.0.0.1 only.
//   /                      → www/
//   /node_modules/memcore/ → the installed package (node_modules/memcore)
// Used by the Chromium smoke test and by `node scripts/serve.mjs [port]` to try the playground.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, normalize, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.md': 'text/markdown; charset=utf-8',
  '.bin': 'application/octet-stream',
};

function resolvePath(urlPath) {
  const clean = normalize(decodeURIComponent(urlPath)).replace(/^([/\\])+/, '');
  const mount = clean.startsWith(`node_modules${sep}memcore`) ? root : join(root, 'www');
  const file = join(mount, clean === '' ? 'index.html' : clean);
  // Refuse anything that escapes its mount (e.g. /../../etc/passwd).
  return file.startsWith(mount) ? file : null;
}

/** Start the server; resolves to `{ url, close() }`. */
export function serve(port = 0) {
  const server = createServer(async (req, res) => {
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
  });
  return new Promise((resolve) => {
    server.listen(port, '127.0.0.1', () => {
      const { port: actual } = server.address();
      resolve({ url: `http://127.0.0.1:${actual}/`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url } = await serve(Number(process.argv[2] ?? 8080));
  console.log(`memcore playground at ${url}`);
}

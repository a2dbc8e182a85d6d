// The memcore the local server runs on: the installed package (what the tests use), else the
// package `make build` wrote into pkg/ — so `node scripts/serve.mjs` works right after a build.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
export const packageDir = existsSync(`${root}node_modules/memcore/package.json`) ? `${root}node_modules/memcore` : `${root}pkg`;
const installed = packageDir.endsWith('node_modules/memcore');
if (!installed && !existsSync(`${packageDir}/node.js`)) {
  throw new Error('memcore is not built: run `make build` (and `scripts/install-package.sh`) first');
}
const memcore = await import(installed ? 'memcore' : pathToFileURL(`${packageDir}/node.js`).href);
const fs = await import(installed ? 'memcore/adapters/fs' : pathToFileURL(`${packageDir}/adapters/fs-storage.js`).href);
const server = await import(installed ? 'memcore/server' : pathToFileURL(`${packageDir}/server/node.js`).href);

export const {
  ContextMemory, InMemoryEntryStore, MAX_EDIT_BODY_BYTES, MemcoreError, WEB_SEARCH_TOOLTIP, memoryPath, memoryView, resolveEnablement,
} = memcore;
export const { createMemoryHandler } = server;
export const { FileSystemProfileStorage } = fs;

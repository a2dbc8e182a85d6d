// Cloudflare D1 for the tests: miniflare's real D1 (workerd + SQLite) behind a tiny Worker that
// imports `memcore/adapters/d1` from the installed package — so the adapter is proven to run in
// workerd — and exposes the store's methods over fetch as JSON RPC. `store(binding)` is a Node-side
// object with the same methods; errors come back as MemcoreError with code and details.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { Miniflare } from 'miniflare';
import { MemcoreError } from 'memcore';

const require = createRequire(import.meta.url);
const pkgDir = join(require.resolve('memcore/package.json'), '..');
const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));

function packageModules(dir) {
  const modules = [];
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (statSync(file).isDirectory()) {
      if (name !== 'bin') modules.push(...packageModules(file));
      continue;
    }
    const path = `/app/node_modules/memcore/${relative(pkgDir, file)}`;
    if (name.endsWith('.js')) modules.push({ type: 'ESModule', path, contents: readFileSync(file, 'utf8') });
    else if (name.endsWith('.wasm')) modules.push({ type: 'CompiledWasm', path, contents: readFileSync(file) });
  }
  return modules;
}

// Bytes (Uint8Array, ArrayBuffer: vectors) cross the JSON RPC as { $bytes: hex }, both ways.
const BYTES = `
const toHex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
const fromHex = (h) => Uint8Array.from(h.match(/../g) ?? [], (x) => parseInt(x, 16));
function replacer(k, v) {
  const o = this[k]; // before toJSON (a Buffer's)
  if (o instanceof ArrayBuffer) return { $bytes: toHex(new Uint8Array(o)) };
  if (ArrayBuffer.isView(o)) return { $bytes: toHex(new Uint8Array(o.buffer, o.byteOffset, o.byteLength)) };
  return v;
}
const reviver = (k, v) => (v && typeof v === 'object' && typeof v.$bytes === 'string' && Object.keys(v).length === 1 ? fromHex(v.$bytes) : v);
`;
const { replacer, reviver } = new Function(`${BYTES}; return { replacer, reviver };`)();

const WORKER = `
import { openD1 } from 'memcore/adapters/d1';
${BYTES}
const stores = new Map();
const reply = (body) => new Response(JSON.stringify(body, replacer), { headers: { 'content-type': 'application/json' } });
export default {
  async fetch(request, env) {
    const { binding = 'DB', method, args = [] } = JSON.parse(await request.text(), reviver);
    try {
      // 'DB@acme': the binding DB opened for tenant acme (openD1's tenant option).
      const [name, tenant] = binding.split('@');
      const db = env[name];
      const open = () => openD1(db, tenant === undefined ? {} : { tenant });
      if (method === 'sql') return reply({ value: (await db.prepare(args[0]).bind(...(args[1] ?? [])).all()).results });
      if (method === 'open') {
        const store = await open();
        stores.set(binding, store);
        return reply({ value: { schemaVersion: store.schemaVersion } });
      }
      if (!stores.has(binding)) stores.set(binding, await open());
      // Test seeding: many upserts in one request, each through the adapter as usual.
      if (method === 'upsertMany') {
        for (const entry of args[0]) await stores.get(binding).upsert(entry);
        return reply({});
      }
      // Many gets of one tick inside workerd (the store reads them with one statement).
      if (method === 'getAll') {
        const store = stores.get(binding);
        return reply({ value: await Promise.all(args[0].map((id) => store.get(id))) });
      }
      // A ranked search inside workerd (the store's search mirror is an InMemoryEntryStore there).
      if (method === 'searchUserMemories') {
        const { searchUserMemories } = await import('memcore');
        return reply({ value: await searchUserMemories(stores.get(binding), ...args) });
      }
      // Timing inside workerd: its clock moves only at I/O, so each run ends with a SELECT 1
      // (whose own time is measured alone too); answers the milliseconds, not the value.
      if (method === 'timed') {
        const [name, callArgs, runs] = args;
        const tick = async () => { await db.prepare('SELECT 1').first(); return Date.now(); };
        const times = [];
        const ticks = [];
        let size = null;
        for (let i = 0; i < runs; i++) {
          let t0 = await tick();
          ticks.push((await tick()) - t0);
          t0 = await tick();
          const v = await stores.get(binding)[name](...callArgs);
          times.push((await tick()) - t0);
          size = Array.isArray(v) ? v.length : v;
        }
        return reply({ value: { times, ticks, size } });
      }
      const value = await stores.get(binding)[method](...args);
      return reply(value === undefined ? {} : { value });
    } catch (error) {
      return reply({ error: { name: error.name, code: error.code, message: error.message, details: error.details } });
    }
  },
};`;

const METHODS = ['list', 'get', 'upsert', 'delete', 'incrementAccess', 'countUser', 'search', 'recall', 'findByKey', 'oldestOwn', 'insertWithinCap', 'insertAll',
  'vectors', 'putVectors', 'unembedded', 'appendHistory', 'writeWithHistory', 'deleteWithHistory', 'versions', 'auditLog', 'eraseHistory', 'historySize', 'putApiKey', 'getApiKey', 'listApiKeys', 'revokeApiKey', 'read', 'write', 'remove', 'ensureRoot', 'close',
  'idHolders', 'versionsByAuthor', 'deleteApiKeysOf', 'storedUserIds', 'putEpisodes', 'episodes', 'deleteEpisodes', 'userPage', 'entryPage'];

/** Start workerd with D1 bindings `bindings` (default DB, DB2); resolves to `{ call, store, sql, dispose }`. */
export async function startD1Worker({ bindings = ['DB', 'DB2'] } = {}) {
  const mf = new Miniflare({
    modulesRoot: '/app',
    modules: [
      { type: 'ESModule', path: '/app/worker.mjs', contents: WORKER },
      // What a bundler does for `import 'memcore'` (workerd condition) and 'memcore/adapters/d1'.
      { type: 'ESModule', path: '/app/memcore', contents: `export * from './node_modules/memcore/${manifest.exports['.'].workerd.replace(/^\.\//, '')}';` },
      { type: 'ESModule', path: '/app/memcore/adapters/d1', contents: `export * from '../../node_modules/memcore/${manifest.exports['./adapters/d1'].default.replace(/^\.\//, '')}';` },
      // workerd resolves the adapter's own `import 'memcore'` next to it; a bundler resolves it to the same entry.
      { type: 'ESModule', path: '/app/node_modules/memcore/adapters/memcore', contents: `export * from '../${manifest.exports['.'].workerd.replace(/^\.\//, '')}';` },
      ...packageModules(pkgDir),
    ],
    compatibilityDate: '2025-01-01',
    d1Databases: bindings,
  });
  await mf.ready;
  const call = async (binding, method, args) => {
    const response = await mf.dispatchFetch('http://worker/', { method: 'POST', body: JSON.stringify({ binding, method, args }, replacer) });
    const body = JSON.parse(await response.text(), reviver);
    if (body.error) {
      const { name, code, message, details } = body.error;
      throw code ? new MemcoreError(code, message, details) : Object.assign(new Error(message), { name });
    }
    return body.value;
  };
  const store = (binding = 'DB') => {
    const proxy = { binding };
    for (const method of METHODS) proxy[method] = (...args) => call(binding, method, args);
    // The tenant's view: the same binding opened with openD1(db, { tenant }) inside the Worker.
    if (!binding.includes('@')) proxy.forTenant = (tenant) => store(`${binding}@${tenant}`);
    return proxy;
  };
  return { call, store, sql: (binding, text, params) => call(binding, 'sql', [text, params]), dispose: () => mf.dispose() };
}

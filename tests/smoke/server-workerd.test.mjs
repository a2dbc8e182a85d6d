// memcore/server inside workerd (the Workers runtime, through miniflare): a Worker bundled by
// esbuild as wrangler does (the `workerd` export condition, the .wasm a CompiledWasm module)
// serves REST and MCP over miniflare's real D1 (memcore/adapters/d1); the Node test calls it over HTTP on 127.0.0.1, the MCP side through the
// official SDK client.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const pkgDir = join(require.resolve('memcore/package.json'), '..');

const WORKER = `
import { ContextMemory } from 'memcore';
import { openD1 } from 'memcore/adapters/d1';
import { createMemoryHandler } from 'memcore/server';

let handler;
let n = 0;
export default {
  async fetch(request, env) {
    // Built on the first request (Workers allow no I/O at global scope) over the real D1 binding:
    // the migrations run once per isolate.
    handler ??= openD1(env.DB).then((entries) => createMemoryHandler({
      entries,
      profiles: new ContextMemory({ storage: entries, entries, now: () => '2026-12-01T10:00:00Z' }),
      authenticate: (req) => {
        const auth = req.headers.get('authorization') ?? '';
        return auth.startsWith('Bearer ') ? { userId: auth.slice(7), admin: req.headers.get('x-admin') === 'yes' } : null;
      },
      config: { maxEntriesPerUser: 3, onCapReached: 'reject' },
      now: () => '2026-12-01T10:00:00Z',
      newId: () => 'w-' + ++n,
    }));
    return (await handler)(request);
  },
};`;

let mf;
let url;

before(async () => {
  const bundled = await build({
    stdin: { contents: WORKER, resolveDir: root, sourcefile: 'worker.js' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker'],
    external: ['*.wasm'],
    logLevel: 'silent',
  });
  mf = new Miniflare({
    modulesRoot: '/app',
    modules: [
      { type: 'ESModule', path: '/app/worker.js', contents: bundled.outputFiles[0].text },
      { type: 'CompiledWasm', path: '/app/wasm/memcore_bg.wasm', contents: readFileSync(join(pkgDir, 'wasm/memcore_bg.wasm')) },
    ],
    compatibilityDate: '2025-09-01',
    d1Databases: ['DB'],
    host: '127.0.0.1',
    port: 0,
  });
  url = await mf.ready;
});

after(async () => {
  await mf?.dispose();
});

const bearer = (user) => ({ authorization: `Bearer ${user}` });

test('REST routes answer from inside a Worker, with the principal rules and bad-input answers', async () => {
  assert.equal(url.hostname, '127.0.0.1');
  const put = await fetch(new URL('/usermemorystore/memories', url), {
    method: 'PUT',
    headers: { ...bearer('u1'), 'content-type': 'application/json' },
    body: JSON.stringify({ userId: 'u1', key: 'city', value: 'Lisbon', visibility: 'global' }),
  });
  assert.equal(put.status, 201);
  assert.deepEqual((await put.json()).entry.id, 'w-1');
  const listed = await (await fetch(new URL('/usermemorystore/memories/u1', url), { headers: bearer('u1') })).json();
  assert.deepEqual(listed.entries.map((e) => [e.key, e.value, e.updatedAt]), [['city', 'Lisbon', '2026-12-01T10:00:00.000Z']]);
  const other = await fetch(new URL('/usermemorystore/memories/u1', url), { headers: bearer('u2') });
  assert.equal(other.status, 403);
  assert.equal((await fetch(new URL('/usermemorystore/memories/u1', url))).status, 401);
  const badLimit = await fetch(new URL('/usermemorystore/memories/u1/visible?agentId=a&limit=1000000000', url), { headers: bearer('u1') });
  assert.deepEqual([badLimit.status, (await badLimit.json()).error.violations[0].field], [400, 'limit']);
  const big = await fetch(new URL('/usermemorystore/memories', url), { method: 'PUT', headers: { ...bearer('u1'), 'content-type': 'application/json' }, body: 'x'.repeat(1024 * 1024 + 1) });
  assert.equal(big.status, 413);
  const wrong = await fetch(new URL('/usermemorystore/memories/u1/count', url), { method: 'POST', headers: bearer('u1') });
  assert.deepEqual([wrong.status, wrong.headers.get('allow')], [405, 'GET, HEAD']);
  const traversal = await fetch(new URL('/usermemorystore/memories/..%2Fu2', url), { headers: bearer('u1') });
  assert.equal(traversal.status, 400);
});

test('the official MCP client lists and calls the tools of a Worker over Streamable HTTP', async () => {
  const client = new Client({ name: 'memcore-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers: bearer('u1') } }));
  try {
    const { tools } = await client.listTools();
    assert.equal(tools.length, 11);
    const call = async (name, args) => {
      const r = await client.callTool({ name, arguments: args });
      return { isError: r.isError === true, json: JSON.parse(r.content[0].text) };
    };
    const stored = await call('upsert_user_memory', { userId: 'u1', key: 'team', value: 'blue', visibility: 'self', agentId: 'a' });
    assert.deepEqual([stored.isError, stored.json.entry.id], [false, 'w-2']);
    assert.deepEqual((await call('count_user_memories', { userId: 'u1' })).json, { count: 2 });
    const visible = await call('get_visible_memories', { userId: 'u1', agentId: 'a', limit: 5 });
    assert.deepEqual(visible.json.entries.map((e) => e.key).sort(), ['city', 'team']);
    const forbidden = await call('list_user_memories', { userId: 'u2' });
    assert.deepEqual([forbidden.isError, forbidden.json.error.code], [true, 'E_FORBIDDEN']);
    const reserved = await call('upsert_user_memory', { userId: 'u1', key: '_gdpr_x', visibility: 'global' });
    assert.deepEqual([reserved.isError, reserved.json.error.violations[0].field], [true, 'key']);
    await call('upsert_user_memory', { userId: 'u1', key: 'k3', value: 3, visibility: 'global' });
    const full = await call('upsert_user_memory', { userId: 'u1', key: 'k4', value: 4, visibility: 'global' });
    assert.deepEqual([full.isError, full.json.error.code], [true, 'E_CAPACITY']);
    const noConfirm = await call('delete_all_user_memories', { userId: 'u1' });
    assert.equal(noConfirm.isError, true);
    assert.deepEqual((await call('delete_all_user_memories', { userId: 'u1', confirmation: 'CONFIRM' })).json, { deleted: 3 });
  } finally {
    await client.close();
  }
});

test('every other route and tool inside the Worker over D1: search, key, entry and user deletes, properties, settings, the admin GDPR routes and tool', async () => {
  const admin = { ...bearer('root'), 'x-admin': 'yes' };
  const req = async (method, path, { headers = bearer('u5'), body, type = 'application/json' } = {}) => {
    const r = await fetch(new URL(path, url), { method, headers: { ...headers, ...(body !== undefined ? { 'content-type': type } : {}) }, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
    const text = await r.text();
    return { status: r.status, json: text ? JSON.parse(text) : null };
  };
  const put = await req('PUT', '/usermemorystore/memories', { body: { userId: 'u5', key: 'dog_name', value: 'Rex', visibility: 'global' } });
  assert.equal(put.status, 201);
  assert.deepEqual((await req('GET', '/usermemorystore/memories/u5/search?q=dog%20name')).json.entries.map((e) => e.value), ['Rex']);
  assert.equal((await req('GET', '/usermemorystore/memories/u5/key/dog_name')).json.entry.value, 'Rex');
  assert.equal((await req('GET', '/usermemorystore/memories/u5/visible?agentId=a&limit=5')).json.entries.length, 1);
  assert.deepEqual((await req('GET', '/usermemorystore/memories/u5/count')).json, { count: 1 });
  assert.equal((await req('DELETE', `/usermemorystore/memories/entry/${put.json.entry.id}`)).json.deleted, true);
  assert.deepEqual((await req('PUT', '/propertiesstore/properties/u5', { body: { lang: 'de', tz: 'CET' } })).status, 200);
  assert.deepEqual((await req('GET', '/propertiesstore/properties/u5')).json, { lang: 'de', tz: 'CET' });
  assert.equal((await req('DELETE', '/propertiesstore/properties/u5')).status, 200);
  assert.deepEqual((await req('GET', '/contextmemory/me')).json, { exists: false, body: '', lastUpdated: null, turnCount: null });
  const saved = await req('PUT', '/contextmemory/me', { body: '## Identity\n- Ana\n', type: 'text/markdown' });
  assert.deepEqual([saved.status, saved.json.exists, saved.json.body], [200, true, '## Identity\n- Ana\n']);
  await req('PUT', '/usermemorystore/memories', { body: { userId: 'u5', key: 'k', value: 1, visibility: 'global' } });
  assert.deepEqual((await req('DELETE', '/usermemorystore/memories/u5')).json, { deleted: 1 });
  await req('PUT', '/usermemorystore/memories', { body: { userId: 'u5', key: 'k2', value: 2, visibility: 'global' } });
  assert.equal((await req('GET', '/admin/gdpr/u5/export')).status, 403);
  const exported = await req('GET', '/admin/gdpr/u5/export', { headers: admin });
  assert.deepEqual([exported.json.entries.length, exported.json.profile.includes('- Ana')], [1, true]);
  assert.deepEqual((await req('PUT', '/admin/gdpr/u5/restriction', { headers: admin, body: { restricted: true } })).json, { restricted: true, changed: true });
  assert.equal((await req('PUT', '/usermemorystore/memories', { body: { userId: 'u5', key: 'k3', value: 3, visibility: 'global' } })).json.error.code, 'E_RESTRICTED');
  const erased = await req('DELETE', '/admin/gdpr/u5', { headers: admin });
  assert.deepEqual([erased.json.entries, erased.json.profiles], [[2], [{ removed: true, folderRemoved: false }]]);

  const client = new Client({ name: 'memcore-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers: admin } }));
  try {
    const call = async (name, args) => JSON.parse((await client.callTool({ name, arguments: args })).content[0].text);
    const stored = await call('upsert_user_memory', { userId: 'u6', key: 'color', value: 'blue', visibility: 'global' });
    assert.equal((await call('search_user_memories', { userId: 'u6', query: 'color' })).entries.length, 1);
    assert.equal((await call('get_memory_by_key', { userId: 'u6', key: 'color' })).entry.value, 'blue');
    assert.equal((await call('list_user_memories', { userId: 'u6' })).entries.length, 1);
    assert.equal((await call('delete_user_memory', { entryId: stored.entry.id })).deleted, true);
    await call('upsert_user_memory', { userId: 'u6', key: 'color', value: 'red', visibility: 'global' });
    assert.deepEqual((await call('delete_user_data', { userId: 'u6', confirmation: 'CONFIRM' })).entries, [1]);
    assert.deepEqual(await call('count_user_memories', { userId: 'u6' }), { count: 0 });
  } finally {
    await client.close();
  }
});

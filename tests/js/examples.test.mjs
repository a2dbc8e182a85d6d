// The examples run: examples/node-server is started as a child process (`node server.mjs`) on a
// free 127.0.0.1 port with a temp SQLite file (and once with MEMCORE_DATABASE_URL on a throwaway PostgreSQL), and examples/cloudflare-worker is bundled by esbuild
// as wrangler would and run in workerd (miniflare) with a real local D1. Each answers REST, an MCP
// tool call through the official SDK client, and GET/PUT /contextmemory/me.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startPostgres } from '../support/postgres.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const pkgDir = join(require.resolve('memcore/package.json'), '..');
const M = '/usermemorystore/memories';
const bearer = (token) => ({ authorization: `Bearer ${token}` });
/** The status of a request, its body read (an unread body makes the client drop the connection). */
const statusOf = async (url, init) => {
  const response = await fetch(url, init);
  await response.arrayBuffer();
  return response.status;
};

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The checks both examples pass: REST write/read, principal rules, one MCP call, the settings route. */
async function exercise(base) {
  const put = await fetch(new URL(M, base), {
    method: 'PUT',
    headers: { ...bearer('alice'), 'content-type': 'application/json' },
    body: JSON.stringify({ userId: 'alice', key: 'city', value: 'Lisbon', visibility: 'global' }),
  });
  assert.equal(put.status, 201);
  const created = await put.json();
  assert.deepEqual([created.created, created.entry.key, created.entry.value], [true, 'city', 'Lisbon']);
  const listed = await (await fetch(new URL(`${M}/alice`, base), { headers: bearer('alice') })).json();
  assert.deepEqual(listed.entries.map((e) => [e.id, e.key, e.value]), [[created.entry.id, 'city', 'Lisbon']]);
  assert.equal(await statusOf(new URL(`${M}/alice`, base), { headers: bearer('bob') }), 403);
  assert.equal(await statusOf(new URL(`${M}/alice`, base)), 401);

  const client = new Client({ name: 'memcore-examples-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', base), { requestInit: { headers: bearer('alice') } }));
  try {
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'upsert_user_memory'));
    const call = async (name, args) => {
      const r = await client.callTool({ name, arguments: args });
      return { isError: r.isError === true, json: JSON.parse(r.content[0].text) };
    };
    const stored = await call('upsert_user_memory', { userId: 'alice', key: 'team', value: 'blue', visibility: 'self', agentId: 'bot' });
    assert.deepEqual([stored.isError, stored.json.entry.key, stored.json.created], [false, 'team', true]);
    assert.deepEqual((await call('count_user_memories', { userId: 'alice' })).json, { count: 2 });
    const visible = await call('get_visible_memories', { userId: 'alice', agentId: 'bot', limit: 5 });
    assert.deepEqual(visible.json.entries.map((e) => e.key).sort(), ['city', 'team']);
    const forbidden = await call('list_user_memories', { userId: 'bob' });
    assert.deepEqual([forbidden.isError, forbidden.json.error.code], [true, 'E_FORBIDDEN']);
  } finally {
    await client.close();
  }
  // The MCP write is visible over REST: one database behind both surfaces.
  const byKey = await (await fetch(new URL(`${M}/alice/key/team?agentId=bot`, base), { headers: bearer('alice') })).json();
  assert.equal(byKey.entry.value, 'blue');

  const empty = await (await fetch(new URL('/contextmemory/me', base), { headers: bearer('alice') })).json();
  assert.deepEqual([empty.exists, empty.body], [false, '']);
  const body = '# User Memory\n\n## Identity\n- Lives in Lisbon\n';
  const saved = await fetch(new URL('/contextmemory/me', base), {
    method: 'PUT',
    headers: { ...bearer('alice'), 'content-type': 'text/markdown' },
    body,
  });
  assert.equal(saved.status, 200);
  assert.equal((await saved.json()).saved, true);
  const view = await (await fetch(new URL('/contextmemory/me', base), { headers: bearer('alice') })).json();
  assert.deepEqual([view.exists, view.body], [true, body]);
  const bobs = await (await fetch(new URL('/contextmemory/me', base), { headers: bearer('bob') })).json();
  assert.equal(bobs.exists, false, "the route is always the principal's own profile");
}

/** Start examples/node-server as a child process; resolves to `{ child, base, output() }`. */
async function startExample(env) {
  const port = await freePort();
  const child = spawn(process.execPath, [join(root, 'examples/node-server/server.mjs')], {
    cwd: env.cwd,
    env: { ...process.env, PORT: String(port), MEMCORE_DB: '', MEMCORE_DATABASE_URL: '', MEMCORE_ADMIN_TOKEN: 'admin-token', ...env.vars },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const base = `http://127.0.0.1:${port}`;
  // Wait until it answers.
  const deadline = Date.now() + 30000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the example exited (${child.exitCode}):\n${output}`);
    try {
      await statusOf(new URL('/usermemorystore/memories/x/count', base));
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`the example did not answer within 30 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { child, base, output: () => output };
}

async function stopExample(child) {
  if (!child || child.exitCode !== null) return child?.exitCode;
  const exited = new Promise((r) => child.once('exit', (code) => r(code)));
  child.kill('SIGTERM');
  return exited;
}

describe('examples/node-server (child process, SQLite file)', () => {
  let app;
  let dir;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'memcore-example-'));
    app = await startExample({ cwd: dir, vars: { MEMCORE_DB: join(dir, 'memcore.db') } });
  });
  after(async () => {
    await stopExample(app?.child);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('REST, an MCP tool call and GET/PUT /contextmemory/me on one port', async () => {
    assert.match(app.output(), /listening on http:\/\/127\.0\.0\.1:\d+ \(SQLite /);
    await exercise(app.base);
  });

  test('the admin token reaches the admin routes; a user token does not', async () => {
    assert.equal(await statusOf(new URL('/admin/gdpr/alice/export', app.base), { headers: bearer('alice') }), 403);
    const exported = await fetch(new URL('/admin/gdpr/alice/export', app.base), { headers: bearer('admin-token') });
    assert.equal(exported.status, 200);
    const doc = await exported.json();
    assert.deepEqual([doc.userId, doc.entries.map((e) => e.key).sort(), doc.profile !== null], ['alice', ['city', 'team'], true]);
  });

  test('GET /metrics: the Prometheus text of what was served, to the admin token only; no user id in it', async () => {
    assert.equal(await statusOf(new URL('/metrics', app.base)), 401);
    assert.equal(await statusOf(new URL('/metrics', app.base), { headers: bearer('alice') }), 401);
    const scraped = await fetch(new URL('/metrics', app.base), { headers: bearer('admin-token') });
    assert.equal(scraped.status, 200);
    assert.match(scraped.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
    const text = await scraped.text();
    assert.match(text, /^memcore_http_requests_total\{method="GET",route="\/admin\/gdpr\/\{userId\}\/export",status="200"\} 1$/m);
    assert.match(text, /^memcore_tool_calls_total\{answer="ok",tool="\w+"\} \d+$/m);
    assert.match(text, /^# TYPE memcore_operation_duration_seconds histogram$/m);
    assert.doesNotMatch(text, /alice|bob/);
  });

  test('it stops on SIGTERM and the data is in the SQLite file', async () => {
    assert.equal(await stopExample(app.child), 0);
    const { openSqlite } = await import('memcore/adapters/sqlite');
    const db = await openSqlite(join(dir, 'memcore.db'));
    try {
      assert.deepEqual((await db.list('alice')).map((e) => e.key).sort(), ['city', 'team']);
    } finally {
      await db.close();
    }
  });
});

describe('examples/node-server with JWTs (a JWKS on 127.0.0.1) and API keys', () => {
  let app;
  let dir;
  let jwks;
  let signer;
  before(async () => {
    const { generateKeyPair, exportJWK, SignJWT } = await import('jose');
    const pair = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' };
    jwks = http.createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
    await new Promise((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    // Real tokens expire: these are valid for an hour from the wall clock (the server checks with its own clock).
    signer = (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer('https://auth.test/').setAudience('memcore')
      .setIssuedAt().setExpirationTime('1h').sign(pair.privateKey);
    dir = mkdtempSync(join(tmpdir(), 'memcore-example-'));
    app = await startExample({
      cwd: dir,
      vars: {
        MEMCORE_DB: join(dir, 'memcore.db'),
        MEMCORE_JWT_ISSUER: 'https://auth.test/',
        MEMCORE_JWT_AUDIENCE: 'memcore',
        MEMCORE_JWKS_URL: `http://127.0.0.1:${jwks.address().port}/jwks.json`,
      },
    });
  });
  after(async () => {
    await stopExample(app?.child);
    await new Promise((resolve) => jwks?.close(resolve));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('a JWT with scopes works, the demo tokens are off; an admin issues an API key, which works until revoked', async () => {
    const M_ALICE = new URL(`${M}/alice`, app.base);
    assert.equal(await statusOf(M_ALICE, { headers: bearer('alice') }), 401, 'the demo token names no one once JWTs are on');
    const token = await signer({ sub: 'alice', scope: 'memory:read memory:write' });
    const put = await fetch(new URL(M, app.base), {
      method: 'PUT',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ userId: 'alice', key: 'city', value: 'Lisbon', visibility: 'global' }),
    });
    assert.equal(put.status, 201);
    assert.equal(await statusOf(M_ALICE, { headers: bearer(token) }), 200);
    const noProfile = await fetch(new URL('/contextmemory/me', app.base), { headers: bearer(token) });
    assert.deepEqual([noProfile.status, (await noProfile.json()).error.missingScope], [403, 'profile:read']);
    // The admin token issues a read-only key for alice.
    const made = await fetch(new URL('/admin/keys', app.base), {
      method: 'POST',
      headers: { ...bearer('admin-token'), 'content-type': 'application/json' },
      body: JSON.stringify({ userId: 'alice', scopes: ['memory:read'], name: 'laptop' }),
    });
    assert.equal(made.status, 201);
    const { key, record } = await made.json();
    const listed = await (await fetch(M_ALICE, { headers: bearer(key) })).json();
    assert.deepEqual(listed.entries.map((e) => e.value), ['Lisbon']);
    const write = await fetch(new URL(M, app.base), { method: 'PUT', headers: { ...bearer(key), 'content-type': 'application/json' }, body: JSON.stringify({ userId: 'alice', key: 'x', value: 'y', visibility: 'global' }) });
    assert.deepEqual([write.status, (await write.json()).error.missingScope], [403, 'memory:write']);
    assert.equal(await statusOf(new URL(`/admin/keys/${record.id}`, app.base), { method: 'DELETE', headers: bearer('admin-token') }), 200);
    assert.equal(await statusOf(M_ALICE, { headers: bearer(key) }), 401, 'revoked at once');
  });
});

describe('examples/node-server with MEMCORE_DATABASE_URL (a throwaway PostgreSQL)', () => {
  let app;
  let pg;
  let dir;
  before(async () => {
    pg = await startPostgres({ database: 'memcore_example' });
    dir = mkdtempSync(join(tmpdir(), 'memcore-example-'));
    app = await startExample({ cwd: dir, vars: { MEMCORE_DATABASE_URL: pg.url } });
  });
  after(async () => {
    await stopExample(app?.child);
    pg?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the same checks on PostgreSQL; no SQLite file is created', async () => {
    assert.match(app.output(), /\(PostgreSQL \(MEMCORE_DATABASE_URL\)\)/);
    await exercise(app.base);
    assert.equal(await stopExample(app.child), 0);
    assert.deepEqual(readdirSync(dir), []);
    const { openPostgres } = await import('memcore/adapters/postgres');
    const db = await openPostgres(pg.url);
    try {
      assert.deepEqual((await db.list('alice')).map((e) => e.key).sort(), ['city', 'team']);
    } finally {
      await db.close();
    }
  });
});

describe('examples/cloudflare-worker (workerd via miniflare, real D1)', () => {
  let mf;
  let url;
  before(async () => {
    const bundled = await build({
      entryPoints: [join(root, 'examples/cloudflare-worker/src/worker.js')],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      conditions: ['workerd', 'worker'],
      external: ['*.wasm'],
      logLevel: 'silent',
      outfile: 'worker.js',
    });
    const wasmImports = [...bundled.outputFiles[0].text.matchAll(/from\s*["']([^"']+\.wasm)["']/g)].map((m) => m[1]);
    assert.deepEqual(wasmImports, ['./wasm/memcore_bg.wasm'], 'the bundle imports the core wasm as a module');
    mf = new Miniflare({
      modulesRoot: '/app',
      modules: [
        { type: 'ESModule', path: '/app/worker.js', contents: bundled.outputFiles[0].text },
        { type: 'CompiledWasm', path: '/app/wasm/memcore_bg.wasm', contents: readFileSync(join(pkgDir, 'wasm/memcore_bg.wasm')) },
      ],
      compatibilityDate: '2025-09-01',
      d1Databases: ['DB'],
      bindings: { ADMIN_TOKEN: 'admin-token' },
      host: '127.0.0.1',
      port: 0,
    });
    url = await mf.ready;
  });
  after(async () => {
    await mf?.dispose();
  });

  test('REST, an MCP tool call and GET/PUT /contextmemory/me from D1', async () => {
    assert.equal(url.hostname, '127.0.0.1');
    await exercise(url);
    // The rows are in the D1 database itself.
    const db = await mf.getD1Database('DB');
    const { results } = await db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name LIKE 'memcore_%'").all();
    assert.ok(results[0].n > 0);
  });

  test('an administrator issues an API key kept hashed in D1; it reads with its scope until revoked', async () => {
    const made = await fetch(new URL('/admin/keys', url), {
      method: 'POST',
      headers: { ...bearer('admin-token'), 'content-type': 'application/json' },
      body: JSON.stringify({ userId: 'alice', scopes: ['memory:read'] }),
    });
    assert.equal(made.status, 201);
    const { key, record } = await made.json();
    assert.equal(await statusOf(new URL(`${M}/alice`, url), { headers: bearer(key) }), 200);
    assert.equal(await statusOf(new URL('/contextmemory/me', url), { headers: bearer(key) }), 403, 'no profile:read');
    const db = await mf.getD1Database('DB');
    const { results } = await db.prepare('SELECT * FROM memcore_api_keys').all();
    assert.ok(results.length === 1 && !JSON.stringify(results).includes(key.slice(20)), 'the digest, never the secret');
    assert.equal(await statusOf(new URL(`/admin/keys/${record.id}`, url), { method: 'DELETE', headers: bearer('admin-token') }), 200);
    assert.equal(await statusOf(new URL(`${M}/alice`, url), { headers: bearer(key) }), 401);
  });
});

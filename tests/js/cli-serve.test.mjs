// `memcore serve` and `memcore keys` (issue 43, behaviour §8.7) as child processes, started as an
// operator starts them: flags and bad flags, a busy port, a database with a newer schema, an
// unreachable PostgreSQL, keys created, listed and revoked, the routes a key may and may not use,
// /healthz and /metrics, one JSON log line per request, GraphQL, and SIGTERM while 50 requests are
// in flight (every one answered, exit 0). On SQLite and on PostgreSQL.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openSqlite } from 'memcore/adapters/sqlite';
import { startPostgres } from '../support/postgres.mjs';

const require = createRequire(import.meta.url);
const manifestPath = require.resolve('memcore/package.json');
const bin = join(dirname(manifestPath), JSON.parse(readFileSync(manifestPath, 'utf8')).bin.memcore);

let dir;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'memcore-cli-serve-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** `memcore …args` to completion: `{ status, stdout, stderr }`. */
function run(args, { cwd = dir, env = {} } = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8', env: { ...process.env, MEMCORE_DATABASE_URL: '', ...env }, timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Start `memcore serve …args`; resolves when it listens: `{ url, child, stdout(), stderr(), exited }`. */
function serve(args, { cwd = dir, env = {} } = {}) {
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', ...args], { cwd, env: { ...process.env, MEMCORE_DATABASE_URL: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += d; });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      err += d;
      const m = /listening on (http:\/\/[^ ]+)/.exec(err);
      if (m) resolve({ url: m[1], child, stdout: () => out, stderr: () => err, exited });
    });
    exited.then(({ code }) => reject(new Error(`memcore serve exited with ${code} before listening:\n${err}`)));
  });
}

const bearer = (key) => ({ authorization: `Bearer ${key}` });
async function call(url, path, { method = 'GET', key, body, headers = {} } = {}) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { ...(key ? bearer(key) : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON (the metrics)
  }
  return { status: response.status, text, json, headers: response.headers };
}

describe('memcore serve: flags', () => {
  test('--help lists every flag, the routes and the exit codes', () => {
    const r = run(['serve', '--help']);
    assert.equal(r.status, 0);
    for (const flag of ['--db', '--host', '--port', '--jwks-url', '--jwt-secret-file', '--jwt-issuer', '--jwt-audience', '--embed-url', '--embed-model', '--model-url', '--model', '--requests-per-minute', '--writes-per-minute', '--max-concurrent', '--drain-timeout', '--log']) {
      assert.ok(r.stdout.includes(flag), `--help names ${flag}`);
    }
    assert.match(r.stdout, /GET \/healthz/);
    assert.match(r.stdout, /Exit codes: 0 drained/);
    assert.match(run(['--help']).stdout, /serve +run the memory service/);
    assert.match(run(['--help']).stdout, /keys +API keys in the database/);
  });

  for (const [args, message] of [
    [['--port', 'http'], /--port must be a whole number from 0 to 65535, not 'http'/],
    [['--port', '70000'], /--port must be a whole number from 0 to 65535/],
    [['--log', 'xml'], /--log must be json or none/],
    [['--bogus'], /unknown option '--bogus'/i],
    [['--embed-model', 'm'], /--embed-model needs --embed-url/],
    [['--model', 'm'], /--model needs --model-url/],
    [['--jwt-issuer', 'x'], /--jwt-issuer and --jwt-audience need --jwks-url or --jwt-secret-file/],
    [['--jwks-url', 'http://127.0.0.1:1/jwks'], /a JWT needs --jwt-issuer and --jwt-audience/],
    [['--max-concurrent', '0'], /--max-concurrent must be a whole number from 1/],
    [['extra'], /unexpected argument 'extra'/],
  ]) {
    test(`a bad flag is a usage error (exit 2): ${args.join(' ')}`, () => {
      const r = run(['serve', ...args]);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, message);
      assert.match(r.stderr, /Usage: memcore serve/);
    });
  }

  test('a busy port, a database with a newer schema, a missing folder: exit 1 with a clear message', async () => {
    const blocker = net.createServer();
    await new Promise((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const r = run(['serve', '--db', join(dir, 'busy.db'), '--port', String(blocker.address().port)]);
      assert.equal(r.status, 1);
      assert.match(r.stderr, /^memcore: E_PORT_IN_USE: 127\.0\.0\.1:\d+ is already in use: stop what listens there or pass another --port/m);
    } finally {
      blocker.close();
    }

    const newer = join(dir, 'newer.db');
    const db = await openSqlite(newer);
    await db.close();
    const raw = new (require('better-sqlite3'))(newer);
    raw.prepare('INSERT INTO memcore_schema (version, applied_at) VALUES (999, ?)').run('2026-01-01T00:00:00Z');
    raw.close();
    const r2 = run(['serve', '--db', newer]);
    assert.equal(r2.status, 1);
    assert.match(r2.stderr, /^memcore: E_HOST: .*newer/m);

    const r3 = run(['serve', '--port', '0', '--db', `${dir}/`]);
    assert.equal(r3.status, 2, 'a folder is not a database file');
    const folder = join(dir, 'a-folder.db');
    mkdirSync(folder);
    const r4 = run(['serve', '--port', '0', '--db', folder]);
    assert.equal(r4.status, 1);
    assert.match(r4.stderr, /^memcore: \S+: cannot open/m);
  });

  test('the embedded default database is created on first use; keys create --admin prints the key once', () => {
    const home = mkdtempSync(join(dir, 'home-'));
    const created = run(['keys', 'create', '--admin'], { cwd: home });
    assert.equal(created.status, 0, created.stderr);
    assert.match(created.stdout, /^mk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}\n$/);
    assert.match(created.stderr, /created [0-9a-f]{16} for admin, scopes memory:read,memory:write,profile:read,profile:write,admin; the key above is shown only now/);
    assert.ok(existsSync(join(home, '.memcore', 'memcore.db')));
    const listed = run(['keys', 'list', '--json'], { cwd: home });
    const keys = JSON.parse(listed.stdout);
    assert.equal(keys.length, 1);
    // The secret is everything after `mk_<16 hex>_` (base64url: it may hold '_' itself).
    const secret = /^mk_[0-9a-f]{16}_(.+)$/.exec(created.stdout.trim())[1];
    assert.ok(!listed.stdout.includes(secret), 'a listing never shows a secret');
    assert.deepEqual(keys[0].scopes, ['memory:read', 'memory:write', 'profile:read', 'profile:write', 'admin']);
  });

  for (const [args, status, message] of [
    [['keys'], 2, /missing the action \(create, list or revoke\)/],
    [['keys', 'rotate'], 2, /unknown keys action 'rotate'/],
    [['keys', 'create'], 2, /keys create needs --admin, or --user ID and --scopes/],
    [['keys', 'create', '--user', 'u1', '--scopes', 'memory:read,root'], 2, /--scopes: 'root' is not a scope/],
    [['keys', 'create', '--admin', '--scopes', 'admin'], 2, /--admin has every scope/],
    [['keys', 'create', '--user', '../etc', '--scopes', 'memory:read'], 1, /E_INVALID_USER_ID/],
    [['keys', 'list', '--scopes', 'admin'], 2, /--scopes does not apply to keys list/],
    [['keys', 'revoke'], 2, /keys revoke needs the key id/],
    [['keys', 'revoke', '0123456789abcdef'], 1, /^memcore: E_NOT_FOUND: no live key "0123456789abcdef"/m],
  ]) {
    test(`memcore ${args.join(' ')} → exit ${status}`, () => {
      const r = run([...args, '--db', join(dir, 'keys.db')]);
      assert.equal(r.status, status, r.stderr);
      assert.match(r.stderr, message);
    });
  }
});

/** The behaviour of one running service, on the database `db` (a file or a postgres:// URL). */
function serviceTests(name, database) {
  describe(`memcore serve on ${name}`, () => {
    let db;
    let admin;
    let reader;
    let readerId;
    before(async () => {
      db = await database();
      admin = run(['keys', 'create', '--admin', '--db', db]).stdout.trim();
      const r = run(['keys', 'create', '--user', 'u1', '--scopes', 'memory:read', '--name', 'reader', '--db', db]);
      reader = r.stdout.trim();
      readerId = /created ([0-9a-f]{16})/.exec(r.stderr)[1];
      assert.match(admin, /^mk_/);
    });

    test('healthz, metrics, REST with keys, a wrong or revoked key 401, GraphQL, one JSON log line per request', async () => {
      const s = await serve(['--db', db]);
      try {
        const health = await call(s.url, '/healthz');
        assert.equal(health.status, 200);
        assert.deepEqual(health.json, { ok: true, version: health.json.version, database: name === 'PostgreSQL' ? 'postgres' : 'sqlite' });

        assert.equal((await call(s.url, '/metrics')).status, 401);
        assert.equal((await call(s.url, '/metrics', { key: reader })).status, 403);
        const put = await call(s.url, '/usermemorystore/memories', { method: 'PUT', key: admin, body: { userId: 'u1', key: 'city', value: 'Porto', visibility: 'global' } });
        assert.equal(put.status, 201);
        const metrics = await call(s.url, '/metrics', { key: admin });
        assert.equal(metrics.status, 200);
        assert.match(metrics.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
        assert.match(metrics.text, /memcore_http_requests_total\{[^}]*route="\/usermemorystore\/memories"[^}]*\} 1/);

        const read = await call(s.url, '/usermemorystore/memories/u1', { key: reader });
        assert.equal(read.status, 200);
        assert.deepEqual(read.json.entries.map((e) => e.value), ['Porto']);
        assert.equal((await call(s.url, '/usermemorystore/memories', { method: 'PUT', key: reader, body: { userId: 'u1', key: 'x', value: 1, visibility: 'global' } })).status, 403);
        assert.equal((await call(s.url, '/usermemorystore/memories/u2', { key: reader })).status, 403);
        const wrong = await call(s.url, '/usermemorystore/memories/u1', { key: `${reader.slice(0, -1)}${reader.endsWith('A') ? 'B' : 'A'}` });
        assert.equal(wrong.status, 401);
        assert.equal(wrong.json.error.code, 'E_UNAUTHENTICATED');
        assert.equal((await call(s.url, '/usermemorystore/memories/u1', { key: 'Bearer-less-nonsense' })).status, 401);

        const gql = await call(s.url, '/graphql', { method: 'POST', key: reader, body: { query: '{ getMyContextMemory { exists } }' } });
        assert.equal(gql.status, 200);
        assert.deepEqual(gql.json, { data: { getMyContextMemory: { exists: false } } });
        assert.equal((await call(s.url, '/graphql', { method: 'POST', body: { query: '{ getMyContextMemory { exists } }' } })).status, 401);

        const revoked = run(['keys', 'revoke', readerId, '--db', db]);
        assert.equal(revoked.status, 0, revoked.stderr);
        assert.equal((await call(s.url, '/usermemorystore/memories/u1', { key: reader })).status, 401);
        assert.ok(run(['keys', 'list', '--db', db]).stdout.includes(`${readerId}  u1  memory:read`));

        const lines = s.stdout().trim().split('\n').map((l) => JSON.parse(l));
        const healthLine = lines.find((l) => l.route === '/healthz');
        assert.deepEqual(Object.keys(healthLine).sort(), ['event', 'level', 'method', 'ms', 'route', 'status', 'time']);
        assert.equal(healthLine.event, 'http.request');
        assert.ok(lines.some((l) => l.route === '/usermemorystore/memories/{userId}' && l.status === 401), 'the route template, never the user id');
        assert.ok(!s.stdout().includes(admin) && !s.stdout().includes(reader), 'no key in the log');
      } finally {
        s.child.kill('SIGTERM');
        assert.deepEqual(await s.exited, { code: 0, signal: null });
      }
    });

    test('SIGTERM while 50 requests are in flight: every one answered, no new connection, exit 0', async () => {
      const s = await serve(['--db', db, '--max-concurrent', '64', '--requests-per-minute', '1000', '--writes-per-minute', '1000']);
      const { port } = new URL(s.url);
      const agent = new http.Agent({ keepAlive: false, maxSockets: 100 });
      // Each request sends its headers with `Expect: 100-continue`: the server's `continue` says it
      // holds the request; the bodies are sent only after the signal.
      const pending = [];
      const started = [];
      for (let i = 0; i < 50; i += 1) {
        const body = JSON.stringify({ userId: 'drain', key: `k${i}`, value: i, visibility: 'global' });
        let ready;
        started.push(new Promise((resolve) => { ready = resolve; }));
        pending.push(new Promise((resolve, reject) => {
          const request = http.request({ host: '127.0.0.1', port, path: '/usermemorystore/memories', method: 'PUT', agent, headers: { ...bearer(admin), 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' } }, (response) => {
            let text = '';
            response.on('data', (d) => { text += d; });
            response.on('end', () => resolve({ status: response.statusCode, text }));
          });
          request.on('continue', () => {
            ready(() => request.end(body));
          });
          request.on('error', reject);
          request.flushHeaders();
        }));
      }
      const senders = await Promise.all(started);
      s.child.kill('SIGTERM');
      await new Promise((resolve) => {
        const check = () => (s.stderr().includes('draining') ? resolve() : setTimeout(check, 10));
        check();
      });
      assert.match(s.stderr(), /SIGTERM: draining \(50 requests in flight\)/);
      await assert.rejects(fetch(`${s.url}/healthz`), 'a draining server takes no new connection');
      for (const send of senders) send();
      const answers = await Promise.all(pending);
      assert.deepEqual(answers.map((a) => a.status), Array(50).fill(201), s.stderr());
      assert.deepEqual(await s.exited, { code: 0, signal: null });
      assert.match(s.stderr(), /drained; every request was answered/);
      agent.destroy();
      const after = await serve(['--db', db]);
      try {
        const stored = await call(after.url, '/usermemorystore/memories/drain/count', { key: admin });
        assert.deepEqual(stored.json, { count: 50 });
      } finally {
        after.child.kill('SIGTERM');
        await after.exited;
      }
    });
  });
}

serviceTests('SQLite', async () => join(dir, 'service.db'));

let pg;
serviceTests('PostgreSQL', async () => {
  pg = await startPostgres({ database: 'memcore_serve' });
  return pg.url;
});
after(async () => {
  await pg?.stop();
});

test('--jwt-secret-file: an HS256 token of the issuer and audience signs in with its scopes; a wrong secret or audience is 401', async () => {
  const { SignJWT } = await import('jose');
  const secret = 'a-shared-secret-of-at-least-32-bytes!!';
  const file = join(dir, 'jwt.secret');
  writeFileSync(file, `${secret}\n`);
  const sign = (key, audience, claims) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuer('https://auth.test/').setAudience(audience).sign(new TextEncoder().encode(key));
  const short = join(dir, 'short.secret');
  writeFileSync(short, 'too short\n');
  const tooShort = run(['serve', '--port', '0', '--db', join(dir, 'jwt.db'), '--jwt-secret-file', short, '--jwt-issuer', 'https://auth.test/', '--jwt-audience', 'memcore']);
  assert.equal(tooShort.status, 1);
  assert.match(tooShort.stderr, /the secret must be at least 32 bytes/);
  const s = await serve(['--db', join(dir, 'jwt.db'), '--jwt-secret-file', file, '--jwt-issuer', 'https://auth.test/', '--jwt-audience', 'memcore']);
  try {
    const good = await sign(secret, 'memcore', { sub: 'u7', scope: 'memory:read memory:write' });
    const put = await call(s.url, '/usermemorystore/memories', { method: 'PUT', key: good, body: { userId: 'u7', key: 'k', value: 1, visibility: 'global' } });
    assert.equal(put.status, 201);
    assert.equal((await call(s.url, '/usermemorystore/memories/u8', { key: good })).status, 403);
    assert.equal((await call(s.url, '/metrics', { key: good })).status, 403);
    assert.equal((await call(s.url, '/usermemorystore/memories/u7', { key: await sign(`${secret}x`, 'memcore', { sub: 'u7', scope: 'memory:read' }) })).status, 401);
    assert.equal((await call(s.url, '/usermemorystore/memories/u7', { key: await sign(secret, 'other', { sub: 'u7', scope: 'memory:read' }) })).status, 401);
  } finally {
    s.child.kill('SIGTERM');
    await s.exited;
  }
});

test('an unreachable PostgreSQL: exit 1 with the cause, the password never printed', () => {
  const r = run(['serve', '--db', 'postgres://memcore:s3cret-pw@127.0.0.1:1/nothing']);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^memcore: \S+: cannot open/m);
  assert.ok(!r.stderr.includes('s3cret-pw'));
});

// Load: a memory server under 200 concurrent loopback clients, side by side with the competent
// alternative, on SQLite and on PostgreSQL (issue 45).
//
// - memcore: examples/node-server (createMemoryHandler + toNodeListener, ContextMemory, telemetry,
//   the demo bearer tokens) over openSqlite (a WAL file) / openPostgres (a Pool of 10), given the
//   benchmark's embedder and model (load-hosts.mjs);
// - plain: plain-server.mjs — node:http and better-sqlite3 / pg, no memcore: the same routes and
//   JSON shapes for this mix, with FTS5 / tsvector, vectors and RRF, history rows, episodes (its
//   header says what it does and does not do), on its own WAL file / its own database of the same
//   PostgreSQL server, given the same embedder and model;
// - control: node:http answering `{}` at once, no database — the ceiling of this harness.
//
// Each server runs in a process of its own (load-server.mjs), so its RSS is its own: the peak is
// that process's VmHWM (/proc/<pid>/status), startup and seeding included. This process drives it
// over 127.0.0.1 with C clients × N requests each, over keep-alive. Before the timed part every
// user gets `seed` entries (PUTs, not timed) and every client opens its connection (one GET
// visible, not timed). The mix is fixed (no randomness): request j of client i is
// `requestKind(i, j)` — per 10 requests, 3 PUT (a quarter of them update the user's global
// `status`, which makes a version; the rest new keys, global and the agent's own alternating),
// 3 GET visible (recall, limit 20), 1 search ranked, 1 search hybrid (limit 10), 2 POST learn (a turn:
// a user and an assistant message; the instant model answers two facts, `recent_topic` — an update —
// and a new `note_c<i>_r<j>`). Texts are chitchat-dataset messages when scripts/fetch-chitchat.sh
// has fetched them, fixed sentences otherwise. Afterwards every key a 2xx PUT acknowledged and
// every fact a 2xx learn reported written must be in the store, read directly (a missing one is a
// lost write). Each run has a hard deadline (`timeoutMs`, 90 s, from the server's start): then no
// request is started, those in flight are cut, the row says so. After the timed part one client
// alone sends 20 requests of each kind one at a time (not in the load's numbers): what a request
// costs each server without queueing (the `alone` table). The order is control, then memcore and
// plain on SQLite, then on PostgreSQL; every run has a fresh database of its own.
//
// The earlier in-process control row (a 1 ms busy handler sharing this process's event loop) is
// gone: the servers no longer share the driver's loop, so the control is now a server process of
// its own that answers at once — the most this harness can push, far above both servers.
//   node scripts/bench/load.mjs [--clients 200] [--requests 25] [--users 20] [--seed 40] [--store sqlite|postgres|both] [--server memcore|plain|both]
//                               [--timeout 90] [--no-control]
//   LOAD_SERVER_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' node scripts/bench/load.mjs …   profiles the servers
//
// `runLoad` is what tests/js/load.test.mjs runs (smaller, asserting 0 errors and 0 lost writes).
import { spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchTexts, queryOf, turnMarker } from './load-hosts.mjs';

const M = '/usermemorystore/memories';
const SERVER_ENTRY = fileURLToPath(new URL('./load-server.mjs', import.meta.url));

export const KINDS = ['put', 'visible', 'ranked', 'hybrid', 'learn'];
const MIX = ['put', 'visible', 'hybrid', 'put', 'learn', 'visible', 'ranked', 'put', 'visible', 'learn'];

/** What request `j` of client `i` is: per 10, 3 PUT, 3 visible, 1 ranked, 1 hybrid, 2 learn. */
export function requestKind(i, j) {
  return MIX[(i * 3 + j) % MIX.length];
}

/** The key a PUT writes: every fourth PUT of a client updates the user's global `status`, the rest are new keys. */
export function putKey(i, j) {
  let before = 0;
  for (let k = 0; k < j; k++) if (requestKind(i, k) === 'put') before++;
  return (before + i) % 4 === 0 ? 'status' : `c${i}-r${j}`;
}

/** The request `j` of client `i`: `{ kind, method, path, body }` (deterministic). */
export function requestOf(i, j, { users, requests, texts }) {
  const userId = `load-u${i % users}`;
  const agentId = `agent-${i % 3}`;
  const kind = requestKind(i, j);
  const n = i * requests + j;
  const text = texts[n % texts.length];
  if (kind === 'put') {
    const key = putKey(i, j);
    const body = key === 'status'
      ? { userId, key, value: `${text} (c${i}-r${j})`, category: 'context', visibility: 'global' } // never the value before: a version each time
      : j % 2 === 0
      ? { userId, key, value: text, category: 'context', visibility: 'global' }
      : { userId, key, value: { note: text, client: i, request: j }, category: 'fact', visibility: 'self', sourceAgentId: agentId };
    return { kind, userId, key, method: 'PUT', path: M, body };
  }
  if (kind === 'visible') return { kind, userId, method: 'GET', path: `${M}/${userId}/visible?agentId=${agentId}&limit=20` };
  if (kind === 'ranked' || kind === 'hybrid') {
    const q = queryOf(texts[(n * 7 + 3) % texts.length]);
    return { kind, userId, method: 'GET', path: `${M}/${userId}/search?q=${encodeURIComponent(q)}&mode=${kind}&limit=10` };
  }
  const reply = texts[(n + 1) % texts.length];
  return {
    kind,
    userId,
    method: 'POST',
    path: `${M}/${userId}/learn`,
    body: { conversationId: `conv-c${i}`, agentId, messages: [{ role: 'user', content: `${text}${turnMarker(i, j)}` }, { role: 'assistant', content: reply }] },
  };
}

function send(agent, port, { method, path, body }, token, timeoutMs) {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (error) => resolve({ status: 0, text: String(error) }));
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (error) => resolve({ status: 0, text: String(error?.message ?? error) }));
    req.end(payload);
  });
}

const quantile = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : NaN);

/** A process's memory from /proc: `{ rss, hwm }` in bytes (null where /proc is not there). */
export function processMemory(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return { rss: null, hwm: null };
  }
}

/** Lost writes: the acknowledged `[userId, key]` pairs whose key is not in the store (`reader.list(userId)` → rows with `key`). */
export async function countLost(reader, acked) {
  const present = new Map();
  for (const userId of new Set(acked.map(([u]) => u))) present.set(userId, new Set((await reader.list(userId)).map((e) => e.key)));
  return acked.filter(([userId, key]) => !present.get(userId).has(key)).length;
}

/** Start a server process; resolves to `{ child, port, stop(), output() }`. */
async function startServer(server, store, target) {
  const args = server === 'null' ? [SERVER_ENTRY, 'null'] : [SERVER_ENTRY, server, store, target];
  // LOAD_SERVER_NODE_ARGS: node flags for the server processes, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
  const nodeArgs = (process.env.LOAD_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (c) => {
    stderr = (stderr + c).slice(-4000);
  });
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`load-server ${server} ${store ?? ''}: no port within 60 s\n${stderr}`)), 60000);
    child.stdout.on('data', (c) => {
      stdout += c;
      const line = stdout.split('\n').find((l) => l.startsWith('{"port"'));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line).port);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`load-server ${server} ${store ?? ''} exited ${code} before listening\n${stderr}`));
    });
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return exited;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15000);
    const how = await exited;
    clearTimeout(timer);
    return how;
  };
  return { child, port, stop, output: () => stderr };
}

/** What a learn answer reports written: `[key, …]` of its facts that were added, updated or unchanged. */
function learnedKeys(text) {
  try {
    const report = JSON.parse(text);
    return (report.facts ?? []).filter((f) => ['added', 'updated', 'unchanged'].includes(f.action)).map((f) => f.key);
  } catch {
    return [];
  }
}

/**
 * One run: start `server` ('memcore' | 'plain' | 'null') on `store` ('sqlite' | 'postgres') at
 * `target` (a file path or a postgres:// URL), seed, drive `clients` × `requests`, read the
 * process's memory, stop it, count lost writes with `reader` (`list(userId)`; null: not counted).
 * Resolves to `{ requests, errors, errorSamples, kinds, puts, learned, acked (PUT keys and learned facts
 * acknowledged, the lone client's `probeWrites` included), ackedKeys, lost, p50, p99,
 * rps, seconds, rss: { start, end, peak }, timedOut, unsent, found }` (latencies in ms;
 * `kinds[kind]`: `{ n, errors, p50, p99, alone }` — `alone`: the p50 of `probe` requests of that kind sent one at a time by one client after the load; `found.ranked|hybrid`: `[answers with an entry, answers]`).
 */
export async function runLoad({ server = 'memcore', store = 'sqlite', target, reader = null, clients = 200, requests = 25, users = 20, seed = 40, texts, timeoutMs = 90000, requestTimeoutMs = 30000, probe = 20, trace = null } = {}) {
  texts ??= benchTexts().texts;
  const proc = await startServer(server, store, target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  // The run's hard deadline, from the server's start: seeding, connections, the timed part and the
  // lone client. Then no request is started and those in flight are cut (they count as errors).
  let timedOut = false;
  const hard = setTimeout(() => {
    timedOut = true;
    agent.destroy();
  }, timeoutMs);
  const errorSamples = [];
  let errors = 0;
  const fail = (what, answer) => {
    errors++;
    if (errorSamples.length < 5) errorSamples.push(`${what} → ${answer.status} ${answer.text.slice(0, 200)}`);
  };
  try {
    const rssStart = processMemory(proc.child.pid).rss;
    // Seeding (not timed): `seed` global entries a user, 20 requests at a time.
    let seedErrors = 0;
    const seeds = [];
    for (let u = 0; u < users; u++) for (let k = 0; k < seed; k++) seeds.push([`load-u${u}`, k]);
    for (let s = 0; s < seeds.length && !timedOut; s += 20) {
      await Promise.all(seeds.slice(s, s + 20).map(async ([userId, k]) => {
        const text = texts[(k * users + Number(userId.slice(6))) % texts.length];
        const answer = await send(agent, proc.port, { method: 'PUT', path: M, body: { userId, key: `seed-${k}`, value: text, category: 'fact', visibility: 'global' } }, userId, requestTimeoutMs);
        if (answer.status < 200 || answer.status >= 300) {
          seedErrors++;
          fail(`seed PUT ${userId} seed-${k}`, answer);
        }
      }));
    }

    // Connections (not timed): one GET per client, all at once while the server is idle, so each
    // client has its keep-alive socket before the clock starts. Without it the timed part measures
    // a connection storm: a busy node:http server accepts a new connection about once per turn of
    // its event loop, and the last of 200 clients waited seconds for its first answer.
    const warm = await Promise.all(Array.from({ length: clients }, (_, i) => {
      const userId = `load-u${i % users}`;
      return send(agent, proc.port, { method: 'GET', path: `${M}/${userId}/visible?agentId=agent-${i % 3}&limit=20` }, userId, requestTimeoutMs);
    }));
    for (const answer of warm) if (answer.status < 200 || answer.status >= 300) fail('warm-up GET visible', answer);

    const latencies = [];
    const byKind = Object.fromEntries(KINDS.map((k) => [k, []]));
    const kindErrors = Object.fromEntries(KINDS.map((k) => [k, 0]));
    const acked = []; // [userId, key] of every 2xx PUT and every fact a 2xx learn reported written
    let puts = 0;
    let learned = 0;
    let unsent = 0;
    const found = { ranked: [0, 0], hybrid: [0, 0] }; // kind → [answers with an entry, answers]
    const shape = { users, requests, texts };
    const started = performance.now();
    const client = async (i) => {
      for (let j = 0; j < requests; j++) {
        if (timedOut) {
          unsent += requests - j;
          return;
        }
        const r = requestOf(i, j, shape);
        const t0 = performance.now();
        const answer = await send(agent, proc.port, r, r.userId, requestTimeoutMs);
        const ms = performance.now() - t0;
        latencies.push(ms);
        byKind[r.kind].push(ms);
        trace?.push({ i, j, kind: r.kind, start: t0 - started, ms, status: answer.status });
        if (r.kind === 'put') puts++;
        if (answer.status >= 200 && answer.status < 300) {
          if (r.kind === 'put') acked.push([r.userId, r.key]);
          else if (r.kind === 'learn' && server !== 'null') {
            const keys = learnedKeys(answer.text);
            learned += keys.length;
            for (const key of keys) acked.push([r.userId, key]);
          } else if (r.kind === 'ranked' || r.kind === 'hybrid') {
            found[r.kind][1]++;
            if (!answer.text.startsWith('{"entries":[]')) found[r.kind][0]++;
          }
        } else {
          kindErrors[r.kind]++;
          fail(`${r.method} ${r.path}`, answer);
        }
      }
    };
    await Promise.all(Array.from({ length: clients }, (_, i) => client(i)));
    const seconds = (performance.now() - started) / 1000;
    // One client alone (after the load, not in its numbers): `probe` requests of each kind one
    // after the other — what a request costs the server without queueing behind 199 others.
    const alone = Object.fromEntries(KINDS.map((k) => [k, []]));
    let probeWrites = 0; // the lone client's acknowledged writes: in `acked` and the lost-write count too
    if (!timedOut) {
      for (let j = 0; j < probe * MIX.length && !timedOut; j++) {
        const r = requestOf(clients, j, shape);
        if (alone[r.kind].length >= probe) continue;
        const t0 = performance.now();
        const answer = await send(agent, proc.port, r, r.userId, requestTimeoutMs);
        alone[r.kind].push(performance.now() - t0);
        if (answer.status < 200 || answer.status >= 300) fail(`alone ${r.method} ${r.path}`, answer);
        else if (r.kind === 'put' || (r.kind === 'learn' && server !== 'null')) {
          const keys = r.kind === 'put' ? [r.key] : learnedKeys(answer.text);
          probeWrites += keys.length;
          for (const key of keys) acked.push([r.userId, key]);
        }
      }
    }
    clearTimeout(hard);
    const { rss: rssEnd, hwm } = processMemory(proc.child.pid);
    agent.destroy();
    const how = await proc.stop();
    if (how.code !== 0 && !timedOut) fail(`the ${server} server's exit`, { status: how.code ?? 0, text: `${how.signal ?? ''} ${proc.output().slice(-300)}` });
    const lost = reader ? await countLost(reader, acked) : null;
    latencies.sort((a, b) => a - b);
    const kinds = {};
    for (const kind of KINDS) {
      const xs = byKind[kind].sort((a, b) => a - b);
      kinds[kind] = { n: xs.length, errors: kindErrors[kind], p50: quantile(xs, 0.5), p99: quantile(xs, 0.99), alone: quantile(alone[kind].sort((a, b) => a - b), 0.5) };
    }
    return {
      requests: latencies.length,
      errors,
      seedErrors,
      errorSamples,
      kinds,
      puts,
      acked: acked.length,
      ackedKeys: acked,
      probeWrites,
      learned,
      lost,
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
      rps: latencies.length / seconds,
      seconds,
      rss: { start: rssStart, end: rssEnd, peak: hwm },
      timedOut,
      unsent,
      found,
    };
  } finally {
    clearTimeout(hard);
    agent.destroy();
    await proc.stop();
  }
}

/** A reader of a memcore store (for lost writes): opened after the server has stopped. */
async function memcoreReader(store, target) {
  if (store === 'sqlite') {
    const { openSqlite } = await import('memcore/adapters/sqlite');
    return openSqlite(target);
  }
  const { openPostgres } = await import('memcore/adapters/postgres');
  return openPostgres(target);
}

/** Run one server on one store with its own database and reader; cleans up after itself. */
export async function runOn(server, store, { pg, dir, ...opts }) {
  let target;
  if (store === 'sqlite') target = join(dir, `${server}.db`);
  else {
    const database = `load_${server}`;
    const admin = new (await import('pg')).default.Client({ connectionString: pg.url.replace(/\/[^/]*$/, '/postgres') });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`); // a fixed identifier
    await admin.end();
    target = pg.url.replace(/\/[^/]*$/, `/${database}`);
  }
  let reader = null;
  const lazyReader = {
    list: async (userId) => {
      reader ??= server === 'memcore' ? await memcoreReader(store, target) : await (await import('./plain-server.mjs')).openPlainStore(store === 'sqlite' ? { kind: store, path: target } : { kind: store, url: target });
      return reader.list(userId);
    },
  };
  try {
    return await runLoad({ server, store, target, reader: lazyReader, ...opts });
  } finally {
    await reader?.close();
  }
}

const mib = (bytes) => (bytes === null || Number.isNaN(bytes) ? '—' : `${(bytes / 2 ** 20).toFixed(0)} MiB`);
const ms = (x) => (Number.isNaN(x) ? '—' : `${x.toFixed(1)} ms`);
const ms2 = (x) => (Number.isNaN(x) ? '—' : `${x.toFixed(2)} ms`);

export const LOAD_HEADER = ['store', 'server', 'clients × requests', 'requests', 'req/s', 'p50', 'p99', 'errors', 'lost / acked writes (PUT keys + learned facts)', 'RSS peak', 'RSS after start'];
export const KIND_HEADER = ['p50 / p99 per request kind', 'PUT', 'GET visible (recall, 20)', 'search ranked', 'search hybrid', 'POST learn (a turn)'];
export const ALONE_HEADER = ['one client alone after the load, p50 of 20 each', 'PUT', 'GET visible (recall, 20)', 'search ranked', 'search hybrid', 'POST learn (a turn)'];

const SERVER_NAMES = {
  memcore: 'memcore (examples/node-server)',
  plain: 'plain Node (node:http + driver)',
  null: 'control: node:http, `{}` at once, no database',
};

/** The heading line of the section (what bench.mjs prints before the tables). */
export function loadTitle({ clients = 200, requests = 25, users = 20, seed = 40 } = {}) {
  return `Load: memcore's example server vs a plain Node server, each in its own process on 127.0.0.1; ${clients} clients × ${requests} requests over keep-alive, ${users} users seeded with ${seed} entries each; per 10 requests 3 PUT, 3 recall, 1 search ranked, 1 search hybrid, 2 learn (scripts/bench/load.mjs)`;
}

/**
 * The rows of the load table (LOAD_HEADER), with `rows.kinds` (KIND_HEADER), `rows.alone`
 * (ALONE_HEADER) and `rows.notes`
 * (lines to print after the tables): the control, then memcore and plain on SQLite, then on
 * PostgreSQL (when a server is installed). `progress(line)` is told what runs.
 */
export async function loadRows({ clients = 200, requests = 25, users = 20, seed = 40, store = 'both', server = 'both', control = true, timeoutMs = 90000, progress = () => {} } = {}) {
  const { texts, source } = benchTexts();
  const rows = [];
  const kindRows = [];
  const aloneRows = [];
  const notes = [];
  const started = performance.now();
  const opts = { clients, requests, users, seed, texts, timeoutMs };
  const servers = server === 'both' ? ['memcore', 'plain'] : [server];
  const record = (storeName, name, r) => {
    const total = clients * requests;
    rows.push([
      storeName,
      SERVER_NAMES[name],
      `${clients} × ${requests}`,
      r.timedOut ? `${r.requests} of ${total} (deadline ${timeoutMs / 1000} s)` : String(r.requests),
      r.rps.toFixed(0),
      ms(r.p50),
      ms(r.p99),
      String(r.errors),
      r.lost === null ? '—' : `${r.lost} / ${r.acked}`,
      mib(r.rss.peak),
      mib(r.rss.start),
    ]);
    if (name !== 'null') {
      kindRows.push([`${storeName} · ${name}`, ...KINDS.map((k) => `${ms(r.kinds[k].p50)} / ${ms(r.kinds[k].p99)}${r.kinds[k].errors ? ` (${r.kinds[k].errors} errors)` : ''}`)]);
      aloneRows.push([`${storeName} · ${name}`, ...KINDS.map((k) => ms2(r.kinds[k].alone))]);
      const pct = ([hit, n]) => `${n ? Math.round((100 * hit) / n) : 0} %`;
      notes.push(`${storeName} · ${name}: ${r.seconds.toFixed(1)} s timed; searches that found something: ranked ${pct(r.found.ranked)}, hybrid ${pct(r.found.hybrid)}; RSS at the end ${mib(r.rss.end)}`);
    }
    for (const s of r.errorSamples) notes.push(`  ${storeName} · ${name} error: ${s}`);
  };
  const dir = mkdtempSync(join(tmpdir(), 'memcore-load-'));
  try {
    if (control) {
      progress('load: control');
      record('—', 'null', await runLoad({ server: 'null', ...opts }));
    }
    if (store === 'sqlite' || store === 'both') {
      for (const name of servers) {
        progress(`load: ${name} on SQLite`);
        record('SQLite (WAL file)', name, await runOn(name, 'sqlite', { dir, ...opts }));
      }
    }
    if (store === 'postgres' || store === 'both') {
      const { startPostgres, postgresBin } = await import('../../tests/support/postgres.mjs');
      if (!postgresBin()) {
        rows.push(['PostgreSQL', 'no server installed (scripts/setup.sh --postgres)', ...LOAD_HEADER.slice(2).map(() => '—')]);
      } else {
        const pg = await startPostgres({ database: 'memcore_load' });
        try {
          for (const name of servers) {
            progress(`load: ${name} on PostgreSQL`);
            record('PostgreSQL (127.0.0.1, pool of 10)', name, await runOn(name, 'postgres', { pg, dir, ...opts }));
          }
        } finally {
          pg.stop();
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  notes.unshift(`texts: ${source}; the whole section took ${((performance.now() - started) / 1000).toFixed(0)} s`);
  notes.push(
    'memcore keeps every replaced value as a version and writes an audit record (history on, the default); the plain server keeps a version row too, but no audit log.',
    'The plain server has no cap, secret detection, reserved keys, restriction/erasure, group visibility, limits, tenants, asOf reads or MCP (plain-server.mjs says what it does).',
  );
  rows.kinds = kindRows;
  rows.alone = aloneRows;
  rows.notes = notes;
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      clients: { type: 'string', default: '200' },
      requests: { type: 'string', default: '25' },
      users: { type: 'string', default: '20' },
      seed: { type: 'string', default: '40' },
      store: { type: 'string', default: 'both' },
      server: { type: 'string', default: 'both' },
      timeout: { type: 'string', default: '90' },
      'no-control': { type: 'boolean', default: false },
    },
  });
  const { printTable } = await import('./harness.mjs');
  const opts = {
    clients: Number(values.clients),
    requests: Number(values.requests),
    users: Number(values.users),
    seed: Number(values.seed),
    store: values.store,
    server: values.server,
    timeoutMs: Number(values.timeout) * 1000,
    control: !values['no-control'],
    progress: (line) => console.error(line),
  };
  console.log(`## ${loadTitle(opts)}\n`);
  const rows = await loadRows(opts);
  printTable(LOAD_HEADER, rows);
  console.log('');
  printTable(KIND_HEADER, rows.kinds);
  console.log('');
  printTable(ALONE_HEADER, rows.alone);
  console.log('');
  for (const line of rows.notes) console.log(`- ${line}`);
}

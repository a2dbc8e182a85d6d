// Load: the examples/node-server handler (createMemoryHandler + toNodeListener over one SQL store)
// in an in-process node:http server on 127.0.0.1, driven by C concurrent clients × N requests each
// over a keep-alive agent. The mix per client is fixed (no randomness): 40 % PUT upserts of new
// keys, 40 % GETs (visible / list), 20 % count / search, across several users. Afterwards every
// key a 2xx PUT acknowledged must be in the store (a missing one is a lost write).
//
//   node scripts/bench/load.mjs [--clients 200] [--requests 50] [--users 20] [--store sqlite|postgres|both]
//
// `runLoad` is also what tests/js/load.test.mjs runs (smaller, asserting 0 errors and 0 lost writes).
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { toNodeListener } from 'memcore/server';
import { createApp } from '../../examples/node-server/server.mjs';

const M = '/usermemorystore/memories';

/** What request `j` of client `i` is: 4 in 10 PUT, 2 visible, 2 list, 1 count, 1 search. */
export function requestKind(i, j) {
  return ['put', 'visible', 'put', 'list', 'put', 'count', 'put', 'visible', 'list', 'search'][(i * 3 + j) % 10];
}

function send(agent, port, method, path, token, body) {
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
    req.on('error', (error) => resolve({ status: 0, text: String(error?.message ?? error) }));
    req.end(payload);
  });
}

const quantile = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : NaN);

/** Lost writes: the acknowledged `[userId, key]` pairs whose key is not in the store (read directly, not over HTTP). */
export async function countLost(db, acked) {
  const present = new Map();
  for (const userId of new Set(acked.map(([u]) => u))) present.set(userId, new Set((await db.list(userId)).map((e) => e.key)));
  return acked.filter(([userId, key]) => !present.get(userId).has(key)).length;
}

/**
 * Drive the handler over `db` with `clients` × `requests`; resolves to
 * `{ requests, errors, errorSamples, puts, acked, lost, ackedKeys, p50, p99, rps, seconds, kinds }` (latencies in ms;
 * `kinds`: `{ put|visible|list|count|search: { n, p50, p99 } }`).
 */
export async function runLoad(db, { clients = 200, requests = 50, users = 20, prefix = 'load', listener } = {}) {
  const server = http.createServer(listener ?? toNodeListener((await createApp(db)).handler));
  server.keepAliveTimeout = 30000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const latencies = [];
  const byKind = {}; // kind → latencies
  const acked = []; // [userId, key] of every 2xx PUT
  let errors = 0;
  let puts = 0;
  const errorSamples = [];
  const userOf = (i) => `${prefix}-u${i % users}`;

  const client = async (i) => {
    const userId = userOf(i);
    const agentId = `agent-${i % 3}`;
    for (let j = 0; j < requests; j++) {
      const kind = requestKind(i, j);
      let method = 'GET';
      let path;
      let body;
      const key = `c${i}-r${j}`;
      if (kind === 'put') {
        method = 'PUT';
        path = M;
        // global and self entries alternate; a self entry belongs to the client's agent
        body = j % 2 === 0
          ? { userId, key, value: `value of ${key}`, visibility: 'global' }
          : { userId, key, value: { client: i, request: j }, visibility: 'self', sourceAgentId: agentId };
        puts++;
      } else if (kind === 'visible') path = `${M}/${userId}/visible?agentId=${agentId}&limit=20`;
      else if (kind === 'list') path = `${M}/${userId}`;
      else if (kind === 'count') path = `${M}/${userId}/count`;
      else path = `${M}/${userId}/search?q=${encodeURIComponent(`c${i}`)}`;
      const t0 = performance.now();
      const answer = await send(agent, port, method, path, userId, body);
      const ms = performance.now() - t0;
      latencies.push(ms);
      (byKind[kind] ??= []).push(ms);
      if (answer.status >= 200 && answer.status < 300) {
        if (kind === 'put') acked.push([userId, key]);
      } else {
        errors++;
        if (errorSamples.length < 5) errorSamples.push(`${method} ${path} → ${answer.status} ${answer.text.slice(0, 200)}`);
      }
    }
  };

  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, (_, i) => client(i)));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  await new Promise((resolve) => {
    server.close(resolve);
    server.closeAllConnections();
  });

  const lost = db ? await countLost(db, acked) : 0;
  latencies.sort((a, b) => a - b);
  const kinds = {};
  for (const [kind, xs] of Object.entries(byKind)) {
    xs.sort((a, b) => a - b);
    kinds[kind] = { n: xs.length, p50: quantile(xs, 0.5), p99: quantile(xs, 0.99) };
  }
  return {
    kinds,
    requests: latencies.length,
    errors,
    errorSamples,
    puts,
    acked: acked.length,
    lost,
    ackedKeys: acked,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    rps: latencies.length / seconds,
    seconds,
  };
}

/**
 * The control: the same clients against a node:http listener that burns `ms` of synchronous CPU per
 * request and answers `{}` (no memcore). The client and the server share one event loop here, so
 * this row shows what the harness itself does to the latency distribution at that cost per request.
 */
export function busyListener(ms = 1) {
  return (req, res) => {
    req.resume();
    req.on('end', () => {
      const until = performance.now() + ms;
      while (performance.now() < until);
      res.setHeader('content-type', 'application/json');
      res.end(req.method === 'PUT' ? '{"created":true}' : '{}');
    });
  };
}

/** Run on a fresh SQLite file and (when a server is installed) a throwaway PostgreSQL; one row each. */
export async function loadRows({ clients = 200, requests = 50, users = 20, store = 'both', control = true } = {}) {
  const rows = [];
  const kindRows = [];
  const kindRow = (name, r) => [name, ...KINDS.map((k) => `${r.kinds[k].p50.toFixed(1)} / ${r.kinds[k].p99.toFixed(1)} ms`)];
  const row = (name, r) => [name, `${clients} × ${requests}`, String(r.requests), `${r.p50.toFixed(1)} ms`, `${r.p99.toFixed(1)} ms`, r.rps.toFixed(0), String(r.errors), `${r.lost} / ${r.acked}`];
  if (control) {
    const r = await runLoad(null, { clients, requests, users, listener: busyListener(1) });
    rows.push(row('control: node:http, 1 ms sync handler, no memcore', { ...r, lost: '—', acked: '—' }));
  }
  if (store === 'sqlite' || store === 'both') {
    const { openSqlite } = await import('memcore/adapters/sqlite');
    const dir = mkdtempSync(join(tmpdir(), 'memcore-load-'));
    const db = await openSqlite(join(dir, 'load.db'));
    try {
      const r = await runLoad(db, { clients, requests, users });
      rows.push(row('SQLite (WAL file)', r));
      kindRows.push(kindRow('SQLite', r));
      for (const s of r.errorSamples) console.error(`  sqlite error: ${s}`);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (store === 'postgres' || store === 'both') {
    const { startPostgres, postgresBin } = await import('../../tests/support/postgres.mjs');
    if (!postgresBin()) {
      rows.push(['PostgreSQL', 'no server installed (scripts/setup.sh)', '—', '—', '—', '—', '—', '—']);
    } else {
      const pgServer = await startPostgres({ database: 'memcore_load' });
      const { openPostgres } = await import('memcore/adapters/postgres');
      const db = await openPostgres(pgServer.url);
      try {
        const r = await runLoad(db, { clients, requests, users });
        rows.push(row('PostgreSQL (127.0.0.1, pool of 10)', r));
        kindRows.push(kindRow('PostgreSQL', r));
        for (const s of r.errorSamples) console.error(`  postgres error: ${s}`);
      } finally {
        await db.close();
        pgServer.stop();
      }
    }
  }
  rows.kinds = kindRows;
  return rows;
}

const KINDS = ['put', 'visible', 'list', 'count', 'search'];
export const KIND_HEADER = ['p50 / p99 per request kind', 'PUT (new key)', 'GET visible (limit 20)', 'GET list (all)', 'GET count', 'GET search'];

export const LOAD_HEADER = ['store', 'clients × requests', 'requests', 'p50', 'p99', 'req/s', 'errors', 'lost writes / acked PUTs'];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      clients: { type: 'string', default: '200' },
      requests: { type: 'string', default: '50' },
      users: { type: 'string', default: '20' },
      store: { type: 'string', default: 'both' },
    },
  });
  const { printTable } = await import('./harness.mjs');
  const opts = { clients: Number(values.clients), requests: Number(values.requests), users: Number(values.users), store: values.store };
  console.log(`## Load: examples/node-server's handler over node:http on 127.0.0.1, ${opts.clients} clients × ${opts.requests} requests, ${opts.users} users (40 % PUT, 40 % visible/list, 20 % count/search), keep-alive\n`);
  const rows = await loadRows(opts);
  printTable(LOAD_HEADER, rows);
  console.log('');
  printTable(KIND_HEADER, rows.kinds);
}

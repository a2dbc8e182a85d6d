// Durable storage (issue 12): recall 50, search and rememberFact (a new key; an update of an
// existing key) per call at 1,000 / 10,000 / 100,000 entries of one user (plus 100 other users
// with 100 entries each), for SQLite (a WAL file), PostgreSQL (the Debian server on 127.0.0.1,
// started here), InMemoryEntryStore, and a host store that lists everything (the fallback every
// query takes when a store has none of the pushed-down methods). Each size's stores are timed
// interleaved in one process. Plus the round trips of one turn's profile read + conditional write
// on PostgreSQL, counted on the pool.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryTools, InMemoryEntryStore, ContextMemory } from 'memcore';
import { openSqlite } from 'memcore/adapters/sqlite';
import { openPostgres } from 'memcore/adapters/postgres';
import pg from 'pg';
import { compareAsync, fmtTime } from './harness.mjs';
import { makeEntries } from './entries.mjs';
import { startPostgres } from '../../tests/support/postgres.mjs';

const SIZES = [1000, 10000, 100000];
const CONFIG = { maxEntriesPerUser: 1_000_000, maxRecallEntries: 50, guardrails: { maxWritesPerTurn: 1_000_000 }, search: { mode: 'terms' } };
const OPTS = { userId: 'u1', agentId: 'agent-a', group: 'G1' };

/** A fresh database on the bench's server, by name; resolves to its connection string. */
async function database(server, name) {
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`); // a fixed identifier of this file, not a value
  await admin.end();
  return server.url.replace(/\/[^/]+$/, `/${name}`);
}

/** 100 other users × 100 entries: rows every query of u1 must skip. */
function others() {
  return Array.from({ length: 100 }, (_, u) => makeEntries(100).map((e) => ({ ...e, id: `o${u}-${e.id}`, userId: `other-${u}` }))).flat();
}

/** Write `entries` through the store's own upsert, `width` at a time. */
async function fill(store, entries, width = 64) {
  for (let i = 0; i < entries.length; i += width) await Promise.all(entries.slice(i, i + width).map((e) => store.upsert(e)));
}

/** A host store over an array with only the required methods: every query lists the user's set. */
function listEverything(entries) {
  const byId = new Map(entries.map((e) => [e.id, e]));
  return {
    list: (u) => [...byId.values()].filter((e) => e.userId === u),
    get: (id) => byId.get(id) ?? null,
    upsert: (e) => void byId.set(e.id, e),
    delete: (id) => byId.delete(id),
    incrementAccess: (ids) => ids.forEach((id) => byId.has(id) && (byId.get(id).accessCount += 1)),
  };
}

/** The four timed operations over one store. */
function operations(store, label) {
  const tools = createMemoryTools({ store, config: CONFIG, ...OPTS, now: () => '2026-12-01T00:00:00.000Z', newId: (() => { let n = 0; return () => `${label}-new-${n++}`; })() });
  let fresh = 0;
  let flip = 0;
  return {
    recall: () => tools.call('recallMemories', {}),
    search: () => tools.call('searchMemory', { query: 'dog name' }),
    rememberNew: () => { tools.newTurn(); return tools.call('rememberFact', { key: `bench_new_${label}_${fresh++}`, value: 'x' }); },
    rememberUpdate: () => { tools.newTurn(); return tools.call('rememberFact', { key: 'bench_update', value: `v${flip++ % 2}` }); },
  };
}

export async function storeRows() {
  const dir = mkdtempSync(join(tmpdir(), 'memcore-bench-stores-'));
  const server = await startPostgres({ database: 'memcore_bench' });
  const rows = [];
  const growth = {};
  try {
    const rest = others();
    for (const size of SIZES) {
      const mine = makeEntries(size);
      const sqlite = await openSqlite(join(dir, `bench-${size}.db`));
      const postgres = await openPostgres(await database(server, `bench_${size}`));
      const memory = new InMemoryEntryStore();
      for (const e of [...mine, ...rest]) memory.upsert(e);
      await fill(sqlite, [...mine, ...rest]);
      await fill(postgres, [...mine, ...rest]);
      // What autovacuum does within a minute of a bulk load: without statistics the planner takes
      // the user's whole index range for a small table (54 ms instead of 0.7 ms per recall at
      // 100,000 entries, measured).
      await postgres.pool.query('ANALYZE');
      const stores = { SQLite: sqlite, PostgreSQL: postgres, InMemoryEntryStore: memory, 'list everything': listEverything([...mine, ...rest].map((e) => ({ ...e }))) };
      const ops = Object.fromEntries(Object.entries(stores).map(([name, s]) => [name, operations(s, name.replace(/\W/g, ''))]));
      // Same answers from every store before timing.
      const answers = await Promise.all(Object.values(ops).map((o) => o.search()));
      if (new Set(answers).size !== 1) throw new Error(`search answers differ at ${size}:\n${answers.map((a) => a.slice(0, 120)).join('\n')}`);
      for (const op of ['recall', 'search', 'rememberNew', 'rememberUpdate']) {
        const names = Object.keys(ops);
        const times = await compareAsync(names.map((n) => ({ fn: ops[n][op] })), { rounds: 3, ms: size === 100000 ? 400 : 150 });
        rows.push([`${op} at ${size.toLocaleString('en')}`, ...times.map(fmtTime)]);
        names.forEach((n, i) => ((growth[`${n} ${op}`] ??= {})[size] = times[i]));
      }
      await sqlite.close();
      await postgres.close();
    }
    rows.push(...growthRows(growth));
    rows.push(await roundTrips(server));
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

/** Growth 10,000 → 100,000 (×10 entries): sub-linear means well under 10×. */
function growthRows(growth) {
  const rows = [];
  for (const op of ['recall', 'rememberNew']) {
    const cells = ['SQLite', 'PostgreSQL', 'InMemoryEntryStore', 'list everything'].map((n) => {
      const g = growth[`${n} ${op}`];
      return `${(g[100000] / g[10000]).toFixed(2)}×`;
    });
    rows.push([`${op}: time at 100,000 / time at 10,000 (entries ×10)`, ...cells]);
  }
  return rows;
}

/** Queries one turn's `load` + `afterTurn` (a rewrite) send to PostgreSQL, counted on the pool. */
async function roundTrips(server) {
  let queries = 0;
  // Counted where every query goes: a pool client's `query` (pool.query runs on one too).
  const counted = new WeakSet();
  const count = (client) => {
    if (client && !counted.has(client)) {
      const query = client.query.bind(client);
      client.query = (...a) => ((queries += 1), query(...a));
      counted.add(client);
    }
    return client;
  };
  class CountingPool extends pg.Pool {
    connect(callback) {
      if (callback) return super.connect((error, client, release) => callback(error, count(client), release));
      return super.connect().then(count);
    }
  }
  const pool = new CountingPool({ connectionString: await database(server, 'bench_turn') });
  const store = await openPostgres(pool);
  // Each consolidation adds a line, so every afterTurn really rewrites (read + conditional write).
  let turn = 0;
  const model = { complete: (r) => (r.purpose === 'gate' ? 'UPDATE' : `# User Memory\n\n## Identity\n- Ana\n- fact ${++turn}\n\n## Communication Preferences\n_(empty)_\n\n## Work Context\n_(empty)_\n\n## Skills & Expertise\n_(empty)_\n\n## Recent Topics\n_(empty)_\n\n## Follow-ups\n_(empty)_\n`) };
  const memory = new ContextMemory({ storage: store, model, now: () => '2026-12-01T00:00:00Z' });
  await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'I am Ana', assistantMessage: 'ok' }); // creates the profile
  queries = 0;
  await memory.load({ userId: 'u1', enabled: true });
  const load = queries;
  queries = 0;
  const rewrite = await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'I am Ana from Basel', assistantMessage: 'ok' });
  if (rewrite.outcome !== 'updated') throw new Error(`the measured turn did not rewrite: ${rewrite.outcome}`);
  const written = queries;
  await store.close();
  await pool.end(); // a pool the host passed in stays the host's to end
  return [`PostgreSQL round trips: load ${load}, afterTurn rewrite (read + conditional write) ${written}`, `${load + written} per turn`, '', '', 'target: read + write ≤ 2'];
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const { printTable } = await import('./harness.mjs');
  printTable(['per call', 'SQLite', 'PostgreSQL', 'InMemoryEntryStore', 'list everything'], await storeRows());
}

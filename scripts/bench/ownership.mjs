// What an entry id belonging to one user costs a write (issue 41; behaviour §8.3): rememberFact of
// a new key when the host makes the ids (`newId`: the core asks the store who holds the id before
// it writes) against the core's own 128-bit random ids (not looked up), side by side in one
// process, per store at 10,000 entries of one user: SQLite (a WAL file), PostgreSQL (the Debian
// server on 127.0.0.1, started here) and InMemoryEntryStore. History on (the default).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryTools, InMemoryEntryStore } from 'memcore';
import { openSqlite } from 'memcore/adapters/sqlite';
import { openPostgres } from 'memcore/adapters/postgres';
import pg from 'pg';
import { compareAsync, fmtTime } from './harness.mjs';
import { makeEntries } from './entries.mjs';
import { startPostgres } from '../../tests/support/postgres.mjs';

const SIZE = 10_000;
const OPTS = { userId: 'u1', agentId: 'agent-a', group: 'G1' };
const CONFIG = { maxEntriesPerUser: 1_000_000, guardrails: { maxWritesPerTurn: 1_000_000 } };

/** rememberFact of a new key each call; with `hostIds`, through the host's `newId`. */
function inserting(store, label, hostIds) {
  let n = 0;
  let t = Date.parse('2026-12-01T00:00:00Z');
  // The host's ids as long as the core's (32 hex digits), so only the lookup differs.
  const hostId = () => `${label}${(n++).toString(16)}`.padStart(32, '0');
  const memory = createMemoryTools({ store, config: CONFIG, ...OPTS, now: () => new Date((t += 1000)).toISOString(), ...(hostIds ? { newId: hostId } : {}) });
  let fresh = 0;
  return () => { memory.newTurn(); return memory.call('rememberFact', { key: `bench_new_${label}_${fresh++}`, value: 'x' }); };
}

/** The table's header. */
export const OWNERSHIP_HEADER = ['per call, 10,000 entries', "the core's ids", "the host's newId (checked)", 'host / core'];

/** Rows: per store, a new key with the core's ids, with the host's (checked), and the ratio. */
export async function ownershipRows() {
  const dir = mkdtempSync(join(tmpdir(), 'memcore-bench-ownership-'));
  const server = await startPostgres({ database: 'memcore_bench_ownership' });
  const rows = [];
  try {
    const entries = makeEntries(SIZE);
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await admin.query('CREATE DATABASE bench_ownership'); // a fixed identifier, not a value
    await admin.end();
    const postgres = await openPostgres(server.url.replace(/\/[^/]+$/, '/bench_ownership'));
    const sqlite = await openSqlite(join(dir, 'ownership.db'));
    const memory = new InMemoryEntryStore();
    for (const e of entries) memory.upsert(e);
    for (const store of [sqlite, postgres]) {
      for (let i = 0; i < entries.length; i += 64) await Promise.all(entries.slice(i, i + 64).map((e) => store.upsert(e)));
    }
    await postgres.pool.query('ANALYZE');
    for (const [name, store] of [['SQLite (WAL file)', sqlite], ['PostgreSQL (127.0.0.1)', postgres], ['InMemoryEntryStore', memory]]) {
      const [own, host] = await compareAsync([{ fn: inserting(store, 'c', false) }, { fn: inserting(store, 'b', true) }], { rounds: 5, ms: 200 });
      rows.push([`${name}: rememberFact of a new key`, fmtTime(own), fmtTime(host), `${(host / own).toFixed(2)}×`]);
    }
    // The lookup alone, as the SQL stores answer it (one statement).
    for (const [name, store] of [['SQLite (WAL file)', sqlite], ['PostgreSQL (127.0.0.1)', postgres]]) {
      let k = 0;
      const [lookup] = await compareAsync([{ fn: () => store.idHolders([`e${String(k++ % SIZE).padStart(5, '0')}`]) }], { rounds: 5, ms: 200 });
      rows.push([`${name}: idHolders of one id`, '—', fmtTime(lookup), '—']);
    }
    await sqlite.close();
    await postgres.close();
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

// Run on its own: `node scripts/bench/ownership.mjs` (after scripts/build.sh && scripts/install-package.sh).
if (import.meta.url === `file://${process.argv[1]}`) {
  const { printTable } = await import('./harness.mjs');
  printTable(OWNERSHIP_HEADER, await ownershipRows());
}

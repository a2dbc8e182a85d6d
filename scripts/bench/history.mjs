// The write cost of versioning (issue 22, SPEC §8.3): rememberFact of an existing key (its old
// state becomes a version, the write an audit record) and of a new key (an audit record only),
// with `history.enabled` true (the default) and false, side by side in one process, per store at
// 10,000 entries of one user: SQLite (a WAL file), PostgreSQL (the Debian server on 127.0.0.1,
// started here) and InMemoryEntryStore. The ratio is what history adds to a write.
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

function tools(store, enabled, label) {
  const config = { maxEntriesPerUser: 1_000_000, guardrails: { maxWritesPerTurn: 1_000_000 }, history: { enabled } };
  let n = 0;
  let t = Date.parse('2026-12-01T00:00:00Z');
  const memory = createMemoryTools({ store, config, ...OPTS, now: () => new Date((t += 1000)).toISOString(), newId: () => `${label}-${n++}` });
  let flip = 0;
  let fresh = 0;
  return {
    update: () => { memory.newTurn(); return memory.call('rememberFact', { key: `bench_update_${label}`, value: `v${flip++ % 2}` }); },
    insert: () => { memory.newTurn(); return memory.call('rememberFact', { key: `bench_new_${label}_${fresh++}`, value: 'x' }); },
  };
}

/** Rows: per store and write kind, the time without history, with it, and the ratio. */
export async function historyRows() {
  const dir = mkdtempSync(join(tmpdir(), 'memcore-bench-history-'));
  const server = await startPostgres({ database: 'memcore_bench_history' });
  const rows = [];
  try {
    const entries = makeEntries(SIZE);
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await admin.query('CREATE DATABASE bench_history'); // a fixed identifier, not a value
    await admin.end();
    const postgres = await openPostgres(server.url.replace(/\/[^/]+$/, '/bench_history'));
    const sqlite = await openSqlite(join(dir, 'history.db'));
    const memory = new InMemoryEntryStore();
    for (const e of entries) memory.upsert(e);
    for (const store of [sqlite, postgres]) {
      for (let i = 0; i < entries.length; i += 64) await Promise.all(entries.slice(i, i + 64).map((e) => store.upsert(e)));
    }
    const runs = [['SQLite (WAL file)', sqlite], ['PostgreSQL (127.0.0.1)', postgres], ['InMemoryEntryStore', memory]].map(([name, store]) => [name, tools(store, false, 'off'), tools(store, true, 'on')]);
    // A store in use: history already written (each key at its maxVersionsPerEntry), and
    // PostgreSQL's statistics taken of it, as autovacuum would — both sides alike.
    for (const [, off, on] of runs) {
      for (let i = 0; i < 200; i += 1) for (const f of [off.update, off.insert, on.update, on.insert]) await f();
    }
    await postgres.pool.query('ANALYZE');
    for (const [name, off, on] of runs) {
      for (const kind of ['update', 'insert']) {
        const [a, b] = await compareAsync([{ fn: off[kind] }, { fn: on[kind] }], { rounds: 5, ms: 200 });
        rows.push([`${name}: rememberFact ${kind === 'update' ? 'of an existing key' : 'of a new key'}`, fmtTime(a), fmtTime(b), `${(b / a).toFixed(2)}×`]);
      }
    }
    await sqlite.close();
    await postgres.close();
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

// Run on its own: `node scripts/bench/history.mjs` (after scripts/build.sh && scripts/install-package.sh).
if (import.meta.url === `file://${process.argv[1]}`) {
  const { printTable } = await import('./harness.mjs');
  printTable(['per call, 10,000 entries', 'history off', 'history on (default)', 'on / off'], await historyRows());
}

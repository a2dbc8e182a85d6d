// The write cost of versioning (issue 22, SPEC §8.3): rememberFact of an existing key (its old
// state becomes a version, the write an audit record) — one key rewritten, and many keys in turn —
// and of a new key (an audit record only),
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
import { fmtTime, interleaveAsync } from './harness.mjs';
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
  let turn = 0;
  const write = (key, value) => { memory.newTurn(); return memory.call('rememberFact', { key, value }); };
  return {
    // One key rewritten again and again: always at its maxVersionsPerEntry, each write also
    // drops its oldest version (the worst case for the trim, the best for pages shared).
    update: () => write(`bench_update_${label}`, `v${flip++ % 2}`),
    insert: () => write(`bench_new_${label}_${fresh++}`, 'x'),
    // Many keys in turn, each below its cap: a write lands on other pages of every index, as a
    // user's facts written over time do (`seed` writes each key twice first: a version each).
    seed: async (keys) => {
      for (const value of ['first', 'second']) for (let k = 0; k < keys; k += 1) await write(`bench_spread_${label}_${k}`, value);
    },
    spread: (keys) => () => write(`bench_spread_${label}_${turn++ % keys}`, `v${turn}`),
  };
}

// Keys in turn for the `spread` rows: more than the calls a side makes in the measured time, so
// every key stays below maxVersionsPerEntry (10).
const SPREAD = { 'SQLite (WAL file)': 3000, 'PostgreSQL (127.0.0.1)': 1000, InMemoryEntryStore: 3000 };

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
    // A store in use: history already written (the one key at its maxVersionsPerEntry, the
    // many keys a version each), and PostgreSQL's statistics taken of it before each row, as
    // autovacuum keeps them — both sides alike. (Statistics of a much smaller history table
    // leave plans that read it whole in PL/pgSQL's cache: docs/reference/storage.md, "History".)
    for (const [name, off, on] of runs) {
      for (let i = 0; i < 200; i += 1) for (const f of [off.update, off.insert, on.update, on.insert]) await f();
      await off.seed(SPREAD[name]);
      await on.seed(SPREAD[name]);
    }
    for (const [name, off, on] of runs) {
      const label = { update: 'of an existing key (one key, at its cap)', spread: `of an existing key (${SPREAD[name].toLocaleString('en-US')} keys in turn, below their cap)`, insert: 'of a new key' };
      for (const kind of ['update', 'spread', 'insert']) {
        const [fa, fb] = kind === 'spread' ? [off.spread(SPREAD[name]), on.spread(SPREAD[name])] : [off[kind], on[kind]];
        await postgres.pool.query('ANALYZE');
        // Off and on alternated call by call, 512 calls a side a round (eight folds of SQLite's
        // history journal, one per 64 writes, in each round's mean): the ratio of the medians,
        // and the spread of the rounds' own ratios.
        const [a, b, ratios] = await interleaveAsync(fa, fb, { rounds: 5, calls: 512 });
        const spread = `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
        rows.push([`${name}: rememberFact ${label[kind]}`, fmtTime(a), fmtTime(b), `${(b / a).toFixed(2)}× (rounds ${spread})`]);
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

// The SQL adapters per call at 1,000 / 10,000 / 100,000 entries of one user (plus 100 other users
// with 100 entries each): recall 50 (most_recent and most_accessed), search, insertWithinCap (new
// key) and upsert (update), on SQLite (a WAL file) and PostgreSQL (a local throwaway server), next
// to `list` — what a "list everything" host store ships for every call. Index-driven operations
// stay flat from 10,000 to 100,000; `list` grows linearly, and search with the rows it returns
// (its query holds "note", a word of every value).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from 'memcore/adapters/sqlite';
import { openPostgres } from 'memcore/adapters/postgres';
import { startPostgres, postgresBin } from '../../tests/support/postgres.mjs';
import { fmtTime, timePerCallAsync } from './harness.mjs';

const WORDS = ['coffee', 'zurich', 'python', 'report', 'dog', 'name', 'color', 'blue', 'team', 'deadline'];

function entry(user, i) {
  const visibility = ['global', 'self', 'group'][i % 3];
  const t = new Date(Date.UTC(2026, 0, 1) + i * 61_000).toISOString();
  return {
    id: `${user}-${i}`, userId: user, key: `${WORDS[i % WORDS.length]}_${i}`, value: `${WORDS[(i * 7) % WORDS.length]} note ${i}`,
    category: 'fact', visibility, sourceAgentId: ['a', 'b', 'c'][i % 3], groupIds: visibility === 'group' ? ['G1'] : [],
    sourceConversationId: null, conflicted: false, accessCount: (i * 7919) % 97, createdAt: t, updatedAt: t,
  };
}

async function fill(store, from, to, user = 'u1') {
  for (let i = from; i < to; i += 50) await Promise.all(Array.from({ length: Math.min(50, to - i) }, (_, k) => store.upsert(entry(user, i + k))));
}

async function measure(store) {
  let n = 0;
  const ms = 200;
  const t = {};
  t.recallRecent = await timePerCallAsync(() => store.recall({ userId: 'u1', agentId: 'a', groupId: 'G1', order: 'most_recent', limit: 50 }), { ms });
  t.recallAccessed = await timePerCallAsync(() => store.recall({ userId: 'u1', agentId: 'a', groupId: 'G1', order: 'most_accessed', limit: 50 }), { ms });
  t.search = await timePerCallAsync(() => store.search('u1', 'coffee note 12'), { ms });
  t.insert = await timePerCallAsync(async () => {
    const e = { ...entry('u1', 0), id: `new-${n}`, key: `new_${n++}`, visibility: 'self' };
    await store.insertWithinCap(e, { maxEntries: 1e9, evict: [] });
  }, { ms });
  t.update = await timePerCallAsync(() => store.upsert({ ...entry('u1', 5), value: `v${n++}` }), { ms });
  t.list = await timePerCallAsync(() => store.list('u1'), { ms: 100 });
  return t;
}

/** Rows: [store, entries, recall most_recent, recall most_accessed, search, insertWithinCap, upsert, list]. */
export async function sqlRows({ sizes = [1000, 10000, 100000] } = {}) {
  const rows = [];
  const dir = mkdtempSync(join(tmpdir(), 'memcore-bench-sql-'));
  const server = postgresBin() ? await startPostgres({ database: 'memcore_bench' }) : null;
  try {
    const stores = [['SQLite (WAL file)', await openSqlite(join(dir, 'bench.db'))]];
    if (server) stores.push(['PostgreSQL (local)', await openPostgres(server.url)]);
    for (const [, store] of stores) for (let u = 0; u < 100; u++) await fill(store, 0, 100, `other-${u}`);
    let have = 0;
    for (const size of sizes) {
      for (const [name, store] of stores) {
        await fill(store, have, size);
        if (name.startsWith('PostgreSQL')) await store.pool.query('ANALYZE');
        const t = await measure(store);
        rows.push([name, size.toLocaleString('en'), ...['recallRecent', 'recallAccessed', 'search', 'insert', 'update', 'list'].map((k) => fmtTime(t[k]))]);
      }
      have = size;
    }
    for (const [, store] of stores) await store.close();
  } finally {
    server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { printTable } = await import('./harness.mjs');
  printTable(['store', 'entries of the user', 'recall 50 (recent)', 'recall 50 (accessed)', 'search', 'insertWithinCap', 'upsert (update)', 'list (all)'], await sqlRows());
}

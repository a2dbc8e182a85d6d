// What a page of the operators' console costs (issue 43, behaviour §8.7): one user's 10,000
// entries in a SQLite file, `GET /usermemorystore/memories/{userId}?limit=50…` through the
// handler, side by side in one process: the store answering the page itself (`entryPage`: the
// filters in SQL, LIMIT/OFFSET on the recency index) against the same store without it (the
// handler's fallback for a store that cannot page: the user's list read whole, filtered and sliced
// in JS). Both answer the same JSON, checked first.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryHandler } from 'memcore/server';
import { openSqlite } from 'memcore/adapters/sqlite';
import { compareAsync, fmtTime } from './harness.mjs';

const SIZE = 10_000;
const KINDS = ['learned', 'rest', 'agent', 'mcp'];

/** Rows: per page, the time with entryPage, without it, and the ratio. */
export async function operatorPageRows() {
  const dir = mkdtempSync(join(tmpdir(), 'memcore-bench-pages-'));
  const rows = [];
  try {
    const store = await openSqlite(join(dir, 'pages.db'));
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    const entries = Array.from({ length: SIZE }, (_, i) => {
      const at = new Date(t0 + i * 1000).toISOString();
      return {
        id: `e${i}`, userId: 'big', key: `note-${i}`, value: `a note about thing number ${i}, in a few more words`, category: ['fact', 'preference', 'context'][i % 3],
        visibility: 'global', sourceAgentId: null, groupIds: [], sourceConversationId: null, conflicted: false, accessCount: 0, createdAt: at, updatedAt: at, writtenBy: KINDS[i % 4],
      };
    });
    await store.insertAll(entries);
    const authenticate = () => ({ userId: 'ops', admin: true });
    const paged = createMemoryHandler({ entries: store, authenticate });
    // The same store with no entryPage: what any host store without it gets.
    const unpaged = new Proxy(store, { get: (t, p) => (p === 'entryPage' ? undefined : typeof t[p] === 'function' ? t[p].bind(t) : t[p]) });
    const whole = createMemoryHandler({ entries: unpaged, authenticate });
    const get = async (handler, query) => (await handler(new Request(`http://127.0.0.1/usermemorystore/memories/big?${query}`))).text();
    for (const [name, query] of [['first page', 'limit=50'], ['page 101, learned only', 'limit=50&offset=5000&writtenBy=learned'], ['page 3, preference and written', 'limit=50&offset=100&category=preference&writtenBy=written']]) {
      if ((await get(paged, query)) !== (await get(whole, query))) throw new Error(`operator-pages: the two answers differ for ${query}`);
      const [a, b] = await compareAsync([{ fn: () => get(paged, query) }, { fn: () => get(whole, query) }], { rounds: 5, ms: 200 });
      rows.push([name, fmtTime(a), fmtTime(b), `${(b / a).toFixed(1)}×`]);
    }
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await operatorPageRows()) console.log(row.join('  '));
}

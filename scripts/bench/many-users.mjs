// Memory with many users (issue 45): U users × E entries on SQLite (a WAL file), each entry with a
// 384-dimension vector (`reindexEmbeddings` with a deterministic embedder), then every user
// searched in turn (hybrid: the query embedded, ranked by terms and meaning), twice. The search
// mirrors (`searchMirror.maxEntries`, 100,000 by default) hold the least recently searched users
// out: what is measured is whether the process's memory plateaus at the cap's size plus a
// constant, or keeps growing with the users searched. Reported: RSS after seeding and after each
// tenth of each pass, the latency of a search (p50, p99).
//
//   node scripts/bench/many-users.mjs [--users 1000] [--entries 1000] [--mirror 100000]
//
// Also in `make bench` with a smaller default (200 users × 1,000 entries, a 20,000-entry cap):
// the same shape, the cap crossed ten times.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as m from 'memcore';
import { openSqlite } from 'memcore/adapters/sqlite';

const DIMENSIONS = 384;
const WORDS = ['dog', 'coffee', 'garden', 'train', 'piano', 'sister', 'tokyo', 'running', 'cheese', 'novel', 'winter', 'bike', 'office', 'doctor', 'movie', 'tea'];

/** A deterministic embedder: each word adds to a few of 384 dimensions chosen by its letters. */
export const embedder = {
  model: 'bench-384',
  dimensions: DIMENSIONS,
  maxBatch: 256,
  embed: async ({ texts }) => ({
    vectors: texts.map((t) => {
      const v = new Float32Array(DIMENSIONS).fill(0.01);
      for (const w of t.toLowerCase().split(/[^a-z0-9]+/)) {
        if (w === '') continue;
        let h = 7;
        for (let i = 0; i < w.length; i++) h = (h * 31 + w.charCodeAt(i)) >>> 0;
        for (let k = 0; k < 3; k++) v[(h >>> (k * 8)) % DIMENSIONS] += 1;
      }
      return v;
    }),
  }),
};

function entriesOf(user, count) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const at = `2026-06-01T${String(10 + (i % 10)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00.000Z`;
    out.push({
      id: `${user}-e${i}`, userId: user, key: `${WORDS[i % 16]}_${i}`, value: `${WORDS[(i * 3) % 16]} ${WORDS[(i * 7) % 16]} note ${i}`,
      category: 'fact', visibility: 'self', sourceAgentId: 'bench', groupIds: [], sourceConversationId: null, conflicted: false,
      accessCount: 0, createdAt: at, updatedAt: at,
    });
  }
  return out;
}

const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** Rows: [what, value] of one run. */
export async function manyUsersRows({ users = 200, entries = 1000, mirror = 20_000 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'memcore-bench-users-'));
  const rows = [];
  try {
    const store = await openSqlite(join(dir, 'users.db'), { searchMirror: { maxEntries: mirror } });
    const ids = Array.from({ length: users }, (_, u) => `user-${u}`);
    for (const user of ids) {
      await store.insertAll(entriesOf(user, entries));
      await m.reindexEmbeddings(store, embedder, { userId: user });
    }
    const base = process.memoryUsage().rss;
    rows.push([`seeded: ${users.toLocaleString('en')} users × ${entries.toLocaleString('en')} entries with ${DIMENSIONS}-d vectors; mirror cap ${mirror.toLocaleString('en')} entries`, `RSS ${mib(base)}`]);
    const options = { mode: 'hybrid', limit: 10, embedder };
    const latencies = [];
    let peak = base;
    for (const pass of [1, 2]) {
      const marks = [];
      for (let u = 0; u < users; u++) {
        const t = process.hrtime.bigint();
        const found = await m.searchUserMemories(store, ids[u], `${WORDS[u % 16]} ${WORDS[(u * 5) % 16]}`, options);
        latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
        if (found.length === 0) throw new Error(`a bench search found nothing for ${ids[u]}`);
        const rss = process.memoryUsage().rss;
        peak = Math.max(peak, rss);
        if ((u + 1) % Math.ceil(users / 10) === 0) marks.push(mib(rss));
      }
      rows.push([`pass ${pass}: RSS after each tenth of the users`, marks.join(', ')]);
    }
    latencies.sort((a, b) => a - b);
    rows.push(['hybrid search, p50 / p99', `${quantile(latencies, 0.5).toFixed(2)} ms / ${quantile(latencies, 0.99).toFixed(2)} ms`]);
    rows.push(['RSS: peak − after seeding', mib(peak - base)]);
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const { values } = parseArgs({ options: { users: { type: 'string', default: '1000' }, entries: { type: 'string', default: '1000' }, mirror: { type: 'string', default: '100000' } } });
  const { printTable } = await import('./harness.mjs');
  printTable(['many users', ''], await manyUsersRows({ users: Number(values.users), entries: Number(values.entries), mirror: Number(values.mirror) }));
}

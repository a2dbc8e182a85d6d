// What a tenant view costs (issue 24, SPEC §8.5): the same SQLite file holds user u1's 10,000
// entries in the default tenant and in tenant "acme" (plus 10 more tenants with the same user id
// and 1,000 entries each); recall 50, searchMemory and rememberFact (an update) through the
// default store and through `forTenant('acme')`, side by side in one process. The ratio is what
// the prefix on every stored id adds (docs/reference/storage.md, "Tenants").
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryTools } from 'memcore';
import { openSqlite } from 'memcore/adapters/sqlite';
import { compareAsync, fmtTime } from './harness.mjs';
import { makeEntries } from './entries.mjs';

const SIZE = 10_000;
const CONFIG = { maxEntriesPerUser: 1_000_000, maxRecallEntries: 50, guardrails: { maxWritesPerTurn: 1_000_000 }, search: { mode: 'terms' } };

function tools(store, label) {
  let t = Date.parse('2026-12-01T00:00:00Z');
  let flip = 0;
  const memory = createMemoryTools({ store, config: CONFIG, userId: 'u1', agentId: 'agent-a', group: 'G1', now: () => new Date((t += 1000)).toISOString(), newId: () => `${label}-${flip}` });
  return {
    recall: () => { memory.newTurn(); return memory.call('recallMemories', {}); },
    search: () => { memory.newTurn(); return memory.call('searchMemory', { query: 'dog name' }); },
    update: () => { memory.newTurn(); return memory.call('rememberFact', { key: `bench_update_${label}`, value: `v${flip++ % 2}` }); },
  };
}

/** Rows: per operation, the default tenant's time, the tenant view's, and the ratio. */
export async function tenantRows() {
  const dir = mkdtempSync(join(tmpdir(), 'memcore-bench-tenants-'));
  const rows = [];
  try {
    const root = await openSqlite(join(dir, 'tenants.db'));
    const acme = root.forTenant('acme');
    const entries = makeEntries(SIZE);
    const fill = async (store, list) => {
      for (let i = 0; i < list.length; i += 64) await Promise.all(list.slice(i, i + 64).map((e) => store.upsert(e)));
    };
    await fill(root, entries);
    await fill(acme, entries);
    for (let n = 0; n < 10; n++) await fill(root.forTenant(`tenant-${n}`), entries.slice(0, 1000));
    root.database.exec('ANALYZE');
    const plain = tools(root, 'default');
    const scoped = tools(acme, 'acme');
    for (const [name, kind] of [['recallMemories (50)', 'recall'], ['searchMemory "dog name"', 'search'], ['rememberFact (update)', 'update']]) {
      const [a, b] = await compareAsync([{ fn: plain[kind] }, { fn: scoped[kind] }], { rounds: 5, ms: 200 });
      rows.push([name, fmtTime(a), fmtTime(b), `${(b / a).toFixed(2)}×`]);
    }
    await root.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await tenantRows()) console.log(row.join('  '));
}

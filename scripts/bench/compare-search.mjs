// searchMemory per call through the tools, an older memcore build against the installed one, on
// identical data (the stores bench's: one user's N entries plus 100 other users × 100) in one
// process, interleaved, on SQLite files and on one PostgreSQL server started here. The older build
// is the package installed under <dir>/node_modules/memcore, e.g. a checkout of an earlier commit
// after `scripts/build.sh && scripts/install-package.sh` there:
//   node scripts/bench/compare-search.mjs <dir>
//   SIZES=1000,10000 QUERIES='dog name|coffee' node scripts/bench/compare-search.mjs <dir>
// Both builds must give the same tool answer; the table shows each one's time and store rows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { compareAsync, fmtTime } from './harness.mjs';
import { makeEntries } from './entries.mjs';
import { startPostgres } from '../../tests/support/postgres.mjs';

if (!process.argv[2]) throw new Error('usage: node scripts/bench/compare-search.mjs <dir with node_modules/memcore of the older build>');

/** The package installed under `root`: its core and its two Node SQL adapters. */
const load = async (root) => ({
  core: await import(`${root}/node_modules/memcore/node.js`),
  sqlite: await import(`${root}/node_modules/memcore/adapters/sqlite.js`),
  postgres: await import(`${root}/node_modules/memcore/adapters/postgres.js`),
});
const before = await load(resolve(process.argv[2]));
const after = await load(resolve(new URL('../..', import.meta.url).pathname));
const SIZES = (process.env.SIZES ?? '1000,10000,100000').split(',').map(Number);
const QUERIES = (process.env.QUERIES ?? 'dog name').split('|');
const CONFIG = { maxEntriesPerUser: 1_000_000, maxRecallEntries: 50, guardrails: { maxWritesPerTurn: 1_000_000 }, search: { mode: 'terms' } };
// 100 other users × 100 entries, as in stores.mjs.
const others = () => Array.from({ length: 100 }, (_, u) => makeEntries(100).map((e) => ({ ...e, id: `o${u}-${e.id}`, userId: `other-${u}` }))).flat();

async function fill(store, entries, width = 64) {
  for (let i = 0; i < entries.length; i += width) await Promise.all(entries.slice(i, i + width).map((e) => store.upsert(e)));
}

const dir = mkdtempSync(join(tmpdir(), 'memcore-ba-'));
const server = await startPostgres({ database: 'memcore_ba' });
const database = async (name) => {
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`); // a fixed identifier of this file, not a value
  await admin.end();
  return server.url.replace(/\/[^/]+$/, `/${name}`);
};
console.log('| searchMemory per call | query | SQLite, older | SQLite, installed | PostgreSQL, older | PostgreSQL, installed |');
console.log('|---|---|---|---|---|---|');
try {
  const rest = others();
  for (const size of SIZES) {
    const all = [...makeEntries(size), ...rest];
    const stores = {};
    for (const [label, v] of [['before', before], ['after', after]]) {
      stores[`sqlite ${label}`] = [v, await v.sqlite.openSqlite(join(dir, `${label}-${size}.db`))];
      stores[`pg ${label}`] = [v, await v.postgres.openPostgres(await database(`ba_${label}_${size}`))];
    }
    for (const [, s] of Object.values(stores)) await fill(s, all);
    // What autovacuum does soon after a bulk load (see stores.mjs).
    for (const k of ['pg before', 'pg after']) await stores[k][1].pool.query('ANALYZE');
    const order = ['sqlite before', 'sqlite after', 'pg before', 'pg after'];
    for (const query of QUERIES) {
      const tools = order.map((k) => stores[k][0].core.createMemoryTools({ store: stores[k][1], config: CONFIG, userId: 'u1', agentId: 'agent-a', group: 'G1' }));
      const answers = await Promise.all(tools.map((t) => t.call('searchMemory', { query })));
      if (new Set(answers).size !== 1) throw new Error(`answers differ for ${query} at ${size}`);
      const counts = await Promise.all(order.map((k) => stores[k][1].search('u1', query).then((r) => r.length)));
      const times = await compareAsync(tools.map((t) => ({ fn: () => t.call('searchMemory', { query }) })), { rounds: 3, ms: size === 100000 ? 600 : 200 });
      console.log(`| at ${size.toLocaleString('en')} | ${query} | ${times.map((t, i) => `${fmtTime(t)} (${counts[i]} rows)`).join(' | ')} |`);
    }
    for (const [, s] of Object.values(stores)) await s.close();
  }
} finally {
  server.stop();
  rmSync(dir, { recursive: true, force: true });
}

// The SQL stores the parameterised suite runs against, each started for real by the test: SQLite
// on a file in a temp dir and in memory (better-sqlite3), PostgreSQL (a throwaway server,
// tests/support/postgres.mjs) and D1 (miniflare's D1 behind a Worker, tests/support/d1-worker.mjs).
// Every backend answers the same shape:
//   store            the adapter object (entry store + profile storage)
//   reset()          empty the tables (a fresh store per scenario)
//   sql(text, ps)    rows of a raw query (tests poke the schema with it)
//   reopen()         open the same database again (a second handle / a second Worker open)
//   openFresh()      open an empty database of the same kind; resolves to { store, sql, close }
//   stop()           close everything
//   upsertMany(es)   (optional) upsert many entries through the adapter at once
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openSqlite } from 'memcore/adapters/sqlite';
import { openPostgres } from 'memcore/adapters/postgres';
import { startPostgres } from './postgres.mjs';
import { startD1Worker } from './d1-worker.mjs';

const CLEAR_SQLITE = 'DELETE FROM memcore_entries; DELETE FROM memcore_profiles; DELETE FROM memcore_history_journal; DELETE FROM memcore_entry_versions; DELETE FROM memcore_audit; DELETE FROM memcore_api_keys; DELETE FROM memcore_episodes;';

async function sqliteBackend(kind) {
  const dir = mkdtempSync(join(tmpdir(), 'memcore-sqlite-'));
  let n = 0;
  const path = () => (kind === 'file' ? join(dir, `memcore-${n++}.db`) : ':memory:');
  const main = kind === 'file' ? join(dir, 'memcore.db') : null;
  // `:memory:` is private to its handle: adopt one Database so `reopen` sees the same data.
  const shared = kind === 'memory' ? new Database(':memory:') : null;
  const store = await openSqlite(main ?? shared);
  const handles = [store];
  return {
    name: `sqlite-${kind}`,
    store,
    file: main,
    reset: async () => store.database.exec(CLEAR_SQLITE),
    sql: async (text, params = []) => {
      const statement = store.database.prepare(text);
      return statement.reader ? statement.all(...params) : (statement.run(...params), []);
    },
    reopen: async () => {
      const again = await openSqlite(main ?? shared);
      handles.push(again);
      return again;
    },
    openFresh: async () => {
      const p = path();
      const raw = new Database(p);
      return {
        raw: async (text, params = []) => {
          const statement = raw.prepare(text);
          return statement.reader ? statement.all(...params) : (statement.run(...params), []);
        },
        open: () => openSqlite(kind === 'file' ? p : raw),
        close: async () => raw.close(),
      };
    },
    stop: async () => {
      for (const h of handles) await h.close();
      shared?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresBackend() {
  const server = await startPostgres();
  const store = await openPostgres(server.url);
  const handles = [store];
  let fresh = 0;
  return {
    name: 'postgres',
    store,
    server,
    // TRUNCATE fires no row triggers: the per-user counts and the search texts go with the rows.
    reset: async () => store.pool.query('TRUNCATE memcore_entries, memcore_profiles, memcore_user_counts, memcore_search, memcore_entry_versions, memcore_audit, memcore_api_keys, memcore_episodes'),
    sql: async (text, params = []) => (await store.pool.query(text, params)).rows,
    reopen: async () => {
      const again = await openPostgres(server.url);
      handles.push(again);
      return again;
    },
    openFresh: async () => {
      const name = `memcore_fresh_${fresh++}`;
      await store.pool.query(`CREATE DATABASE ${name}`); // a fixed identifier, not a value
      const url = server.url.replace(/\/[^/]+$/, `/${name}`);
      const pg = (await import('pg')).default;
      const raw = new pg.Pool({ connectionString: url, max: 2 });
      return {
        raw: async (text, params = []) => (await raw.query(text, params)).rows,
        open: () => openPostgres(url),
        close: () => raw.end(),
      };
    },
    stop: async () => {
      for (const h of handles) await h.close().catch(() => {});
      server.stop();
    },
  };
}

async function d1Backend() {
  const worker = await startD1Worker({ bindings: ['DB', 'DB2', 'DB3', 'DB4', 'DB5'] });
  await worker.call('DB', 'open', []);
  const store = worker.store('DB');
  const spare = ['DB2', 'DB3', 'DB4', 'DB5'];
  return {
    name: 'd1',
    store,
    worker,
    reset: async () => {
      await worker.sql('DB', 'DELETE FROM memcore_entries');
      await worker.sql('DB', 'DELETE FROM memcore_profiles');
      await worker.sql('DB', 'DELETE FROM memcore_entry_versions');
      await worker.sql('DB', 'DELETE FROM memcore_audit');
      await worker.sql('DB', 'DELETE FROM memcore_api_keys');
      await worker.sql('DB', 'DELETE FROM memcore_episodes');
    },
    sql: (text, params = []) => worker.sql('DB', text, params),
    // Seeding through the adapter inside the Worker: one request instead of one per entry.
    upsertMany: (entries) => worker.call('DB', 'upsertMany', [entries]),
    reopen: async () => Object.assign(worker.store('DB'), await worker.call('DB', 'open', [])),
    openFresh: async () => {
      const binding = spare.shift();
      if (!binding) throw new Error('d1 backend: no spare D1 binding left');
      return {
        raw: (text, params = []) => worker.sql(binding, text, params),
        open: async () => Object.assign(worker.store(binding), await worker.call(binding, 'open', [])),
        close: async () => {},
      };
    },
    stop: () => worker.dispose(),
  };
}

/** The four backends, started lazily by name. */
export const BACKENDS = {
  'sqlite-file': () => sqliteBackend('file'),
  'sqlite-memory': () => sqliteBackend('memory'),
  postgres: postgresBackend,
  d1: d1Backend,
};

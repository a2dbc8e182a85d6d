// The SQL adapters' typings, compiled with tsc --strict against the installed package.
import { createMemoryTools, ContextMemory, type EntryStore } from 'memcore';
import type { ProfileStorage } from 'memcore/adapters/memory';
import { openSqlite, type SqliteStorage, type CapResult } from 'memcore/adapters/sqlite';
import { openPostgres, type PgPool } from 'memcore/adapters/postgres';
import { openD1, type D1DatabaseLike } from 'memcore/adapters/d1';

export async function sql(pool: PgPool, binding: D1DatabaseLike): Promise<number> {
  const lite: SqliteStorage = await openSqlite(':memory:', { busyTimeoutMs: 100 });
  const stores: EntryStore[] = [lite, await openPostgres(pool), await openPostgres('postgres://x@localhost/db', { max: 2 }), await openD1(binding)];
  const profiles: ProfileStorage[] = [lite];
  createMemoryTools({ store: lite, userId: 'u', agentId: 'a' });
  new ContextMemory({ storage: lite });
  const recalled = await lite.recall({ userId: 'u', agentId: 'a', groupId: null, order: 'most_accessed', limit: 5 });
  const result: CapResult = await lite.insertWithinCap(recalled[0], { maxEntries: 10, evict: [] });
  const version: string = (await lite.write('p', 't', { ifAbsent: true })).version;
  await lite.close();
  return stores.length + profiles.length + (result.written ? result.count : 0) + version.length + lite.schemaVersion + (await lite.countUser('u'));
}

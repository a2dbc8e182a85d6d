// The SQL adapters' typings, compiled with tsc --strict against the installed package.
import { createMemoryTools, ContextMemory, eraseUserData, exportUserData, importUserData, type EntryStore, type ErasureReport, type ImportUndoDetails } from 'memcore';
import type { ProfileStorage } from 'memcore/adapters/memory';
import { openSqlite, type SqliteStorage, type CapResult } from 'memcore/adapters/sqlite';
import { openPostgres, type PgPool } from 'memcore/adapters/postgres';
import { openD1, type D1DatabaseLike } from 'memcore/adapters/d1';

export async function sql(pool: PgPool, binding: D1DatabaseLike): Promise<number> {
  const lite: SqliteStorage = await openSqlite(':memory:', { busyTimeoutMs: 100 });
  const stores: EntryStore[] = [lite, await openPostgres(pool, { searchMirror: { maxEntries: 0 } }), await openPostgres('postgres://x@localhost/db', { max: 2 }), await openD1(binding, { searchMirror: { maxEntries: 5000 } })];
  const mirror = await lite.searchIndex('u', 'model-id');
  const mirrored: number = mirror === null ? 0 : mirror.size;
  void mirrored;
  const profiles: ProfileStorage[] = [lite];
  createMemoryTools({ store: lite, userId: 'u', agentId: 'a' });
  new ContextMemory({ storage: lite });
  const recalled = await lite.recall({ userId: 'u', agentId: 'a', groupId: null, order: 'most_accessed', limit: 5 });
  const result: CapResult = await lite.insertWithinCap(recalled[0], { maxEntries: 10, evict: [] });
  const version: string = (await lite.write('p', 't', { ifAbsent: true })).version;
  // The rights with { entries: db } alone: the SQL store serves the profile side too.
  const erased: ErasureReport = await eraseUserData('u', { entries: lite, rootFolder: 'user-memory' });
  const erasedHere: number | null = erased.stores[0].entries;
  const doc = await exportUserData('u', { entries: lite });
  const imported = await importUserData(doc, { entries: lite });
  const profileHere: boolean | null = imported.stores[0].profile;
  await lite.insertAll(doc.entries);
  const undo: ImportUndoDetails = { entries: 1, profileRemoved: false, failed: [{ entryId: 'e', code: 'E_HOST', message: 'x' }] };
  void [erasedHere, profileHere, undo];
  await lite.close();
  return stores.length + profiles.length + (result.written ? result.count : 0) + version.length + lite.schemaVersion + (await lite.countUser('u'));
}

// Tenants (docs/reference/storage.md, "Tenants").
export async function tenants() {
  const { openSqlite } = await import('memcore/adapters/sqlite');
  const db = await openSqlite('./t.db', { tenant: 'acme' });
  const id: string | null = db.tenantId;
  const root = await openSqlite('./t.db');
  const view = root.forTenant('globex');
  await view.list('u1');
  // @ts-expect-error a view has no close(): close the store it came from
  await view.close();
  return id;
}

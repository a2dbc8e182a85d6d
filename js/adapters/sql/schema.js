// Schema versions and migrations shared by the SQL adapters (docs/storage.md). The migration
// texts come from sql/<dialect>/NNN_*.sql, embedded by scripts/package.mjs into migrations.js so a
// Worker (which cannot read files) gets them too.
import { MemcoreError } from '../../errors.js';
import { checkText } from './entry-rows.js';
import { POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS } from './migrations.js';
import { SQL } from './sqlite-statements.js';
import { checkStoragePath } from '../storage-arguments.js';

/** The newest schema version this code knows (the last migration). */
export const SUPPORTED_SCHEMA = Math.max(...SQLITE_MIGRATIONS.map((m) => m.version));
if (SUPPORTED_SCHEMA !== Math.max(...POSTGRES_MIGRATIONS.map((m) => m.version))) {
  throw new Error('memcore: the SQLite and PostgreSQL migrations must end at the same version');
}

export { POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS };

/** The refusal of a database written by a newer memcore: nothing was changed. */
export function schemaNewer(fn, found) {
  return new MemcoreError(
    'E_HOST',
    `${fn}: the database schema is at version ${found}, newer than this memcore supports (${SUPPORTED_SCHEMA}); upgrade memcore — nothing was changed`,
    { function: fn, reason: 'schema-newer', found, supported: SUPPORTED_SCHEMA, transient: false },
  );
}

/** Apply the pending SQLite migrations on a better-sqlite3 handle, in one `BEGIN IMMEDIATE` transaction. */
export function applySqliteMigrations(db) {
  db.transaction(() => {
    db.exec(SQL.schemaTable);
    const found = db.prepare(SQL.schemaVersion).get().version;
    if (found > SUPPORTED_SCHEMA) throw schemaNewer('openSqlite', found);
    for (const migration of SQLITE_MIGRATIONS) {
      if (migration.version <= found) continue;
      for (const statement of migration.statements) db.exec(statement);
      db.prepare(SQL.recordVersion).run(migration.version, new Date().toISOString());
    }
  }).immediate();
}

/** A stored version is a positive integer; anything else can never match (→ conflict). */
export function parseVersion(version) {
  return /^[1-9][0-9]{0,15}$/.test(version) ? Number(version) : null;
}

/** Profile text must be a string the database stores as is. */
export function profileText(text, fn, limits) {
  if (typeof text !== 'string') {
    throw new MemcoreError('E_ARGUMENT', `${fn}: text must be a string`, { function: fn, argument: 'text' });
  }
  checkText(text, fn, 'text', limits.nul);
}

/** A profile path: non-empty, and text the database stores as is. */
export function checkProfilePath(path, fn, limits) {
  checkStoragePath(path, fn);
  checkText(path, fn, 'path', limits.nul);
}

// Schema versions and migrations shared by the SQL adapters (docs/reference/storage.md). The migration
// texts come from sql/<dialect>/NNN_*.sql, embedded by scripts/package.mjs into migrations.js so a
// Worker (which cannot read files) gets them too.
import { MemcoreError } from '../../errors.js';
import { checkText, derivedColumns } from './entry-rows.js';
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

/**
 * Schema 4 indexes search_text for rows that schema 3 left NULL (non-ASCII text, non-string
 * values): a database upgraded across it has its NULL rows' text computed by the core
 * (`indexColumns`) — SQL cannot — once, when that migration is applied. Rows that stay NULL (a
 * lone surrogate, nesting deeper than 64, a value that is not JSON) are still returned by every
 * search and matched by the core.
 */
export const SEARCH_TEXT_SINCE = 4;

/**
 * `[searchText, id]` for each of `rows` (`{ id, key, value }`) that now gets a search_text.
 * `parsed`: the driver answers values parsed (PostgreSQL `jsonb`), not as JSON text (SQLite).
 * The text is taken as `JSON.stringify` writes the value (what the adapters store).
 */
export function searchTextUpdates(rows, parsed = false) {
  const readable = [];
  const jsons = [];
  for (const row of rows) {
    try {
      jsons.push(JSON.stringify(parsed ? row.value : JSON.parse(row.value)));
      readable.push(row);
    } catch {
      // Not readable as JSON: it stays a candidate of every search.
    }
  }
  const columns = derivedColumns(readable.map((row) => ({ key: row.key, updatedAt: '' })), jsons);
  return readable.flatMap((row, i) => (columns[i].searchText === null ? [] : [[columns[i].searchText, row.id]]));
}

/**
 * Back-fill search_text page by page: `page(afterId)` answers up to 500 rows with a NULL
 * search_text and an id above `afterId`, in id order; `write(updates)` stores their texts;
 * `parsed` as in `searchTextUpdates`.
 */
export async function backfillSearchText(page, write, parsed = false) {
  for (let after = ''; ; ) {
    const rows = await page(after);
    if (rows.length === 0) return;
    const updates = searchTextUpdates(rows, parsed);
    if (updates.length > 0) await write(updates);
    after = rows[rows.length - 1].id;
  }
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
    if (found > 0 && found < SEARCH_TEXT_SINCE) {
      // better-sqlite3 is synchronous: the same loop as backfillSearchText, without awaits.
      const page = db.prepare(SQL.untextedPage);
      const set = db.prepare(SQL.setSearchText);
      for (let after = ''; ; ) {
        const rows = page.all(after);
        if (rows.length === 0) break;
        for (const [text, id] of searchTextUpdates(rows)) set.run(text, id);
        after = rows[rows.length - 1].id;
      }
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

/**
 * `insertAll`'s options: `{ profile: { path, text } }` (the import's profile, created in the same
 * transaction, create-only) or nothing. The profile, checked, or `null`.
 */
export function importProfile(options, fn, limits) {
  if (options === undefined || options === null) return null;
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new MemcoreError('E_ARGUMENT', `${fn}: options must be { profile?: { path, text } }`, { function: fn, argument: 'options' });
  }
  const { profile } = options;
  if (profile === undefined || profile === null) return null;
  if (typeof profile !== 'object' || Array.isArray(profile)) {
    throw new MemcoreError('E_ARGUMENT', `${fn}: options.profile must be { path, text }`, { function: fn, argument: 'options.profile' });
  }
  checkProfilePath(profile.path, fn, limits);
  profileText(profile.text, fn, limits);
  return { path: profile.path, text: profile.text };
}

/** A profile path: non-empty, and text the database stores as is. */
export function checkProfilePath(path, fn, limits) {
  checkStoragePath(path, fn);
  checkText(path, fn, 'path', limits.nul);
}

// What the commands of the memcore CLI share: its two error kinds and the stores it opens.
import { join } from 'node:path';
import { FileSystemProfileStorage } from '../adapters/fs-storage.js';

export class UsageError extends Error {}
/** An expected failure: printed as `memcore: CODE: message`, exit 1. */
export class CliError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** The embedded default database of `memcore mcp` (and the server's): created on first use. */
export const DEFAULT_DB = join('.memcore', 'memcore.db');

/**
 * Where profiles live: files under --base, or the database --db (or MEMCORE_DATABASE_URL) names.
 * `readonly`: the database must exist and is opened read-only, without migrations (`show`).
 * Resolves to `{ storage, where(path), close() }`.
 */
export async function openStorage(values, { readonly = false } = {}) {
  if (values.user === undefined) throw new UsageError('--user ID is required');
  const url = values.db ?? process.env.MEMCORE_DATABASE_URL;
  if (url === undefined || url === '') {
    return { storage: new FileSystemProfileStorage({ baseDir: values.base }), where: (path) => join(values.base, path), close() {} };
  }
  if (values.db !== undefined && values.base !== '.') throw new UsageError('--db and --base name two different stores; give one');
  return openDatabase(url, { readonly });
}

/** The database `url` names (SQLite file or postgres:// URL): `{ storage, where(path), close() }`. */
export async function openDatabase(url, { readonly = false } = {}) {
  let store;
  let label;
  try {
    if (/^postgres(ql)?:\/\//.test(url)) {
      label = url.replace(/\/\/[^@/]*@/, '//***@'); // never print a password
      store = await (await import('memcore/adapters/postgres')).openPostgres(url, { readonly });
    } else if (url.startsWith('sqlite:') || /\.(db|sqlite3?)$/.test(url)) {
      const file = url.replace(/^sqlite:(\/\/)?/, '');
      label = file;
      store = await (await import('memcore/adapters/sqlite')).openSqlite(file, { readonly });
    } else {
      throw new UsageError(`--db ${url}: not a SQLite file (sqlite:PATH, *.db) or a postgres:// URL`);
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    // The adapters' open errors already say "cannot open … <path>: <cause>".
    const message = String(error.message).split(url).join(label ?? '…').replace(/^open(Sqlite|Postgres): /, '');
    throw new CliError(error.code ?? 'E_DB', /^cannot open /.test(message) ? message : `cannot open the database ${label ?? '(unrecognised URL)'}: ${message}`);
  }
  return { storage: store, where: (path) => `${label}#${path}`, close: () => store.close() };
}

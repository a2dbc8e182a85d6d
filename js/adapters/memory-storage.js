// In-memory profile storage (behaviour §5) with versions: for tests, previews and single-process hosts.
// No runtime-specific imports, so it works in Node, browsers, workers and edge runtimes.
import { MemcoreError } from '../errors.js';
import { checkTenantId, tenantViews } from '../tenants.js';
import { checkStoragePath, checkWriteOptions, writeCondition } from './storage-arguments.js';

/**
 * Profile storage kept in a `Map`. Each path has a version: a counter that increases on every
 * write to that path, as a string (`"1"`, `"2"`, …). It never restarts, even after `remove`, so a
 * version seen before a delete can never match a later file.
 *
 * `write` honours `ifVersion`: absent or `null` → unconditional; a string that is not the current
 * version (or any string when the file is missing) → `MemcoreError('E_VERSION_CONFLICT')` with
 * `details: { path, expected, actual }` (`actual` is `null` for a missing file). `ifAbsent: true`
 * creates only: when a file exists at `path` → `E_VERSION_CONFLICT` with
 * `details: { path, expected: null, actual: <its version> }`. Everything runs in one JS thread, so
 * check and store are atomic: of concurrent writes with the same condition exactly one wins.
 *
 * Test helpers: `snapshot()` (path → text), `writes` (every successful write, in order, as
 * `{ path, options }`), `removes` (every removed path).
 */
export class InMemoryProfileStorage {
  #files = new Map();
  #counters = new Map();
  #tenant = null;
  #views = tenantViews((tenantId) => {
    const view = new InMemoryProfileStorage();
    view.#tenant = tenantId;
    return view;
  });

  /** @param {{ files?: Record<string, string> }} [options] initial files, path → text */
  constructor(options = {}) {
    /** Every successful write, in order: `{ path, options }`. */
    this.writes = [];
    /** Every `remove` call, in order (also for missing files). */
    this.removes = [];
    /** Every `ensureRoot` call, in order. */
    this.roots = [];
    const files = options?.files ?? {};
    for (const [path, text] of Object.entries(files)) {
      checkStoragePath(path, 'InMemoryProfileStorage');
      if (typeof text !== 'string') {
        throw new MemcoreError('E_ARGUMENT', `InMemoryProfileStorage: files[${JSON.stringify(path)}] must be a string`, {
          function: 'InMemoryProfileStorage',
          argument: 'files',
        });
      }
      this.#put(path, text);
    }
  }

  /** The stored text and version, or `null` when there is no file at `path`. */
  async read(path) {
    checkStoragePath(path, 'read');
    const file = this.#files.get(path);
    return file ? { text: file.text, version: file.version } : null;
  }

  /**
   * Store `text` at `path`, conditionally on `options.ifVersion` (that version) or
   * `options.ifAbsent: true` (no file yet); resolves to the new version.
   */
  async write(path, text, options = {}) {
    checkStoragePath(path, 'write');
    if (typeof text !== 'string') {
      throw new MemcoreError('E_ARGUMENT', 'write: text must be a string', { function: 'write', argument: 'text' });
    }
    checkWriteOptions(options, 'write');
    const { ifAbsent, ifVersion } = writeCondition(options);
    const actual = this.#files.get(path)?.version ?? null;
    if (ifAbsent && actual !== null) throw versionConflict(path, null, actual);
    if (ifVersion !== null && actual !== ifVersion) throw versionConflict(path, ifVersion, actual);
    const version = this.#put(path, text);
    this.writes.push({ path, options: { ...options } });
    return { version };
  }

  /** Delete the file at `path`; a missing file is not an error. */
  async remove(path) {
    checkStoragePath(path, 'remove');
    this.#files.delete(path);
    this.removes.push(path);
  }

  /** Folders are implicit here; records the call so tests can assert provisioning. */
  async ensureRoot(rootFolder) {
    checkStoragePath(rootFolder, 'ensureRoot');
    this.roots.push(rootFolder);
  }

  /** The tenant this storage holds (null: the default tenant). */
  get tenantId() {
    return this.#tenant;
  }

  /**
   * The storage of tenant `tenantId`: a separate InMemoryProfileStorage, the same one for the same
   * id (docs/reference/storage.md, "Tenants").
   */
  forTenant(tenantId) {
    checkTenantId(tenantId, 'InMemoryProfileStorage.forTenant');
    if (this.#tenant !== null) {
      if (tenantId === this.#tenant) return this;
      throw new MemcoreError('E_ARGUMENT', `InMemoryProfileStorage.forTenant: this storage is tenant ${JSON.stringify(this.#tenant)}'s; it cannot see another`, { function: 'InMemoryProfileStorage.forTenant', argument: 'tenantId' });
    }
    return this.#views(tenantId);
  }

  /** Every stored file, path → text (a plain object, sorted by path). */
  snapshot() {
    const out = {};
    for (const path of [...this.#files.keys()].sort()) out[path] = this.#files.get(path).text;
    return out;
  }

  #put(path, text) {
    const next = (this.#counters.get(path) ?? 0) + 1;
    this.#counters.set(path, next);
    const version = String(next);
    this.#files.set(path, { text, version });
    return version;
  }
}

/**
 * The distinct error a host raises when a write condition fails (behaviour §1.7, §5): `ifVersion` does
 * not match (`expected` = that version), or `ifAbsent: true` found a file (`expected` = `null`).
 */
export function versionConflict(path, expected, actual) {
  if (expected === null) {
    return new MemcoreError(
      'E_VERSION_CONFLICT',
      `write to ${path} with ifAbsent expected no file, but the file already exists (version ${actual}); re-read the file and retry`,
      { path, expected, actual },
    );
  }
  return new MemcoreError(
    'E_VERSION_CONFLICT',
    `write to ${path} expected version ${expected} but the stored version is ${actual ?? 'missing (no file)'}; re-read the file and retry`,
    { path, expected, actual },
  );
}

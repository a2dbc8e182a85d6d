// File-system profile storage for Node (behaviour §1.1, §5): `<baseDir>/<rootFolder>/<userId>/memory.md`,
// atomic writes (temp file + fsync + rename), version = SHA-256 of the content, compare-and-swap
// across processes through a lock file next to the target.
import { createHash, randomUUID } from 'node:crypto';
import { link, lstat, mkdir, open, readdir, readFile, realpath, rename, rmdir, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep, win32 } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MemcoreError } from '../errors.js';
import { checkTenantId, tenantViews } from '../tenants.js';
import { versionConflict } from './memory-storage.js';
import { checkStoragePath, checkWriteOptions, writeCondition } from './storage-arguments.js';

const DEFAULT_LOCK_TIMEOUT_MS = 5000;
const DEFAULT_STALE_LOCK_MS = 30000;
const FIRST_BACKOFF_MS = 2;
const MAX_BACKOFF_MS = 50;

// Names this adapter creates next to a target `<name>`: `.<name>.lock` (the lock),
// `.<name>.lock.break` (one stale-lock breaker at a time), `.<name>.lock.<pid>.<uuid>.stale` (a
// broken lock on its way out) and `.<name>.<pid>.<uuid>.tmp` (a write in progress). A storage path
// with a segment of that shape is refused, so none of them can ever be read or written as a profile.
const RESERVED_SEGMENT = /^\..*\.(?:lock|break|stale|tmp)$/;

// In-process queue per target file, shared by every instance in this process, in front of the lock
// file: a process never spins on a lock it holds itself.
const renameLocks = new Map();

/**
 * Profile storage on the local file system (Node only).
 *
 * - Paths are the core's relative paths (`user-memory/u1/memory.md`) under `baseDir`. A path is
 *   refused with `MemcoreError('E_ARGUMENT')` (`details: { function, argument: 'path', path, reason }`)
 *   when it is absolute, contains a `..`/`.`/empty segment, a backslash or a NUL, or when an existing
 *   directory on the way (or the file itself) is a symlink whose real path is outside `baseDir`.
 *   `E_ARGUMENT` rather than `E_INVALID_USER_ID`: the core has already validated the user id, so a
 *   path that escapes is a host or configuration bug (root folder, symlinks), not a bad id.
 * - The version is the SHA-256 (hex) of the stored bytes, so it survives restarts and also changes
 *   when someone edits the file by hand.
 * - Segments shaped like the adapter's own helper files (a leading `.` and a trailing `.lock`,
 *   `.break`, `.stale` or `.tmp`, e.g. `.memory.md.lock`) are refused the same way, so lock and temp
 *   files are never read, written or removed as profiles.
 * - `write` creates the directories, writes a temp file next to the target
 *   (`.memory.md.<pid>.<uuid>.tmp`, mode 0600) and fsyncs it, then takes the target's lock, checks
 *   the condition and renames the temp file over the target: readers see the old or the new file,
 *   never a partial one. `read` takes no lock and only opens the target name, so temp and lock
 *   files a crash left behind are ignored.
 * - Conditions: `ifVersion` (a string) writes only if the SHA-256 of the current bytes equals it (a
 *   missing file never matches); `ifAbsent: true` writes only if no file exists. A failed condition
 *   is `E_VERSION_CONFLICT`, `details: { path, expected, actual }` (`expected: null` for `ifAbsent`).
 * - Concurrency: every mutation of a target — conditional or unconditional `write`, `remove` — runs
 *   under a lock file next to it (`.memory.md.lock`, created with O_CREAT|O_EXCL, holding the pid,
 *   host name and time, removed when done). It is held only for the condition check and the rename
 *   (or unlink), never while the temp file is written. So a conditional write is a real
 *   compare-and-swap **across processes**: of several writers with the same `ifVersion`, or several
 *   creators with `ifAbsent: true`, exactly one wins and the others get `E_VERSION_CONFLICT`.
 *   Within one process, mutations of a file queue in memory before they take the lock.
 * - A lock held by someone else is retried with a short backoff (2 ms doubling to 50 ms) for at most
 *   `lockTimeoutMs` (default 5000), then the call fails with `E_HOST`, `details.transient: true` and
 *   `details.lockPath`; the temp file is removed and the target is untouched. A lock whose mtime is
 *   older than `staleLockMs` (default 30000) is taken as left by a crashed process and broken: one
 *   breaker at a time (`.memory.md.lock.break`, also O_EXCL) re-checks it, renames it to a unique
 *   name, checks it moved the file it judged stale, unlinks it, and the write retries.
 * - Not guaranteed: file systems without atomic O_EXCL create and atomic rename (some network file
 *   systems, e.g. NFSv2 or some SMB/FUSE mounts); hosts sharing a directory whose clocks differ by
 *   more than `staleLockMs`; a lock holder stalled for longer than `staleLockMs` (it is taken as
 *   crashed); writers that bypass the lock, such as a hand edit — a hand edit changes the hash, so a
 *   later conditional write still conflicts, but an edit that lands between the check and the
 *   rename is overwritten. Where those matter, use a store with a native conditional write (a
 *   database version column, S3/GCS `If-Match`).
 *
 * @example
 * const storage = new FileSystemProfileStorage({ baseDir: './.memcore' });
 * await storage.write('user-memory/u1/memory.md', '## Identity\n', { ifVersion: null });
 */
/** The folder under baseDir that holds the tenants' folders (docs/reference/storage.md, "Tenants"). */
const TENANTS_FOLDER = '.tenants';

/**
 * A tenant's folder name: the id itself when it is lowercase `[a-z0-9_-]` (at most 64), else `~`
 * and the hex of its UTF-8 bytes — so two ids never share a folder, also where names are
 * compared without case (macOS, Windows), and no id can name `.` or `..`.
 */
export function tenantFolder(tenantId) {
  if (/^[a-z0-9_-]{1,64}$/.test(tenantId)) return tenantId;
  return `~${[...new TextEncoder().encode(tenantId)].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export class FileSystemProfileStorage {
  #baseDir;
  #beforeRename;
  #lockTimeoutMs;
  #staleLockMs;
  #tenant = null;
  #views = tenantViews((tenantId) => {
    const view = new FileSystemProfileStorage({
      baseDir: join(this.#baseDir, TENANTS_FOLDER, tenantFolder(tenantId)),
      beforeRename: this.#beforeRename,
      lockTimeoutMs: this.#lockTimeoutMs,
      staleLockMs: this.#staleLockMs,
    });
    view.#tenant = tenantId;
    return view;
  });

  /**
   * @param {{ baseDir: string, lockTimeoutMs?: number, staleLockMs?: number, beforeRename?: (info: { path: string, tempPath: string, targetPath: string }) => unknown }} options
   *   `lockTimeoutMs` (default 5000): how long a mutation waits for a lock file held by someone
   *   else. `staleLockMs` (default 30000): a lock file older than this is broken as left by a
   *   crashed process; keep it far above the time a check and a rename take. Both positive integers.
   *   `beforeRename` is **for tests only**: awaited after the temp file is written and fsynced and
   *   before the lock, the condition check and the rename. If it throws, the write stops there as a
   *   crash would: the temp file stays, the target is untouched, and the error propagates.
   */
  constructor(options) {
    if (options === null || typeof options !== 'object') {
      throw configError('options', 'FileSystemProfileStorage needs options like { baseDir: "./.memcore" }');
    }
    const { baseDir, beforeRename, lockTimeoutMs = DEFAULT_LOCK_TIMEOUT_MS, staleLockMs = DEFAULT_STALE_LOCK_MS } = options;
    if (typeof baseDir !== 'string' || baseDir.length === 0) {
      throw configError('baseDir', 'FileSystemProfileStorage: baseDir must be a non-empty directory path, e.g. { baseDir: "./.memcore" }');
    }
    if (beforeRename !== undefined && typeof beforeRename !== 'function') {
      throw configError('beforeRename', 'FileSystemProfileStorage: beforeRename must be a function (test hook) or absent');
    }
    for (const [name, value] of [['lockTimeoutMs', lockTimeoutMs], ['staleLockMs', staleLockMs]]) {
      if (!Number.isSafeInteger(value) || value <= 0) {
        throw configError(name, `FileSystemProfileStorage: ${name} must be a positive integer number of milliseconds`);
      }
    }
    this.#baseDir = resolve(baseDir);
    this.#beforeRename = beforeRename;
    this.#lockTimeoutMs = lockTimeoutMs;
    this.#staleLockMs = staleLockMs;
  }

  /** The absolute base directory every path is resolved against. */
  get baseDir() {
    return this.#baseDir;
  }

  /** The tenant this storage holds (null: the default tenant). */
  get tenantId() {
    return this.#tenant;
  }

  /**
   * The storage of tenant `tenantId`: the same storage under `<baseDir>/.tenants/<folder>`
   * (`tenantFolder`), the same object for the same id. The default tenant's paths may not start
   * with `.tenants/`.
   */
  forTenant(tenantId) {
    checkTenantId(tenantId, 'FileSystemProfileStorage.forTenant');
    if (this.#tenant !== null) {
      if (tenantId === this.#tenant) return this;
      throw new MemcoreError('E_ARGUMENT', `FileSystemProfileStorage.forTenant: this storage is tenant ${JSON.stringify(this.#tenant)}'s; it cannot see another`, { function: 'FileSystemProfileStorage.forTenant', argument: 'tenantId' });
    }
    return this.#views(tenantId);
  }

  /** `{ text, version }` of the file at `path`, or `null` when it does not exist. */
  async read(path) {
    const target = this.#resolve(path, 'read');
    await this.#checkContainment(path, dirname(target), 'read');
    let stat;
    try {
      stat = await lstat(target);
    } catch (error) {
      if (error.code === 'ENOENT') return null;
      throw hostError('read', path, error);
    }
    if (stat.isSymbolicLink()) await this.#checkRealPath(path, target, 'read');
    let bytes;
    try {
      bytes = await readFile(target);
    } catch (error) {
      if (error.code === 'ENOENT') return null;
      throw hostError('read', path, error);
    }
    return { text: bytes.toString('utf8'), version: sha256(bytes) };
  }

  /**
   * Write `text` atomically under the target's lock file. With `options.ifVersion` (a string) the
   * write happens only if the file still has that version (a missing file never matches); with
   * `options.ifAbsent: true` only if no file exists; else `E_VERSION_CONFLICT`. A lock that stays
   * held for `lockTimeoutMs` is `E_HOST` with `details.transient: true`.
   * `contentType`, `skipIngestion`, `hideInChat` have no meaning on a plain file system and are ignored.
   */
  async write(path, text, options = {}) {
    const target = this.#resolve(path, 'write');
    if (typeof text !== 'string') {
      throw new MemcoreError('E_ARGUMENT', 'write: text must be a string', { function: 'write', argument: 'text' });
    }
    checkWriteOptions(options, 'write');
    const { ifAbsent, ifVersion } = writeCondition(options);
    const dir = dirname(target);
    await this.#checkContainment(path, dir, 'write');
    try {
      await mkdir(dir, { recursive: true });
    } catch (error) {
      throw hostError('write', path, error);
    }
    // mkdir may have raced with someone placing a symlink; check the real directory again.
    await this.#checkContainment(path, dir, 'write');

    const bytes = Buffer.from(text, 'utf8');
    const tempPath = join(dir, `.${basename(target)}.${process.pid}.${randomUUID()}.tmp`);
    try {
      const handle = await open(tempPath, 'wx', 0o600);
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
    } catch (error) {
      await unlink(tempPath).catch(() => {});
      throw hostError('write', path, error);
    }

    // Test hook: a throw here is a simulated crash, so the temp file is deliberately left behind.
    if (this.#beforeRename) await this.#beforeRename({ path, tempPath, targetPath: target });

    try {
      await this.#mutate(target, path, 'write', async () => {
        if (ifAbsent || ifVersion !== null) {
          const actual = await currentVersion(target);
          if (ifAbsent && actual !== null) throw versionConflict(path, null, actual);
          if (ifVersion !== null && actual !== ifVersion) throw versionConflict(path, ifVersion, actual);
        }
        await rename(tempPath, target);
      });
    } catch (error) {
      await unlink(tempPath).catch(() => {});
      if (error instanceof MemcoreError) throw error;
      throw hostError('write', path, error);
    }
    await syncDirectory(dir);
    return { version: sha256(bytes) };
  }

  /** Delete the file at `path` under its lock file; a missing file (or folder) is not an error. */
  async remove(path) {
    const target = this.#resolve(path, 'remove');
    await this.#checkContainment(path, dirname(target), 'remove');
    try {
      await this.#mutate(target, path, 'remove', async () => {
        try {
          await unlink(target);
        } catch (error) {
          if (error.code !== 'ENOENT') throw error;
        }
      });
    } catch (error) {
      if (error instanceof MemcoreError) throw error;
      if (error.code === 'ENOENT') return; // the folder does not exist, so neither does the file
      throw hostError('remove', path, error);
    }
  }

  /**
   * Remove a user's folder (`<root>/<userId>`, Art. 17 erasure) once its profile is gone: the
   * adapter's own leftovers (lock and temp files a crash left) are removed with it. A folder that
   * holds anything else is the host's and stays (`false`); a missing folder is `false` too.
   */
  async removeFolder(folder) {
    const target = this.#resolve(folder, 'removeFolder');
    await this.#checkContainment(folder, target, 'removeFolder');
    let names;
    try {
      names = await readdir(target);
    } catch (error) {
      if (error.code === 'ENOENT') return false;
      throw hostError('removeFolder', folder, error);
    }
    if (!names.every((name) => RESERVED_SEGMENT.test(name))) return false;
    try {
      for (const name of names) await unlink(join(target, name)).catch((error) => { if (error.code !== 'ENOENT') throw error; });
      await rmdir(target);
    } catch (error) {
      if (error.code === 'ENOENT') return false;
      if (error.code === 'ENOTEMPTY' || error.code === 'EEXIST') return false; // a write came in meanwhile
      throw hostError('removeFolder', folder, error);
    }
    return true;
  }

  /** Create `<baseDir>/<rootFolder>` (and `baseDir`) if missing. */
  async ensureRoot(rootFolder) {
    const target = this.#resolve(rootFolder, 'ensureRoot');
    await this.#checkContainment(rootFolder, target, 'ensureRoot');
    try {
      await mkdir(target, { recursive: true });
    } catch (error) {
      throw hostError('ensureRoot', rootFolder, error);
    }
    await this.#checkContainment(rootFolder, target, 'ensureRoot');
  }

  /** Lexical checks: a relative path of plain segments, resolved under baseDir. */
  #resolve(path, fn) {
    checkStoragePath(path, fn);
    if (isAbsolute(path) || win32.isAbsolute(path)) throw outside(fn, path, 'absolute paths are not allowed');
    if (path.includes('\\') || path.includes('\0')) throw outside(fn, path, 'backslashes and NUL are not allowed');
    const segments = path.split('/');
    if (segments.some((s) => s === '' || s === '.' || s === '..')) {
      throw outside(fn, path, 'empty, "." and ".." segments are not allowed');
    }
    if (segments[0] === TENANTS_FOLDER) throw outside(fn, path, `"${TENANTS_FOLDER}" holds the tenants' folders (forTenant)`);
    if (segments.some((s) => RESERVED_SEGMENT.test(s))) {
      throw outside(fn, path, 'names like ".memory.md.lock" or ".memory.md.<pid>.<uuid>.tmp" are reserved for lock and temp files');
    }
    const target = resolve(this.#baseDir, ...segments);
    if (!isInside(this.#baseDir, target)) throw outside(fn, path, 'it resolves outside baseDir');
    return target;
  }

  /**
   * Run `task` (condition check + rename, or unlink) holding the target's in-process queue slot and
   * then its lock file. Errors other than `MemcoreError` come back raw for the caller to wrap.
   */
  async #mutate(target, path, fn, task) {
    return withLock(target, async () => {
      const lockPath = join(dirname(target), `.${basename(target)}.lock`);
      const release = await this.#acquire(lockPath, path, fn);
      try {
        return await task();
      } finally {
        await release();
      }
    });
  }

  /**
   * Create the lock file (O_EXCL), waiting with backoff and breaking stale locks; resolves to
   * `release`. The deadline is checked only after a failed attempt, so the last wait always ends
   * in one more attempt, and the loop is bounded even if stale locks keep reappearing.
   */
  async #acquire(lockPath, path, fn) {
    const deadline = performance.now() + this.#lockTimeoutMs;
    let backoff = FIRST_BACKOFF_MS;
    for (;;) {
      let handle = null;
      try {
        handle = await open(lockPath, 'wx', 0o600);
      } catch (error) {
        if (error.code !== 'EEXIST') throw error;
      }
      if (handle) return ownLock(handle, lockPath);
      if (performance.now() >= deadline) throw lockTimeout(fn, path, lockPath, this.#lockTimeoutMs, this.#staleLockMs);
      if (await this.#breakIfStale(lockPath, path, fn)) continue;
      await sleep(Math.max(1, Math.min(backoff, deadline - performance.now())));
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }

  /**
   * The lock at `lockPath` exists (or just did). `true` when it is gone or was broken as stale (retry
   * at once), `false` when it is live or another breaker is at work (wait).
   */
  async #breakIfStale(lockPath, path, fn) {
    const seen = await statOrNull(lockPath);
    if (seen === null) return true;
    if (!seen.isFile()) {
      throw new MemcoreError('E_HOST', `${fn} ${path}: ${lockPath} should be a lock file but is not a regular file; remove it`, {
        path,
        errno: null,
        transient: false,
        lockPath,
      });
    }
    if (!this.#isStale(seen)) return false;
    // One breaker at a time: otherwise a second breaker that also saw the stale lock could rename
    // away the fresh lock the first breaker's process has created since.
    const breakPath = `${lockPath}.break`;
    let handle;
    try {
      handle = await open(breakPath, 'wx', 0o600);
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      // Someone else is breaking it; a break lock this old belongs to a breaker that crashed.
      const breaker = await statOrNull(breakPath);
      if (breaker !== null && breaker.isFile() && this.#isStale(breaker)) await moveAsideAndUnlink(breakPath, breaker);
      return false;
    }
    try {
      await handle.close();
      const current = await statOrNull(lockPath);
      if (current === null) return true;
      if (!current.isFile() || !this.#isStale(current)) return false;
      await moveAsideAndUnlink(lockPath, current);
      return true;
    } finally {
      await unlink(breakPath).catch(() => {});
    }
  }

  #isStale(stat) {
    return Date.now() - Number(stat.mtimeMs) > this.#staleLockMs;
  }

  /** Symlink checks: the deepest existing ancestor of `dir` must really be inside baseDir. */
  async #checkContainment(path, dir, fn) {
    let existing = dir;
    for (;;) {
      try {
        await lstat(existing);
        break;
      } catch (error) {
        if (error.code !== 'ENOENT') throw hostError(fn, path, error);
        if (existing === this.#baseDir || dirname(existing) === existing) return; // base not created yet
        existing = dirname(existing);
      }
    }
    await this.#checkRealPath(path, existing, fn);
  }

  async #checkRealPath(path, absolute, fn) {
    let real;
    let realBase;
    try {
      [real, realBase] = await Promise.all([realpath(absolute), realpath(this.#baseDir)]);
    } catch (error) {
      if (error.code === 'ENOENT') throw outside(fn, path, 'a symlink on the way points to a missing location');
      throw hostError(fn, path, error);
    }
    if (!isInside(realBase, real)) throw outside(fn, path, 'a symlink on the way points outside baseDir');
  }
}

function isInside(base, target) {
  if (target === base) return true;
  const rel = relative(base, target);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

async function currentVersion(target) {
  try {
    return sha256(await readFile(target));
  } catch (error) {
    if (error.code === 'ENOENT') return null;
    throw error;
  }
}

/** Write the owner record into a freshly created lock file; resolves to its `release`. */
async function ownLock(handle, lockPath) {
  let owned;
  try {
    await handle.writeFile(`${JSON.stringify({ pid: process.pid, hostname: hostname(), acquiredAt: new Date().toISOString() })}\n`);
    owned = await handle.stat({ bigint: true });
    await handle.close();
  } catch (error) {
    await handle.close().catch(() => {});
    await unlink(lockPath).catch(() => {});
    throw error;
  }
  // Best effort, never throws: unlink only the lock this call created (not one that replaced it
  // after ours was broken as stale). A lock left behind is broken after staleLockMs.
  return async () => {
    try {
      if (sameFile(await lstat(lockPath, { bigint: true }), owned)) await unlink(lockPath);
    } catch {
      // already gone, or left for the stale rule
    }
  };
}

/**
 * Rename `file` to a unique name (of several breakers only one wins the rename), then unlink it.
 * Should the renamed file not be `expected` — a fresh lock took its place — put it back with a
 * hard link, which fails rather than overwrite a lock created in the meantime.
 */
async function moveAsideAndUnlink(file, expected) {
  const aside = `${file}.${process.pid}.${randomUUID()}.stale`;
  try {
    await rename(file, aside);
  } catch (error) {
    if (error.code === 'ENOENT') return;
    throw error;
  }
  try {
    const moved = await lstat(aside, { bigint: true });
    if (!sameFile(moved, expected)) await link(aside, file).catch(() => {});
  } finally {
    await unlink(aside).catch(() => {});
  }
}

async function statOrNull(file) {
  try {
    return await lstat(file, { bigint: true });
  } catch (error) {
    if (error.code === 'ENOENT') return null;
    throw error;
  }
}

function sameFile(a, b) {
  return a.dev === b.dev && a.ino === b.ino;
}

async function withLock(key, task) {
  const previous = renameLocks.get(key) ?? Promise.resolve();
  const run = previous.then(task, task);
  const tail = run.catch(() => {});
  renameLocks.set(key, tail);
  try {
    return await run;
  } finally {
    if (renameLocks.get(key) === tail) renameLocks.delete(key);
  }
}

// Makes the rename itself durable; not supported everywhere (e.g. Windows), hence best effort.
async function syncDirectory(dir) {
  let handle;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // best effort
  } finally {
    await handle?.close().catch(() => {});
  }
}

function sha256(bytes) {
  return createHash('sha256').update(bytes).digest('hex');
}

function outside(fn, path, reason) {
  return new MemcoreError(
    'E_ARGUMENT',
    `${fn}: refusing path ${JSON.stringify(path)}: ${reason}; pass a relative path like "user-memory/<userId>/memory.md" that stays inside baseDir`,
    { function: fn, argument: 'path', path, reason },
  );
}

function configError(path, message) {
  return new MemcoreError('E_CONFIG', message, { path });
}

function lockTimeout(fn, path, lockPath, timeoutMs, staleMs) {
  return new MemcoreError(
    'E_HOST',
    `${fn} ${path}: the lock file ${lockPath} stayed held by another writer for ${timeoutMs} ms (lockTimeoutMs); retry later — a lock older than ${staleMs} ms (staleLockMs) is taken as left by a crashed process and removed`,
    { path, errno: null, transient: true, lockPath },
  );
}

function hostError(fn, path, error) {
  return new MemcoreError('E_HOST', `${fn} ${path} failed on the file system: ${error.code ?? error.message}`, {
    path,
    errno: error.code ?? null,
    transient: false,
  });
}

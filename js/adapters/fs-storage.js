// File-system profile storage for Node (SPEC §1.1, §5): `<baseDir>/<rootFolder>/<userId>/memory.md`,
// atomic writes (temp file + fsync + rename), version = SHA-256 of the content.
import { createHash, randomUUID } from 'node:crypto';
import { lstat, mkdir, open, readFile, realpath, rename, unlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep, win32 } from 'node:path';
import { MemcoreError } from '../errors.js';
import { versionConflict } from './memory-storage.js';
import { checkStoragePath, checkWriteOptions } from './storage-arguments.js';

// In-process serialisation of check-then-rename per target file, shared by every instance in this
// process, so concurrent conditional writes here cannot both pass the version check.
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
 * - `write` creates the directories, writes a temp file next to the target
 *   (`.memory.md.<pid>.<uuid>.tmp`, mode 0600), fsyncs it, checks `ifVersion` against the hash of
 *   the current file, then renames the temp file over the target: readers see the old or the new
 *   file, never a partial one. `read` only opens the target name, so temp files a crash left
 *   behind are ignored.
 * - Concurrency: inside one process, check-and-rename is serialised per file, so of several
 *   conditional writes with the same `ifVersion` exactly one wins. **Across processes** (or hosts
 *   sharing a network file system) two writers can still both pass the check before either renames,
 *   and the last rename wins. A host that needs strict compare-and-swap across processes should use
 *   a store with a real conditional write: a database row with a version column
 *   (`UPDATE … WHERE version = ?`), object storage preconditions (S3/GCS `If-Match`), or one writer
 *   process per user.
 *
 * @example
 * const storage = new FileSystemProfileStorage({ baseDir: './.memcore' });
 * await storage.write('user-memory/u1/memory.md', '## Identity\n', { ifVersion: null });
 */
export class FileSystemProfileStorage {
  #baseDir;
  #beforeRename;

  /**
   * @param {{ baseDir: string, beforeRename?: (info: { path: string, tempPath: string, targetPath: string }) => unknown }} options
   *   `beforeRename` is **for tests only**: awaited after the temp file is written and fsynced and
   *   before the version check and rename. If it throws, the write stops there as a crash would:
   *   the temp file stays, the target is untouched, and the error propagates.
   */
  constructor(options) {
    if (options === null || typeof options !== 'object') {
      throw configError('options', 'FileSystemProfileStorage needs options like { baseDir: "./.memcore" }');
    }
    const { baseDir, beforeRename } = options;
    if (typeof baseDir !== 'string' || baseDir.length === 0) {
      throw configError('baseDir', 'FileSystemProfileStorage: baseDir must be a non-empty directory path, e.g. { baseDir: "./.memcore" }');
    }
    if (beforeRename !== undefined && typeof beforeRename !== 'function') {
      throw configError('beforeRename', 'FileSystemProfileStorage: beforeRename must be a function (test hook) or absent');
    }
    this.#baseDir = resolve(baseDir);
    this.#beforeRename = beforeRename;
  }

  /** The absolute base directory every path is resolved against. */
  get baseDir() {
    return this.#baseDir;
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
   * Write `text` atomically; with `options.ifVersion` (a string) the write happens only if the file
   * still has that version (a missing file never matches), else `E_VERSION_CONFLICT`.
   * `contentType`, `skipIngestion`, `hideInChat` have no meaning on a plain file system and are ignored.
   */
  async write(path, text, options = {}) {
    const target = this.#resolve(path, 'write');
    if (typeof text !== 'string') {
      throw new MemcoreError('E_ARGUMENT', 'write: text must be a string', { function: 'write', argument: 'text' });
    }
    checkWriteOptions(options, 'write');
    const ifVersion = options?.ifVersion ?? null;
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
    const tempPath = join(dir, `.memory.md.${process.pid}.${randomUUID()}.tmp`);
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

    await withLock(target, async () => {
      try {
        if (ifVersion !== null) {
          const actual = await currentVersion(target);
          if (actual !== ifVersion) throw versionConflict(path, ifVersion, actual);
        }
        await rename(tempPath, target);
      } catch (error) {
        await unlink(tempPath).catch(() => {});
        if (error instanceof MemcoreError) throw error;
        throw hostError('write', path, error);
      }
    });
    await syncDirectory(dir);
    return { version: sha256(bytes) };
  }

  /** Delete the file at `path`; a missing file (or folder) is not an error. */
  async remove(path) {
    const target = this.#resolve(path, 'remove');
    await this.#checkContainment(path, dirname(target), 'remove');
    await withLock(target, async () => {
      try {
        await unlink(target);
      } catch (error) {
        if (error.code !== 'ENOENT') throw hostError('remove', path, error);
      }
    });
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
    const target = resolve(this.#baseDir, ...segments);
    if (!isInside(this.#baseDir, target)) throw outside(fn, path, 'it resolves outside baseDir');
    return target;
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

function hostError(fn, path, error) {
  return new MemcoreError('E_HOST', `${fn} ${path} failed on the file system: ${error.code ?? error.message}`, {
    path,
    errno: error.code ?? null,
    transient: false,
  });
}

// Typings for `memcore/adapters/fs` (Node only: the package exports it under the `node` condition).
import type { ProfileStorage, ProfileWriteOptions, ProfileWriteResult, StoredProfile } from './profile-storage.js';

export type { ProfileStorage, ProfileWriteOptions, ProfileWriteResult, StoredProfile, VersionConflictDetails } from './profile-storage.js';

/** What the test-only `beforeRename` hook receives. */
export interface BeforeRenameInfo {
  /** The storage path passed to `write`. */
  path: string;
  /** The fully written and fsynced temp file. */
  tempPath: string;
  /** The absolute file the temp file is about to replace. */
  targetPath: string;
}

/** Constructor options of `FileSystemProfileStorage`. */
export interface FileSystemProfileStorageOptions {
  /** Directory under which `<rootFolder>/<userId>/memory.md` lives; resolved against the cwd. */
  baseDir: string;
  /**
   * How long a write or remove waits for a lock file held by someone else before it fails with
   * transient `E_HOST` (positive integer, milliseconds; default 5000).
   */
  lockTimeoutMs?: number;
  /**
   * A lock file whose mtime is older than this is taken as left by a crashed process and broken
   * (positive integer, milliseconds; default 30000). Keep it far above the time a check and a
   * rename take, and above the clock difference of hosts sharing the directory.
   */
  staleLockMs?: number;
  /**
   * **Tests only.** Awaited after the temp file is written and fsynced, before the lock, the
   * condition check and the rename. Throwing simulates a crash: the temp file stays, the target is
   * untouched.
   */
  beforeRename?: (info: BeforeRenameInfo) => void | Promise<void>;
}

/** `details` of the `E_HOST` errors of `FileSystemProfileStorage`. */
export interface FileSystemHostErrorDetails {
  /** The storage path of the call. */
  path: string;
  /** The Node error code (`EACCES`, …), `null` for lock timeouts and a lock path that is not a file. */
  errno: string | null;
  /** `true` only for a lock that stayed held for `lockTimeoutMs`: retry later. */
  transient: boolean;
  /** The lock file, for lock timeouts and a lock path that is not a file. */
  lockPath?: string;
}

/**
 * Profile storage on the local file system (Node only). Files live at
 * `<baseDir>/<rootFolder>/<userId>/memory.md`; writes are atomic (temp file, fsync, rename); the
 * version is the SHA-256 (hex) of the content. Paths that are absolute, contain `..`, reach
 * outside `baseDir` through a symlink, or have a segment named like the adapter's lock and temp
 * files (`.memory.md.lock`, `….tmp`, `….stale`, `….break`) are refused with `MemcoreError` `E_ARGUMENT`.
 *
 * Every write and remove of a file holds a lock file next to it (`.memory.md.lock`, O_CREAT|O_EXCL)
 * for the condition check and the rename only, so `ifVersion` and `ifAbsent` are a real
 * compare-and-swap across processes: exactly one of several racing writers wins, the others get
 * `E_VERSION_CONFLICT`. A lock held elsewhere for `lockTimeoutMs` → `E_HOST` with
 * `details.transient: true`; a lock older than `staleLockMs` is broken as left by a crashed process.
 * Not guaranteed on file systems without atomic O_EXCL create and rename (some network file
 * systems), across hosts whose clocks differ by more than `staleLockMs`, or against writers that
 * bypass the lock (hand edits between the check and the rename).
 * @example
 * import { FileSystemProfileStorage } from 'memcore/adapters/fs';
 * const storage = new FileSystemProfileStorage({ baseDir: './.memcore', lockTimeoutMs: 5000 });
 * await storage.ensureRoot('user-memory');
 * const current = await storage.read('user-memory/u1/memory.md');
 * await storage.write('user-memory/u1/memory.md', '## Identity\n- Ada\n', current ? { ifVersion: current.version } : { ifAbsent: true });
 */
export class FileSystemProfileStorage implements ProfileStorage {
  constructor(options: FileSystemProfileStorageOptions);
  /** The absolute base directory. */
  readonly baseDir: string;
  /** The tenant this storage holds (`null`: the default tenant). */
  readonly tenantId: string | null;
  /**
   * The storage of tenant `tenantId`: the same storage under `<baseDir>/.tenants/<tenantFolder(id)>`,
   * the same object for the same id (docs/reference/storage.md, "Tenants"). The default tenant's paths may
   * not start with `.tenants/`.
   * @example const acme = storage.forTenant('acme');
   */
  forTenant(tenantId: string): FileSystemProfileStorage;
  read(path: string): Promise<StoredProfile | null>;
  write(path: string, text: string, options?: ProfileWriteOptions): Promise<ProfileWriteResult>;
  remove(path: string): Promise<void>;
  ensureRoot(rootFolder: string): Promise<void>;
  /**
   * Remove a user's folder after its profile was erased (with lock/temp files a crash left); a
   * folder holding anything else stays and answers `false`, as does a missing one.
   */
  removeFolder(folder: string): Promise<boolean>;
}

/**
 * A tenant's folder name under `<baseDir>/.tenants/`: the id when it is lowercase
 * `[a-z0-9_-]{1,64}`, else `~` and the hex of its UTF-8 bytes.
 * @example tenantFolder('acme'); // 'acme' — tenantFolder('Acme') === '~41636d65'
 */
export function tenantFolder(tenantId: string): string;

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
   * **Tests only.** Awaited after the temp file is written and fsynced, before the version check and
   * the rename. Throwing simulates a crash: the temp file stays, the target is untouched.
   */
  beforeRename?: (info: BeforeRenameInfo) => void | Promise<void>;
}

/**
 * Profile storage on the local file system (Node only). Files live at
 * `<baseDir>/<rootFolder>/<userId>/memory.md`; writes are atomic (temp file, fsync, rename); the
 * version is the SHA-256 (hex) of the content. Paths that are absolute, contain `..`, or reach
 * outside `baseDir` through a symlink are refused with `MemcoreError` `E_ARGUMENT`.
 * Conditional writes are exact within one process; across processes two writers can interleave
 * between the version check and the rename (last rename wins) — use a store with real
 * compare-and-swap (database version column, object-storage `If-Match`) when that matters.
 * @example
 * import { FileSystemProfileStorage } from 'memcore/adapters/fs';
 * const storage = new FileSystemProfileStorage({ baseDir: './.memcore' });
 * await storage.ensureRoot('user-memory');
 * const current = await storage.read('user-memory/u1/memory.md');
 * await storage.write('user-memory/u1/memory.md', '## Identity\n- Ada\n', { ifVersion: current?.version ?? null });
 */
export class FileSystemProfileStorage implements ProfileStorage {
  constructor(options: FileSystemProfileStorageOptions);
  /** The absolute base directory. */
  readonly baseDir: string;
  read(path: string): Promise<StoredProfile | null>;
  write(path: string, text: string, options?: ProfileWriteOptions): Promise<ProfileWriteResult>;
  remove(path: string): Promise<void>;
  ensureRoot(rootFolder: string): Promise<void>;
}

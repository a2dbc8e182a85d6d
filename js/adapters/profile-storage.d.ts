// The profile-storage host interface (behaviour §5) that the bundled storage adapters implement.

/** What `read` returns for an existing file: its text and an opaque version token. */
export interface StoredProfile {
  text: string;
  /** Opaque token; pass it back as `ifVersion` to write only if nobody wrote in between. */
  version: string;
}

/**
 * Options the core passes to `write` (behaviour §1.1, §1.7). The core sends `ifAbsent: true` (with
 * `ifVersion: null`) for the first write of a profile that did not exist, `ifVersion` otherwise.
 */
export interface ProfileWriteOptions {
  /** `null`/absent: no version condition. A string: write only if the file still has this version (a missing file never matches). */
  ifVersion?: string | null;
  /**
   * `true`: create only — write only if no file exists at the path, else `E_VERSION_CONFLICT` with
   * `expected: null`. `false`/`null`/absent: no such condition. `true` with a non-null `ifVersion`
   * is contradictory and rejected with `E_ARGUMENT` (`argument: 'options'`).
   */
  ifAbsent?: boolean | null;
  /** `"text/markdown"` for profiles. */
  contentType?: string;
  /** The host must not index the profile for retrieval. */
  skipIngestion?: boolean;
  /** The host must not show the file in chat. */
  hideInChat?: boolean;
}

/** Result of a successful `write`. */
export interface ProfileWriteResult {
  version: string;
}

/**
 * Profile storage as the core calls it. Every method may return a Promise. A failed write condition
 * (`ifVersion` mismatch, or `ifAbsent: true` on an existing file) is signalled by throwing
 * `MemcoreError` with code `E_VERSION_CONFLICT`.
 * @example
 * const storage: ProfileStorage = new InMemoryProfileStorage();
 * const current = await storage.read('user-memory/u1/memory.md');
 * await storage.write('user-memory/u1/memory.md', '## Identity\n', current ? { ifVersion: current.version } : { ifAbsent: true });
 */
export interface ProfileStorage {
  read(path: string): StoredProfile | null | Promise<StoredProfile | null>;
  write(path: string, text: string, options?: ProfileWriteOptions): ProfileWriteResult | Promise<ProfileWriteResult>;
  remove(path: string): void | Promise<void>;
  ensureRoot(rootFolder: string): void | Promise<void>;
}

/** `details` of an `E_VERSION_CONFLICT` error from the bundled adapters. */
export interface VersionConflictDetails {
  path: string;
  /** The `ifVersion` the caller passed; `null` for a failed `ifAbsent: true` (the file exists). */
  expected: string | null;
  /** The stored version, `null` when the file is missing. */
  actual: string | null;
}

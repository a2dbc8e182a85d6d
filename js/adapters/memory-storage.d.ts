// Typings for `memcore/adapters/memory`.
import type { MemcoreErrorOf } from '../index.js';
import type { ProfileStorage, ProfileWriteOptions, ProfileWriteResult, StoredProfile } from './profile-storage.js';

export type { ProfileStorage, ProfileWriteOptions, ProfileWriteResult, StoredProfile, VersionConflictDetails } from './profile-storage.js';

/** One entry of `InMemoryProfileStorage.writes`. */
export interface RecordedWrite {
  path: string;
  options: ProfileWriteOptions;
}

/** Constructor options of `InMemoryProfileStorage`. */
export interface InMemoryProfileStorageOptions {
  /** Initial files, path → text; each starts at version `"1"`. */
  files?: Record<string, string>;
}

/**
 * Profile storage in a `Map`, for tests, previews and single-process hosts; runs in every runtime.
 * Versions are per-path counters as strings (`"1"`, `"2"`, …) that never restart, even after
 * `remove`. `write` with an `ifVersion` that is not the current version (or with any `ifVersion`
 * string when the file is missing), or with `ifAbsent: true` when a file exists, rejects with
 * `MemcoreError` `E_VERSION_CONFLICT`, `details: { path, expected, actual }` (`expected: null` for
 * `ifAbsent`). Check and store are atomic (one JS thread).
 * @example
 * import { InMemoryProfileStorage } from 'memcore/adapters/memory';
 * const storage = new InMemoryProfileStorage();
 * const { version } = await storage.write('user-memory/u1/memory.md', '## Identity\n- Ada\n');
 * await storage.write('user-memory/u1/memory.md', '## Identity\n- Ada L.\n', { ifVersion: version });
 * console.log(storage.snapshot(), storage.writes.length); // { 'user-memory/u1/memory.md': '## Identity\n- Ada L.\n' } 2
 */
export class InMemoryProfileStorage implements ProfileStorage {
  constructor(options?: InMemoryProfileStorageOptions);
  /** The tenant this storage holds (`null`: the default tenant). */
  readonly tenantId: string | null;
  /**
   * The storage of tenant `tenantId`: a separate InMemoryProfileStorage, the same one for the same
   * id (docs/reference/storage.md, "Tenants").
   * @example const memory = new ContextMemory({ storage: storage.forTenant('acme'), model });
   */
  forTenant(tenantId: string): InMemoryProfileStorage;
  /** Every successful write, in order (test helper). */
  readonly writes: RecordedWrite[];
  /** Every `remove` call, in order (test helper). */
  readonly removes: string[];
  /** Every `ensureRoot` call, in order (test helper). */
  readonly roots: string[];
  read(path: string): Promise<StoredProfile | null>;
  write(path: string, text: string, options?: ProfileWriteOptions): Promise<ProfileWriteResult>;
  remove(path: string): Promise<void>;
  ensureRoot(rootFolder: string): Promise<void>;
  /** Every stored file, path → text, sorted by path (test helper). */
  snapshot(): Record<string, string>;
}

/**
 * The `E_VERSION_CONFLICT` error the bundled adapters throw; custom stores may reuse it.
 * `expected` is the `ifVersion` that failed, or `null` when `ifAbsent: true` found a file.
 * @example
 * throw versionConflict('user-memory/u1/memory.md', '3', '4');
 * throw versionConflict('user-memory/u1/memory.md', null, '4'); // ifAbsent, but the file exists
 */
export function versionConflict(path: string, expected: string | null, actual: string | null): MemcoreErrorOf<'E_VERSION_CONFLICT'>;

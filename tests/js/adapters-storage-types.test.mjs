// The storage-adapter typings for create-only writes and the lock options, compiled with
// `tsc --strict` against the installed package (a wrong shape fails the test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { typeErrors } from '../support/typecheck.mjs';

const require = createRequire(import.meta.url);
const repo = fileURLToPath(new URL('../../', import.meta.url));

const USAGE = `import { MemcoreError, type ProfileStorage as CoreProfileStorage } from 'memcore';
import { InMemoryProfileStorage, versionConflict, type ProfileWriteOptions, type VersionConflictDetails } from 'memcore/adapters/memory';
import { FileSystemProfileStorage, type FileSystemHostErrorDetails, type FileSystemProfileStorageOptions } from 'memcore/adapters/fs';

const fsOptions: FileSystemProfileStorageOptions = { baseDir: '.', lockTimeoutMs: 100, staleLockMs: 30000 };
const fs = new FileSystemProfileStorage(fsOptions);
const memory = new InMemoryProfileStorage();
// The bundled adapters are what the core accepts.
export const stores: CoreProfileStorage[] = [fs, memory];

const create: ProfileWriteOptions = { ifAbsent: true, ifVersion: null };
const update: ProfileWriteOptions = { ifVersion: 'v', ifAbsent: false };
const neither: ProfileWriteOptions = { ifAbsent: null };
// @ts-expect-error ifAbsent is a boolean
const wrong: ProfileWriteOptions = { ifAbsent: 'yes' };
// @ts-expect-error lockTimeoutMs is a number
new FileSystemProfileStorage({ baseDir: '.', lockTimeoutMs: '5' });
const created: MemcoreError = versionConflict('p', null, '1');

export async function use(path: string): Promise<string> {
  const current = await fs.read(path);
  try {
    await fs.write(path, 'x', current ? { ifVersion: current.version } : { ifAbsent: true });
    await memory.write(path, 'x', create);
    await memory.write(path, 'x', update);
    await memory.write(path, 'x', neither);
    return String(wrong) + created.code;
  } catch (e) {
    if (e instanceof MemcoreError && e.code === 'E_VERSION_CONFLICT') {
      const d = e.details as unknown as VersionConflictDetails;
      const expected: string | null = d.expected;
      return expected === null ? 'exists: ' + d.actual : 'stale';
    }
    if (e instanceof MemcoreError && e.code === 'E_HOST') {
      const d = e.details as unknown as FileSystemHostErrorDetails;
      return d.transient ? 'retry later: ' + (d.lockPath ?? '') : String(d.errno);
    }
    throw e;
  }
}
`;

test('typings: ifAbsent in the write options, lockTimeoutMs/staleLockMs, conflict and host error details', (t) => {
  const dir = join(repo, 'target', 'adapters-storage-types');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'usage.ts');
  writeFileSync(file, USAGE);
  assert.deepEqual(typeErrors(file), []);
});

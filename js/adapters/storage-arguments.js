// Argument checks shared by the bundled profile-storage adapters.
import { MemcoreError } from '../errors.js';

/** A storage path must be a non-empty string; the adapters never coerce. */
export function checkStoragePath(path, fn) {
  if (typeof path !== 'string' || path.length === 0) {
    throw new MemcoreError('E_ARGUMENT', `${fn}: path must be a non-empty string like "user-memory/u1/memory.md"`, {
      function: fn,
      argument: 'path',
    });
  }
}

/** `ifVersion` is absent, `null` or a string (the version a previous `read`/`write` returned). */
export function checkWriteOptions(options, fn) {
  if (options === undefined || options === null) return;
  if (typeof options !== 'object') {
    throw new MemcoreError('E_ARGUMENT', `${fn}: options must be an object like { ifVersion }`, { function: fn, argument: 'options' });
  }
  const v = options.ifVersion;
  if (v !== undefined && v !== null && typeof v !== 'string') {
    throw new MemcoreError('E_ARGUMENT', `${fn}: options.ifVersion must be a version string returned by read/write, or null`, {
      function: fn,
      argument: 'options.ifVersion',
    });
  }
}

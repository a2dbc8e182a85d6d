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

/**
 * Write conditions: `ifVersion` is absent, `null` or a string (the version a previous
 * `read`/`write` returned); `ifAbsent` is absent, `null` or a boolean (`true`: create only).
 * Both at once (`ifAbsent: true` with a non-null `ifVersion`) contradict each other.
 */
export function checkWriteOptions(options, fn) {
  if (options === undefined || options === null) return;
  if (typeof options !== 'object') {
    throw new MemcoreError('E_ARGUMENT', `${fn}: options must be an object like { ifVersion } or { ifAbsent: true }`, {
      function: fn,
      argument: 'options',
    });
  }
  const v = options.ifVersion;
  if (v !== undefined && v !== null && typeof v !== 'string') {
    throw new MemcoreError('E_ARGUMENT', `${fn}: options.ifVersion must be a version string returned by read/write, or null`, {
      function: fn,
      argument: 'options.ifVersion',
    });
  }
  const a = options.ifAbsent;
  if (a !== undefined && a !== null && typeof a !== 'boolean') {
    throw new MemcoreError('E_ARGUMENT', `${fn}: options.ifAbsent must be true (create only), false or null`, {
      function: fn,
      argument: 'options.ifAbsent',
    });
  }
  if (a === true && v !== undefined && v !== null) {
    throw new MemcoreError(
      'E_ARGUMENT',
      `${fn}: options.ifAbsent: true (the file must not exist) contradicts options.ifVersion (the file must have that version); pass one of them`,
      { function: fn, argument: 'options' },
    );
  }
}

/** The write condition the options ask for: `{ ifAbsent: true }`, `{ ifVersion }` or unconditional. */
export function writeCondition(options) {
  if (options?.ifAbsent === true) return { ifAbsent: true, ifVersion: null };
  return { ifAbsent: false, ifVersion: options?.ifVersion ?? null };
}

// memcore typings: Errors and the version.

/** Stable error codes (README, "Errors"). */
export type MemcoreErrorCode =
  | 'E_ARGUMENT'
  | 'E_NOT_INITIALIZED'
  | 'E_INVALID_USER_ID'
  | 'E_TOO_LARGE'
  | 'E_CONFIG'
  | 'E_NO_TOKENIZER'
  | 'E_HOST'
  | 'E_VERSION_CONFLICT'
  | 'E_CONFLICT'
  | 'E_SECRET'
  | 'E_INTERNAL';

/**
 * The `details` of each code. A field is optional where some call sites leave it out; `E_HOST`
 * keeps the host's own details beside memcore's.
 */
export interface MemcoreErrorDetails {
  /** The function and the argument (with the field path, e.g. `options.turnCount`). */
  E_ARGUMENT: { function?: string; argument?: string; path?: string; reason?: string; field?: string; encoding?: string };
  E_NOT_INITIALIZED: undefined;
  /** The user id's length in UTF-8 bytes. */
  E_INVALID_USER_ID: { bytes: number };
  /** The input's size and the limit it is over (bytes or characters, as the message says). */
  E_TOO_LARGE: { length?: number; bytes?: number; limit: number; argument?: string };
  /** The configuration field's path; for a function the loaded core leaves out, the export and the core. */
  E_CONFIG: { path?: string; export?: string; core?: 'profile' };
  /** The function and the encoding it had no tables for. */
  E_NO_TOKENIZER: { function?: string; encoding?: string };
  /** The host operation (`store.get`, `model.complete`, …), whether retrying may help, and the host's own details. */
  E_HOST: {
    operation?: string;
    function?: string;
    transient?: boolean;
    timedOut?: boolean;
    status?: number | null;
    code?: string;
    path?: string;
    [host: string]: unknown;
  };
  /** The storage's conditional write that lost: the path, the version it expected (`null`: absent) and the one it found. */
  E_VERSION_CONFLICT: { path?: string; expected?: string | null; actual?: string | null; [storage: string]: unknown };
  /** The entry id another user holds (an import: also `argument: 'document'`). */
  E_CONFLICT: { entryId: string; argument?: string };
  /** Where the credential was (never its value). */
  E_SECRET: { field?: string; kind?: string; key?: string; path?: string };
  E_INTERNAL: undefined;
}

/** A {@link MemcoreError} of one code, its `details` typed for that code. */
export interface MemcoreErrorOf<C extends MemcoreErrorCode> extends Error {
  readonly name: 'MemcoreError';
  /** Stable code; switch on this, not on the message. */
  readonly code: C;
  /** Structured details ({@link MemcoreErrorDetails}). */
  readonly details?: MemcoreErrorDetails[C];
}

/**
 * The one error class memcore throws. Checking `code` narrows `details`.
 * @example
 * try { parseProfile(42 as any) } catch (e) {
 *   if (e instanceof MemcoreError && e.code === 'E_ARGUMENT') console.log(e.details?.argument) // "text"
 * }
 */
export type MemcoreError = { [C in MemcoreErrorCode]: MemcoreErrorOf<C> }[MemcoreErrorCode];

/** The class's constructor: `instanceof MemcoreError` narrows to the union of every code's error. */
export interface MemcoreErrorConstructor {
  new <C extends MemcoreErrorCode>(code: C, message: string, details?: MemcoreErrorDetails[C]): MemcoreErrorOf<C>;
  readonly prototype: MemcoreError;
}

/** The one error class memcore throws (see the type of the same name). */
export const MemcoreError: MemcoreErrorConstructor;

/**
 * The memcore version.
 * @example version() // "0.1.0"
 */
export function version(): string;

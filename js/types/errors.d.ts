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
 * The one error class memcore throws.
 * @example
 * try { parseProfile(42 as any) } catch (e) { if (e instanceof MemcoreError) console.log(e.code) } // "E_ARGUMENT"
 */
export class MemcoreError extends Error {
  constructor(code: MemcoreErrorCode, message: string, details?: unknown);
  readonly name: 'MemcoreError';
  /** Stable code; switch on this, not on the message. */
  readonly code: MemcoreErrorCode;
  /** Structured details: `{ function, argument }` for E_ARGUMENT, `{ path }` for E_CONFIG, … */
  readonly details?: Record<string, unknown>;
}

/**
 * The memcore version.
 * @example version() // "0.1.0"
 */
export function version(): string;

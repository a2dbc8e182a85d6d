// The one error class of memcore. Every thrown error has a stable `code` (see README, "Errors").

/** An error thrown by memcore: `code` is stable (`E_ARGUMENT`, `E_CONFIG`, …), `details` optional. */
export class MemcoreError extends Error {
  constructor(code, message, details) {
    super(message);
    this.name = 'MemcoreError';
    this.code = code;
    if (details !== undefined) this.details = details;
  }
}

/** Convert whatever the wasm layer threw into a MemcoreError (or rethrow a foreign error). */
export function toMemcoreError(error) {
  if (error instanceof MemcoreError) return error;
  if (error && typeof error.code === 'string' && error.code.startsWith('E_')) {
    return new MemcoreError(error.code, error.message, error.details);
  }
  if (typeof WebAssembly !== 'undefined' && error instanceof WebAssembly.RuntimeError) {
    // A trap is a memcore bug; report it with a code instead of a bare "unreachable".
    return new MemcoreError('E_INTERNAL', `memcore internal error (${error.message}); please report it`);
  }
  return error;
}

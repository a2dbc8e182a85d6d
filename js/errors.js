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

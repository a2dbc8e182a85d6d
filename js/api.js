// The public API: thin wrappers over the wasm bindings that check initialisation and turn thrown
// values into MemcoreError. Argument checking happens in Rust (one place for every runtime).
import * as wasm from './wasm/memcore.js';
import { toMemcoreError } from './errors.js';
import { ensureInitialized } from './state.js';

export { MemcoreError } from './errors.js';

function call(fn, ...args) {
  ensureInitialized();
  try {
    return fn(...args);
  } catch (error) {
    throw toMemcoreError(error);
  }
}

/** The memcore version. */
export function version() {
  return call(wasm.version);
}

// Initialisation state shared by the entry points and the API wrappers (not exported publicly).
import { MemcoreError } from './errors.js';

let initialized = false;

export function markInitialized() {
  initialized = true;
}

export function isInitialized() {
  return initialized;
}

export function ensureInitialized() {
  if (!initialized) {
    throw new MemcoreError(
      'E_NOT_INITIALIZED',
      "memcore is not initialised: with 'memcore/slim', await init(moduleOrBytes) (or call initSync) before any other call",
    );
  }
}

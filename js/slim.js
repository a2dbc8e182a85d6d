// Slim entry: nothing is loaded until the caller passes the module or its bytes to init().
import initAsync, { initSync as initSyncRaw } from './wasm/memcore.js';
import { MemcoreError } from './errors.js';
import { isStarted, started } from './wire.js';

// A WebAssembly.Module from another realm (Next.js's edge sandbox hands one over, as the glue's
// own checks know) fails `instanceof`, and so would an ArrayBuffer: test the brands.
const brand = (value) => Object.prototype.toString.call(value);
const isModule = (value) => brand(value) === '[object WebAssembly.Module]';
const isBuffer = (value) => brand(value) === '[object ArrayBuffer]';

function checkSource(source, name) {
  const ok =
    isModule(source) ||
    isBuffer(source) ||
    ArrayBuffer.isView(source) ||
    (typeof Response !== 'undefined' && source instanceof Response) ||
    source instanceof URL ||
    typeof source === 'string';
  if (!ok) {
    throw new MemcoreError(
      'E_ARGUMENT',
      `${name}: argument \`moduleOrBytes\` must be a WebAssembly.Module, bytes (ArrayBuffer/Uint8Array), a Response or a URL`,
      { function: name, argument: 'moduleOrBytes' },
    );
  }
}

/**
 * Initialise from a WebAssembly.Module, the .wasm bytes, a Response or a URL. Idempotent.
 * @example import { init, version } from 'memcore/slim'; await init(wasmBytes); version();
 */
export async function init(moduleOrBytes) {
  if (isStarted()) return;
  checkSource(moduleOrBytes, 'init');
  await initAsync({ module_or_path: moduleOrBytes });
  if (!isStarted()) started();
}

/** Initialise synchronously from a WebAssembly.Module or the .wasm bytes. Idempotent. */
export function initSync(moduleOrBytes) {
  if (isStarted()) return;
  checkSource(moduleOrBytes, 'initSync');
  if (!(isModule(moduleOrBytes) || isBuffer(moduleOrBytes) || ArrayBuffer.isView(moduleOrBytes))) {
    throw new MemcoreError('E_ARGUMENT', 'initSync: argument `moduleOrBytes` must be a WebAssembly.Module or bytes', {
      function: 'initSync',
      argument: 'moduleOrBytes',
    });
  }
  initSyncRaw({ module: moduleOrBytes });
  started();
}

export * from './api.js';

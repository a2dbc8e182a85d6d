// Slim entry: nothing is loaded until the caller passes the module or its bytes to init().
import initAsync, { initSync as initSyncRaw } from './wasm/memcore.js';
import { MemcoreError } from './errors.js';
import { isStarted, started } from './wire.js';

function checkSource(source, name) {
  const ok =
    source instanceof WebAssembly.Module ||
    source instanceof ArrayBuffer ||
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
  if (!(moduleOrBytes instanceof WebAssembly.Module || moduleOrBytes instanceof ArrayBuffer || ArrayBuffer.isView(moduleOrBytes))) {
    throw new MemcoreError('E_ARGUMENT', 'initSync: argument `moduleOrBytes` must be a WebAssembly.Module or bytes', {
      function: 'initSync',
      argument: 'moduleOrBytes',
    });
  }
  initSyncRaw({ module: moduleOrBytes });
  started();
}

export * from './api.js';

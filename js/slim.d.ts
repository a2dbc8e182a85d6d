// Typings for `memcore/slim`: the same API, plus explicit initialisation.
export * from './index.js';

/** What `init` accepts: a compiled module, the .wasm bytes, a fetch Response or a URL. */
export type WasmSource = WebAssembly.Module | ArrayBuffer | ArrayBufferView | Response | URL | string;

/**
 * Load the WebAssembly module. Every other call before this throws `MemcoreError` `E_NOT_INITIALIZED`.
 * @example
 * import { init, version } from 'memcore/slim';
 * await init(await fetch('/memcore.wasm'));
 * version();
 */
export function init(moduleOrBytes: WasmSource): Promise<void>;

/** Synchronous variant of `init` for a compiled module or bytes. */
export function initSync(moduleOrBytes: WebAssembly.Module | ArrayBuffer | ArrayBufferView): void;

// Typings for `memcore/slim`: the same API, plus explicit initialisation.
export * from './index.js';

/** What `init` accepts: a compiled module, the .wasm bytes, a fetch Response or a URL. */
export type WasmSource = WebAssembly.Module | ArrayBuffer | ArrayBufferView | Response | URL | string;

/**
 * `WebAssembly.Module` is an empty interface, so any object (and any number) would match it; an
 * argument is accepted only when it is one of the real sources — a module has no own keys.
 */
type Checked<T, Fetchable extends boolean> = T extends string
  ? Fetchable extends true ? T : never
  : T extends ArrayBuffer | ArrayBufferView
    ? T
    : T extends Response | URL
      ? Fetchable extends true ? T : never
      : T extends object
        ? keyof T extends never ? T : never
        : never;

/**
 * Load the WebAssembly module. Every other call before this throws `MemcoreError` `E_NOT_INITIALIZED`.
 * Either core: the full one (`memcore/memcore.wasm`) or the profile-only one
 * (`memcore/memcore-profile.wasm`, 343 KiB gzip instead of 569), with which everything but profile
 * memory, `ContextMemory`, fitting, tokens and prompts throws `MemcoreError` `E_CONFIG`
 * (`details: { export, core: 'profile' }`). The first `init` of a process wins.
 * @example
 * import { init, version } from 'memcore/slim';
 * await init(await fetch('/memcore.wasm'));
 * version();
 * @example
 * // A Cloudflare Worker on the profile-only core
 * import profileCore from 'memcore/memcore-profile.wasm';
 * import { initSync, parseProfile } from 'memcore/slim';
 * initSync(profileCore);
 */
export function init<T extends WasmSource>(moduleOrBytes: T & Checked<T, true>): Promise<void>;

/** Synchronous variant of `init` for a compiled module or bytes. */
export function initSync<T extends WebAssembly.Module | ArrayBuffer | ArrayBufferView>(
  moduleOrBytes: T & Checked<T, false>,
): void;

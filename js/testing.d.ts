// Typings for `memcore/testing` (tests only).

/**
 * Make the WebAssembly instance trap, as a memcore bug would: throws `MemcoreError('E_INTERNAL')`;
 * the next call runs on a fresh instance.
 * @example import { forceTrap } from 'memcore/testing'; assert.throws(forceTrap, { code: 'E_INTERNAL' });
 */
export function forceTrap(): void;

/**
 * The state of the WebAssembly instance; `replaced` counts instances replaced after a failure.
 * @example instance().replaced; // 0
 */
export function instance(): { status: 'uninitialized' | 'ready' | 'poisoned'; generation: number; replaced: number; tables: Array<'o200k_base' | 'cl100k_base'> };

/**
 * Work counters of `renderProfile` since the process started: `linesSent`, the lines whose text
 * it sent into WebAssembly, and `linesKnown`, the lines of a `parseProfile` answer it found
 * unchanged and sent only as a count.
 * @example const { linesSent, linesKnown } = profileTransport();
 */
export function profileTransport(): { linesSent: number; linesKnown: number };

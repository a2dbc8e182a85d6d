// `memcore/testing`: hooks for tests of memcore itself and of hosts that want to prove they
// survive a failed WebAssembly instance. Not for production code.
import { instanceInfo, invoke, transportCounters } from './wire.js';

/**
 * Make the WebAssembly instance trap (the `unreachable` instruction), as a memcore bug would.
 * Throws `MemcoreError('E_INTERNAL')`; the next call of any memcore function runs on a fresh
 * instance (tokenizer tables reloaded; InMemoryEntryStore contents and calls in flight lost).
 * @example import { forceTrap } from 'memcore/testing'; assert.throws(forceTrap, { code: 'E_INTERNAL' });
 */
export function forceTrap() {
  invoke((g) => g.forceTrap());
}

/**
 * `{ status, generation, replaced, tables }` of the WebAssembly instance: `replaced` counts
 * instances replaced after a failure, `tables` names the tokenizer tables loaded so far.
 * @example instance().replaced; // 0
 */
export function instance() {
  return instanceInfo();
}

/**
 * Work counters of `renderProfile` since the process started: `linesSent`, the lines whose text
 * it sent into WebAssembly, and `linesKnown`, the lines of a `parseProfile` answer it found
 * unchanged and sent only as a count (their text is written from what JS holds).
 * @example const before = profileTransport().linesSent; renderProfile(parseProfile(text)); // linesSent unchanged
 */
export function profileTransport() {
  return { ...transportCounters };
}

// The instance: started by an entry point, every call into wasm through `invoke`, which turns the
// core's errors into MemcoreError and treats anything else thrown from inside wasm as a failed
// instance — reported as E_INTERNAL and replaced before the next call (see README, "Errors").
import * as glue from '../wasm/memcore.js';
import { MemcoreError } from '../errors.js';

export const instance = {
  status: 'uninitialized', // 'ready' | 'poisoned'
  generation: 0,
  depth: 0,
  tables: [], // tokenizer tables loaded so far, reloaded into a replacement instance
  replaced: 0,
};

// The core's hooks into JS (wake a task, cancel a host call, load a table), given by start.js:
// those modules call `invoke`, so this module does not import them (no import circle).
let hooks = null;

/** The core's hooks into JS, installed into every instance (start.js). */
export function setHooks(wake, cancelHostCall, tableHook) {
  hooks = [wake, cancelHostCall, tableHook];
}

/** Called (through start.js) once the glue is initialised, and again for a replacement instance. */
export function started() {
  if (hooks === null) throw new MemcoreError('E_INTERNAL', 'memcore internal error: the instance was started without its hooks');
  glue.installHooks(...hooks);
  instance.status = 'ready';
  instance.generation += 1;
}

export function isStarted() {
  return instance.status !== 'uninitialized';
}

export function isLoaded(encoding) {
  return instance.tables.some((t) => t.encoding === encoding);
}

/** Load a tokenizer table and remember it for a replacement instance. */
export function loadTable(input) {
  const bytes = input instanceof Uint8Array ? input : new Uint8Array(input);
  const encoding = invoke(() => glue.loadTokenizer(bytes));
  instance.tables = instance.tables.filter((t) => t.encoding !== encoding);
  instance.tables.push({ encoding, bytes });
  return encoding;
}

export function ensureReady() {
  if (instance.status === 'uninitialized') {
    throw new MemcoreError(
      'E_NOT_INITIALIZED',
      "memcore is not initialised: with 'memcore/slim', await init(moduleOrBytes) (or call initSync) before any other call",
    );
  }
  if (instance.status === 'poisoned' && instance.depth === 0) replaceInstance();
}

// A trapped instance may hold broken state (a stack pointer past its start, a borrowed cell, a
// half-updated allocator), so it is never called again: the module is instantiated afresh from
// the same compiled code and the tokenizer tables are loaded again. Objects that lived inside the
// old instance (an InMemoryEntryStore's entries, running calls) are gone; their handles answer
// E_INTERNAL.
function replaceInstance() {
  glue.__memcore_reinstantiate();
  instance.status = 'uninitialized';
  started();
  instance.replaced += 1;
  const tables = instance.tables;
  instance.tables = [];
  for (const { bytes } of tables) loadTable(bytes);
}

/** Facts for `memcore/testing`. */
export function instanceInfo() {
  return { status: instance.status, generation: instance.generation, replaced: instance.replaced, tables: instance.tables.map((t) => t.encoding) };
}

/** Run `fn(glue)` against the instance; errors become MemcoreError. */
export function invoke(fn) {
  ensureReady();
  const generation = instance.generation;
  instance.depth += 1;
  let result;
  try {
    result = fn(glue);
  } catch (thrown) {
    const error = fromThrown(thrown);
    // Whatever a call answers after its instance failed under it cannot be trusted.
    if (instance.status === 'poisoned' && error.code !== 'E_INTERNAL') throw lostInstance();
    throw error;
  } finally {
    instance.depth -= 1;
  }
  if (instance.status === 'poisoned' || instance.generation !== generation) throw lostInstance();
  return result;
}

function fromThrown(thrown) {
  if (typeof thrown === 'string') return fromWire(thrown);
  if (thrown instanceof MemcoreError) return thrown;
  // Anything else came out of the wasm code or its glue: a trap (RuntimeError, a stack
  // overflow's RangeError) or a glue failure. Never trust the instance again.
  instance.status = 'poisoned';
  let what = 'an error';
  try {
    what = `${thrown?.name ?? 'Error'}: ${thrown?.message ?? String(thrown)}`;
  } catch {}
  return new MemcoreError(
    'E_INTERNAL',
    `memcore internal error (${what}); the WebAssembly instance was replaced, state kept inside it (InMemoryEntryStore entries, calls in flight) is lost — please report this`,
  );
}

export function lostInstance() {
  return new MemcoreError(
    'E_INTERNAL',
    'memcore internal error: the WebAssembly instance failed during this call and was replaced; retry the call',
  );
}

/** A core error in its wire form `{ code, message, details }` → MemcoreError. */
export function fromWire(text) {
  try {
    const { code, message, details } = JSON.parse(text);
    return new MemcoreError(code, message, details ?? undefined);
  } catch {
    return new MemcoreError('E_INTERNAL', `memcore internal error: unreadable error ${JSON.stringify(String(text).slice(0, 200))}`);
  }
}

/** E_NOT_INITIALIZED before init: checked by every argument helper, so it is the first error. */
export function initialised() {
  if (instance.status === 'uninitialized') ensureReady();
}

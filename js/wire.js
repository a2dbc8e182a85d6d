// The boundary between JavaScript values and the wasm core (not exported publicly).
//
// Everything that can only be checked on JS values happens here, inside `try`: that a text is a
// string, that a structured value can be written as JSON (no cycle, no getter that throws, no
// BigInt, function or non-finite number; depth and size bounded), that a callback is a function.
// The core receives strings, numbers and our own adapter objects only, so no user value is ever
// read inside wasm. Every call into wasm goes through `invoke`, which turns the core's errors
// into MemcoreError and treats anything else thrown from inside wasm as a failed instance: it is
// reported as E_INTERNAL and the instance is replaced before the next call (see README, "Errors").
import * as glue from './wasm/memcore.js';
import { MemcoreError } from './errors.js';
import { SECTION_HEADINGS } from './constants.js';

/** The longest text or JSON argument, in UTF-16 code units (64 Mi). */
export const MAX_TEXT_LENGTH = 64 * 1024 * 1024;

// ─── The instance ───────────────────────────────────────────────────────────────────────────

const instance = {
  status: 'uninitialized', // 'ready' | 'poisoned'
  generation: 0,
  depth: 0,
  tables: [], // tokenizer tables loaded so far, reloaded into a replacement instance
  replaced: 0,
};

/** Called by an entry point once the glue is initialised. */
export function started() {
  glue.installHooks(wake, cancelHostCall, tableHook);
  instance.status = 'ready';
  instance.generation += 1;
}

export function isStarted() {
  return instance.status !== 'uninitialized';
}

// ─── Tokenizer tables, loaded on first use ────────────────────────────────────────────────────
//
// Nothing is loaded at start. When the core needs a table it calls `tableHook`: an entry whose
// runtime can read bytes synchronously (Node, or a Worker that imported the table module) loads
// it there and then; otherwise the hook starts the download and answers "not yet", and
// `ready(encoding)` (or any async function, before it starts) waits for it.

const sources = { sync: null, async: null };
const provided = new Map();
const loading = new Map();

/** Called by an entry point: how its runtime reads a table (`sync(name)` → bytes, `async(name)` → Promise of bytes). */
export function tableSources({ sync, async } = {}) {
  if (sync) sources.sync = sync;
  if (async) sources.async = async;
  for (const run of waiting.splice(0)) run();
}

// `import 'memcore/tokenizer/<encoding>'` does not import the entry (it would pull the default
// entry into 'memcore/slim' bundles), so it may be evaluated first — always so when it is imported
// before 'memcore', unless a bundler merges both into one chunk. Its request waits for the entry.
const waiting = [];

/** Run `fn` once the entry has said how it reads tables (now, if it has). */
export function whenTableSources(fn) {
  if (sources.sync || sources.async) fn();
  else waiting.push(fn);
}

/** A table provided by an imported module (`memcore/tokenizer/<encoding>`): read synchronously. */
export function provideTable(encoding, read) {
  provided.set(encoding, read);
}

function isLoaded(encoding) {
  return instance.tables.some((t) => t.encoding === encoding);
}

function syncSource(encoding) {
  const read = provided.get(encoding);
  if (read) return read;
  if (sources.sync) return () => sources.sync(encoding);
  return undefined;
}

function tableHook(encoding) {
  try {
    const read = syncSource(encoding);
    if (read) {
      loadTable(read());
      return true;
    }
    if (sources.async) prefetch(encoding).catch(() => {});
  } catch {}
  return false;
}

function prefetch(encoding) {
  let pending = loading.get(encoding);
  if (!pending) {
    pending = Promise.resolve()
      .then(() => sources.async(encoding))
      .then((bytes) => {
        if (!isLoaded(encoding)) loadTable(bytes);
      })
      .finally(() => loading.delete(encoding));
    loading.set(encoding, pending);
  }
  return pending;
}

/**
 * Make the tables of `encodings` available: at once where they can be read synchronously, after
 * the download otherwise. Unknown names are E_ARGUMENT (from the core).
 */
export async function whenTables(fn, encodings) {
  for (const encoding of encodings) {
    if (invoke((g) => g.hasTokenizer(encoding))) continue;
    if (!sources.async) {
      throw new MemcoreError(
        'E_NO_TOKENIZER',
        `${fn}: the \`${encoding}\` table cannot be loaded by this entry: import 'memcore/tokenizer/${encoding}' (Workers), call loadTokenizer(bytes) ('memcore/slim'), or pass countTokens`,
        { function: fn, encoding },
      );
    }
    try {
      await prefetch(encoding);
    } catch (error) {
      throw new MemcoreError('E_NO_TOKENIZER', `${fn}: could not load the \`${encoding}\` table: ${reason(error)}`, { function: fn, encoding });
    }
  }
}

/** Before an async function counts with `encoding`: start and await its download (best effort: the core reports what is missing). */
export async function preload(encoding) {
  if (!sources.async || isLoaded(encoding) || syncSource(encoding)) return;
  try {
    await prefetch(encoding);
  } catch {}
}

/** Load a tokenizer table and remember it for a replacement instance. */
export function loadTable(input) {
  const bytes = input instanceof Uint8Array ? input : new Uint8Array(input);
  const encoding = invoke(() => glue.loadTokenizer(bytes));
  instance.tables = instance.tables.filter((t) => t.encoding !== encoding);
  instance.tables.push({ encoding, bytes });
  return encoding;
}

function ensureReady() {
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

function lostInstance() {
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

// ─── Arguments ──────────────────────────────────────────────────────────────────────────────

function describe(value) {
  if (value === null) return 'null';
  const type = typeof value;
  if (type === 'undefined') return 'undefined';
  if (type !== 'object') return `a ${type}`;
  try {
    return Array.isArray(value) ? 'an array' : 'an object';
  } catch {
    return 'a revoked proxy';
  }
}

/** E_NOT_INITIALIZED before init: checked by every argument helper, so it is the first error. */
function initialised() {
  if (instance.status === 'uninitialized') ensureReady();
}

export function argumentError(fn, argument, message) {
  initialised();
  return new MemcoreError('E_ARGUMENT', `${fn}: argument \`${argument}\` ${message}`, { function: fn, argument });
}

function tooLarge(fn, argument, length) {
  return new MemcoreError(
    'E_TOO_LARGE',
    `${fn}: argument \`${argument}\` is ${length} characters long; at most ${MAX_TEXT_LENGTH} are accepted`,
    { function: fn, argument, length, limit: MAX_TEXT_LENGTH },
  );
}

/** A required string argument. */
export function text(fn, argument, value) {
  initialised();
  if (typeof value !== 'string') throw argumentError(fn, argument, `must be a string, got ${describe(value)}`);
  if (value.length > MAX_TEXT_LENGTH) throw tooLarge(fn, argument, value.length);
  return value;
}

/** An optional string argument: `undefined`/`null` → `undefined`. */
export function optionalText(fn, argument, value) {
  initialised();
  return value === undefined || value === null ? undefined : text(fn, argument, value);
}

// What JSON.stringify would silently drop or change (a function or symbol, NaN and ±Infinity,
// BigInt throws anyway) is refused instead. Checked by a walk before a plain JSON.stringify: a
// replacer function costs a call from C++ into JS per value (measured 16 µs against 11 µs for a
// 6 KB profile). The walk reads what JSON.stringify reads — own enumerable keys, `toJSON`
// results — and tracks the objects on its path, so a cycle is reported, not walked forever.
function check(value, key, path) {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'undefined':
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`it holds a non-finite number (${value}) at ${JSON.stringify(key)}`);
      return;
    case 'bigint':
      throw new TypeError(`it holds a BigInt at ${JSON.stringify(key)}`);
    case 'function':
      throw new TypeError(`it holds a function at ${JSON.stringify(key)}`);
    case 'symbol':
      throw new TypeError(`it holds a symbol at ${JSON.stringify(key)}`);
    default:
      break;
  }
  if (value === null) return;
  if (typeof value.toJSON === 'function') {
    check(value.toJSON(key), key, path);
    return;
  }
  if (path.has(value)) throw new TypeError('Converting circular structure to JSON');
  if (path.size > 256) throw new RangeError('too deep');
  path.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) check(value[i], String(i), path);
  } else {
    for (const k of Object.keys(value)) check(value[k], k, path);
  }
  path.delete(value);
}

/**
 * A structured argument as JSON text (`undefined` stays `undefined`: absent). Refused with
 * E_ARGUMENT: cycles, values whose getters or `toJSON` throw (Proxies included), BigInt,
 * functions, symbols, NaN and ±Infinity; deeper than 128 levels is refused by the core.
 */
export function json(fn, argument, value) {
  initialised();
  if (value === undefined) return undefined;
  let out;
  try {
    check(value, '', new Set());
    out = JSON.stringify(value);
  } catch (error) {
    throw argumentError(fn, argument, `cannot be read as JSON data: ${reason(error)}`);
  }
  if (out !== undefined && out.length > MAX_TEXT_LENGTH) throw tooLarge(fn, argument, out.length);
  return out;
}

/** Why JSON.stringify failed, in words (it never runs user code here). */
export function reason(error) {
  if (error instanceof RangeError) return 'it is nested too deeply';
  let message = '';
  try {
    message = String(error?.message ?? error);
  } catch {}
  if (/circular|cyclic/i.test(message)) return 'it contains a cycle';
  if (error instanceof TypeError && message.startsWith('it holds')) return message;
  return `reading it threw (${message.slice(0, 200)})`;
}

/** Read named properties of an options object (getters run here, inside `try`). */
export function fields(fn, argument, value, names) {
  initialised();
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' && typeof value !== 'function') {
    throw argumentError(fn, argument, `must be an object, got ${describe(value)}`);
  }
  const out = {};
  try {
    for (const name of names) out[name] = value[name];
  } catch (error) {
    throw argumentError(fn, argument, `could not be read: ${reason(error)}`);
  }
  return out;
}

/** The options object without the named callback fields, as JSON (`undefined` when absent). */
export function jsonWithout(fn, argument, value, callbackNames) {
  initialised();
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || describe(value) !== 'an object') {
    throw argumentError(fn, argument, `must be an object, got ${describe(value)}`);
  }
  let data;
  try {
    data = { ...value };
  } catch (error) {
    throw argumentError(fn, argument, `could not be read: ${reason(error)}`);
  }
  for (const name of callbackNames) delete data[name];
  return json(fn, argument, data);
}

/** An optional callback: `undefined`/`null` → `undefined`, a function, else E_ARGUMENT. */
export function callback(fn, argument, value) {
  initialised();
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'function') throw argumentError(fn, argument, `must be a function, got ${describe(value)}`);
  return value;
}

// ─── Tasks (async calls) ────────────────────────────────────────────────────────────────────

const tasks = new Map();

/** Drive a task handle returned by an async export; resolves to its JSON result, parsed. */
export function runTask(start) {
  return new Promise((resolve, reject) => {
    let id;
    try {
      id = invoke(start);
    } catch (error) {
      reject(error);
      return;
    }
    tasks.set(id, { resolve, reject, scheduled: false, generation: instance.generation });
    step(id);
  });
}

function wake(id) {
  const task = tasks.get(id);
  if (!task || task.scheduled) return;
  task.scheduled = true;
  queueMicrotask(() => step(id));
}

function step(id) {
  const task = tasks.get(id);
  if (!task) return;
  task.scheduled = false;
  if (task.generation !== instance.generation || instance.status === 'poisoned') {
    tasks.delete(id);
    task.reject(lostInstance());
    return;
  }
  let out;
  try {
    out = invoke((g) => g.taskPoll(id));
  } catch (error) {
    tasks.delete(id);
    task.reject(error);
    return;
  }
  if (out === undefined) return;
  tasks.delete(id);
  try {
    task.resolve(JSON.parse(out));
  } catch (error) {
    task.reject(new MemcoreError('E_INTERNAL', `memcore internal error: unreadable result (${reason(error)})`));
  }
}

// ─── Host calls (the JS side of src/wasm/task.rs) ───────────────────────────────────────────

const cancels = new Map();

/** Report the outcome of host call `id` to the core; never throws. */
export function settle(id, ok, payload) {
  cancels.delete(id);
  if (typeof payload !== 'string') {
    ok = false;
    payload = JSON.stringify({ code: 'E_INTERNAL', message: 'memcore internal error: a host answer was not encoded' });
  }
  try {
    invoke((g) => g.settleHostCall(id, ok, payload));
  } catch {
    // A failed instance: the task that waits for this call is rejected by `step`.
  }
}

/** Run `cancel` if the core abandons host call `id` (a timeout won, the task was dropped). */
export function onCancel(id, cancel) {
  cancels.set(id, cancel);
}

function cancelHostCall(id) {
  const cancel = cancels.get(id);
  cancels.delete(id);
  if (cancel) {
    try {
      cancel();
    } catch {}
  }
}

// ─── Handles ────────────────────────────────────────────────────────────────────────────────

const finalizers =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry(({ free, id, generation }) => {
        if (generation !== instance.generation || instance.status !== 'ready' || instance.depth > 0) return;
        try {
          free(glue, id);
        } catch {}
      })
    : null;

/**
 * A handle of a core object owned by `owner`, freed with `free(glue, id)` when `owner` is
 * collected. With `make` (which creates the core object and returns its id), an object whose
 * instance failed is made again in the new instance on its next use; without it, the handle
 * answers E_INTERNAL from then on (its state lived in the failed instance).
 */
export function handle(owner, make, free, kind) {
  const h = { owner, make, free, kind, id: 0, generation: -1 };
  renew(h);
  return h;
}

function renew(h) {
  h.id = h.make();
  h.generation = instance.generation;
  finalizers?.register(h.owner, { free: h.free, id: h.id, generation: h.generation });
}

/** The id of a handle (made again after a replaced instance when it can be). */
export function live(h) {
  ensureReady();
  if (h.generation !== instance.generation) {
    if (!h.remake) {
      throw new MemcoreError(
        'E_INTERNAL',
        `this ${h.kind} lived in a memcore instance that failed and was replaced; its state is lost — create a new one`,
      );
    }
    renew(h);
  }
  return h.id;
}

/** Let a handle be made again after a replaced instance (its state can be rebuilt). */
export function remakeable(h) {
  h.remake = true;
  return h;
}

export function currentGeneration() {
  return instance.generation;
}

// ─── The profile transport (src/wasm/profile.rs) ────────────────────────────────────────────
// A profile's lines are most of its bytes. `parseProfile` answers each line as its [start, end)
// in the text JS sent, and `renderProfile` sends the lines as one text and is answered with
// positions in it, so the text crosses once each way and is never decoded back: decoding
// non-ASCII UTF-8 costs 7 µs for a 6 KB profile, the slices under 1 µs (README, "Measured").
// Conversion only; every rule is in the core.

/** `parseProfile`'s answer, with its six sections' lines rebuilt from their positions in `text`. */
export function profileFromWire(text, out) {
  const wire = JSON.parse(out);
  const sections = new Array(wire.lines.length);
  // The first `\n` at or after `searched` is at `next` (Infinity: none): a search from a
  // position in [searched, next] needs no scan. Runs come in text order within a section, so
  // each character is scanned about once — a text whose lines end in `\r` has no `\n` to stop
  // a search, and searching from every line's start was quadratic there.
  let searched = Infinity;
  let next = -1;
  const newlineFrom = (from) => {
    if (from < searched || from > next) {
      searched = from;
      const at = text.indexOf('\n', from);
      next = at === -1 ? Infinity : at;
    }
    return next;
  };
  for (let s = 0; s < sections.length; s++) {
    const runs = wire.lines[s];
    const lines = [];
    for (let i = 0; i < runs.length; i++) {
      const item = runs[i];
      if (typeof item === 'string') {
        lines.push(item);
        continue;
      }
      const end = runs[++i];
      for (let from = item; ; ) {
        const at = newlineFrom(from);
        if (at >= end) {
          lines.push(text.slice(from, end));
          break;
        }
        lines.push(text.slice(from, at));
        from = at + 1;
      }
    }
    sections[s] = { heading: SECTION_HEADINGS[s], lines };
  }
  return { frontmatter: wire.frontmatter, title: wire.title, sections, diagnostics: wire.diagnostics };
}

/**
 * A profile for `renderProfileLines`: `{ head, text, counts, ranges }` — `frontmatter` and
 * `title` as JSON; each section's heading and lines as one text, each followed by `\n`; each
 * section's number of lines; and where each section's lines are in `text` ([start, end) pairs).
 * `undefined` when it is not plain data of that shape (a getter throws, a `toJSON`, a line that
 * is not a string, anything `json` refuses): it then goes as JSON, whose checks say what is
 * wrong.
 */
export function profileToWire(profile) {
  try {
    if (!plainObject(profile)) return undefined;
    const head = {};
    // Concatenation builds a rope that the encoder reads once; `join` would copy it first.
    let text = '';
    let counts = [];
    let ranges = [];
    for (const key of Object.keys(profile)) {
      const value = profile[key];
      if (key !== 'sections') {
        check(value, key, new Set());
        if (key === 'frontmatter' || key === 'title') head[key] = value;
        continue;
      }
      if (!Array.isArray(value) || typeof value.toJSON === 'function') return undefined;
      counts = new Array(value.length);
      ranges = new Array(2 * value.length);
      for (let i = 0; i < value.length; i++) {
        const section = value[i];
        if (!plainObject(section)) return undefined;
        let heading;
        let lines = [];
        for (const name of Object.keys(section)) {
          const field = section[name];
          if (name === 'heading') heading = field;
          else if (name === 'lines') lines = field === undefined ? [] : field;
          else check(field, name, new Set());
        }
        if (typeof heading !== 'string' || !Array.isArray(lines) || typeof lines.toJSON === 'function') return undefined;
        text += heading;
        text += '\n';
        ranges[2 * i] = text.length;
        for (let j = 0; j < lines.length; j++) {
          const line = lines[j];
          if (typeof line !== 'string') return undefined;
          text += line;
          text += '\n';
        }
        ranges[2 * i + 1] = text.length;
        counts[i] = lines.length;
      }
    }
    if (text.length > MAX_TEXT_LENGTH) return undefined;
    return { head: JSON.stringify(head), text, counts, ranges };
  } catch {
    return undefined;
  }
}

function plainObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && typeof value.toJSON !== 'function';
}

/** `renderProfileLines`' answer (strings, and section numbers) as the rendered text. */
export function piecesFromWire(wire, out) {
  const pieces = JSON.parse(out);
  let text = '';
  for (const piece of pieces) {
    text += typeof piece === 'string' ? piece : wire.text.slice(wire.ranges[2 * piece], wire.ranges[2 * piece + 1]);
  }
  return text;
}

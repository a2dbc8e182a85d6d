// Tokenizer tables, loaded on first use.
//
// Nothing is loaded at start. When the core needs a table it calls `tableHook`: an entry whose
// runtime can read bytes synchronously (Node, or a Worker that imported the table module) loads
// it there and then; otherwise the hook starts the download and answers "not yet", and
// `ready(encoding)` (or any async function, before it starts) waits for it.
import { MemcoreError } from '../errors.js';
import { invoke, isLoaded, loadTable } from './instance.js';
import { reason } from './arguments.js';

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

function syncSource(encoding) {
  const read = provided.get(encoding);
  if (read) return read;
  if (sources.sync) return () => sources.sync(encoding);
  return undefined;
}

export function tableHook(encoding) {
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

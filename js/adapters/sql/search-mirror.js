// The search mirror of the SQL stores (docs/reference/storage.md, "Search mirror"): per user, an
// InMemoryEntryStore holding that user's entries and the vectors of one model, which the core
// ranks in place (`searchIndex`, behaviour §8.2). A mirror is current while the user's revision in
// memcore_user_revisions (bumped by triggers in the writing transaction on every change but an
// access count) is the one it was built at. A mirror is kept only when the revision read before
// the rows equals the one read after them: then no write committed in between, and the rows are
// one state. Mirrors are bounded by their entries in all (least recently searched dropped first).
// A dropped mirror's memory is freed at once (`free()`), not when the garbage collector gets to
// it: the wasm heap never shrinks, and a collector that sees only a small JS object may not run
// for thousands of searches (measured: 1.3 MiB a user, 2.8 GB after 2,000 searches of 1,000
// users). A mirror just handed to a search is lent until the next macrotask — the core ranks it
// in the microtasks that follow the answer — and freed after that when it was dropped meanwhile.
import { InMemoryEntryStore } from '../sql-core.js';

/** The property through which the host adapter tells a lent mirror that its answer reached the core. */
const SEARCH_INDEX_ANSWERED = Symbol.for('memcore.searchIndexAnswered');
import { MemcoreError } from '../../errors.js';

/** The schema version that keeps search revisions (migration 6). */
export const MIRROR_SINCE = 6;

/** Entries all mirrors of one store may hold together, unless `searchMirror.maxEntries` says otherwise. */
export const DEFAULT_MIRROR_ENTRIES = 100000;

/** `options.searchMirror` of the open functions: `{ maxEntries }` (0: no mirror) → the bound. */
export function mirrorBound(fn, options) {
  const given = options?.searchMirror;
  if (given === undefined || given === null) return DEFAULT_MIRROR_ENTRIES;
  const max = typeof given === 'object' ? given.maxEntries ?? DEFAULT_MIRROR_ENTRIES : given;
  if (!Number.isSafeInteger(max) || max < 0) {
    throw new MemcoreError('E_CONFIG', `${fn}: options.searchMirror.maxEntries must be a non-negative integer (0: no search mirror)`, { path: 'searchMirror.maxEntries' });
  }
  return max;
}

export class SearchMirrors {
  #max;
  /** userId → { revision, model, size, store }, least recently searched first. */
  #mirrors = new Map();
  #total = 0;
  /** userId → the revision at which the user's entries were more than the bound (not read again until it changes). */
  #tooLarge = new Map();
  /** store → how many searches may still use it (answers not yet ranked, builds in progress). */
  #lent = new Map();
  /** store → the ends of its open loans, first answered first. */
  #loans = new Map();
  /** Dropped stores still lent: freed when their last loan ends. */
  #retired = new Set();
  /** The user of the last write a mirror followed (`holding`). */
  #lastWritten = null;

  constructor(maxEntries) {
    this.#max = maxEntries;
  }

  /**
   * The user's mirror with the vectors of `model` (null: none needed), current at the revision
   * `revision()` answers; `entries()` and `vectors(model)` read the rows. Null when the user's
   * entries alone exceed the bound (the core then lists them).
   */
  async index(userId, model, { revision, entries, vectors }) {
    if (this.#max === 0) return null;
    const before = await revision();
    if (this.#tooLarge.get(userId) === before) return null;
    const kept = this.#mirrors.get(userId);
    if (kept && kept.revision === before && (model === null || kept.model === model)) {
      this.#mirrors.delete(userId);
      this.#mirrors.set(userId, kept);
      return this.#lend(kept.store);
    }
    // A current mirror built without vectors gets the model's added; one with another model's is
    // rebuilt (never changed under a search that may still rank it with its own model).
    const rows = kept && kept.revision === before && kept.model === null ? null : await entries();
    if (rows !== null && rows.length > this.#max) {
      this.#drop(userId);
      if (this.#tooLarge.size >= 1000) this.#tooLarge.clear();
      this.#tooLarge.set(userId, before);
      return null;
    }
    this.#tooLarge.delete(userId);
    const store = rows === null ? kept.store : new InMemoryEntryStore();
    // Held until it is answered: another search may drop a kept mirror while this one awaits.
    this.#hold(store);
    try {
      const vectorRows = model === null ? [] : await vectors(model);
      store.load(rows ?? [], model === null ? null : { model, rows: vectorRows });
      const after = await revision();
      this.#drop(userId, store);
      this.#lend(store);
      if (after !== before) {
        // A write came in between: right for this search only.
        this.#retire(store);
        return store;
      }
    } catch (error) {
      if (store !== kept?.store) this.#retire(store);
      throw error;
    } finally {
      this.#unhold(store);
    }
    // Kept again even when another search dropped it meanwhile.
    this.#retired.delete(store);
    const mirror = { revision: before, model, size: rows?.length ?? kept.size, store };
    this.#mirrors.set(userId, mirror);
    this.#total += mirror.size;
    for (const [user] of this.#mirrors) {
      if (this.#total <= this.#max || user === userId) break;
      this.#drop(user);
    }
    return store;
  }

  /**
   * The user's kept mirror, which a write through this store may change in place, else null. One
   * lent to a search may change before that search ranks it: the core ranks in one synchronous
   * step after the answer (no loan spans a change), so the search then ranks a state committed
   * before it ranked, as a search started a moment later would.
   */
  changeable(userId) {
    return this.#mirrors.get(userId) ?? null;
  }

  /**
   * The kept mirror holding every id of `ids`, else null: whose entries a
   * write by id (`putVectors`) is, looked up in the user a write went to last (a vector follows
   * its entry's write).
   */
  holding(ids) {
    const kept = this.#mirrors.get(this.#lastWritten);
    if (kept === undefined) return null;
    return ids.every((id) => kept.store.get(id) !== null) ? { userId: this.#lastWritten, kept } : null;
  }

  /**
   * A write through this store that took the user's revision from `before` to `after` in one
   * transaction, nothing else committing between: the mirror `kept`, when it is still the user's
   * and was current at `before`, follows it in place with `change(store)` and is
   * current at `after` — no rebuild on the next search. Any other case leaves it to the revision
   * check (stale: rebuilt by the next search); `change` null (a write it cannot follow) or
   * throwing drops it.
   */
  advance(userId, kept, before, after, change) {
    if (this.#mirrors.get(userId) !== kept || kept.revision !== before || after === before) return;
    this.#lastWritten = userId;
    if (change === null) {
      this.#drop(userId);
      return;
    }
    try {
      change(kept.store);
    } catch {
      this.#drop(userId);
      return;
    }
    const size = kept.store.size;
    this.#total += size - kept.size;
    kept.size = size;
    kept.revision = after;
    if (size > this.#max) {
      this.#drop(userId);
      return;
    }
    for (const [user] of this.#mirrors) {
      if (this.#total <= this.#max) break;
      if (user !== userId) this.#drop(user);
    }
  }

  /** Drop the mirror holding entry `id`: a delete through this store (`forgetFact`, erasure) leaves no copy of the entry here. */
  forget(id) {
    for (const [userId, mirror] of this.#mirrors) {
      if (mirror.store.get(id) !== null) this.#drop(userId);
    }
  }

  /** Drop the user's mirror and free its store (unless it is `keep`, which is being reused). */
  #drop(userId, keep = null) {
    const old = this.#mirrors.get(userId);
    if (old === undefined) return;
    this.#mirrors.delete(userId);
    this.#total -= old.size;
    if (old.store !== keep) this.#retire(old.store);
  }

  /**
   * `store`, lent to the search it answers: the loan ends once the core has ranked it — when the
   * package's host adapter reports the answer delivered (`SEARCH_INDEX_ANSWERED`, after the core's
   * next poll) or at the next macrotask, whichever comes first (a synchronous driver in a loop of
   * searches may not reach a macrotask for a long time; an answer that is never delivered still
   * ends its loan).
   */
  #lend(store) {
    this.#hold(store);
    let open = true;
    const end = () => {
      if (!open) return;
      open = false;
      this.#unhold(store);
    };
    const pending = this.#loans.get(store) ?? [];
    pending.push(end);
    this.#loans.set(store, pending);
    store[SEARCH_INDEX_ANSWERED] = () => this.#loans.get(store)?.shift()?.();
    setTimeout(end, 0);
    return store;
  }

  #hold(store) {
    this.#lent.set(store, (this.#lent.get(store) ?? 0) + 1);
  }

  /** End one loan of `store`; after the last, a dropped store is freed. */
  #unhold(store) {
    const left = this.#lent.get(store) - 1;
    if (left > 0) {
      this.#lent.set(store, left);
      return;
    }
    this.#lent.delete(store);
    this.#loans.delete(store);
    if (this.#retired.delete(store)) store.free();
  }

  /** Free `store` now, or when its last loan ends. */
  #retire(store) {
    if (this.#lent.has(store)) this.#retired.add(store);
    else store.free();
  }
}

// The search mirror of the SQL stores (docs/reference/storage.md, "Search mirror"): per user, an
// InMemoryEntryStore holding that user's entries and the vectors of one model, which the core
// ranks in place (`searchIndex`, behaviour §8.2). A mirror is current while the user's revision in
// memcore_user_revisions (bumped by triggers in the writing transaction on every change but an
// access count) is the one it was built at. A mirror is kept only when the revision read before
// the rows equals the one read after them: then no write committed in between, and the rows are
// one state. Mirrors are bounded by their entries in all (least recently searched dropped first).
import { InMemoryEntryStore } from '../sql-core.js';
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
      return kept.store;
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
    const vectorRows = model === null ? [] : await vectors(model);
    store.load(rows ?? [], model === null ? null : { model, rows: vectorRows });
    const mirror = { revision: before, model, size: rows?.length ?? kept.size, store };
    const after = await revision();
    this.#drop(userId);
    if (after !== before) return store; // a write came in between: right for this search only
    this.#mirrors.set(userId, mirror);
    this.#total += mirror.size;
    for (const [user, old] of this.#mirrors) {
      if (this.#total <= this.#max || user === userId) break;
      this.#drop(user);
    }
    return store;
  }

  /** Drop the mirror holding entry `id`: a delete through this store (`forgetFact`, erasure) leaves no copy of the entry here. */
  forget(id) {
    for (const [userId, mirror] of this.#mirrors) {
      if (mirror.store.get(id) !== null) this.#drop(userId);
    }
  }

  #drop(userId) {
    const old = this.#mirrors.get(userId);
    if (old === undefined) return;
    this.#mirrors.delete(userId);
    this.#total -= old.size;
  }
}

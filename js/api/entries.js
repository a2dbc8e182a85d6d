// Entry memory (behaviour §2): the bundled store and the entry rules
import { argumentError, handle, invoke, json, live, optionalText, release, text } from '../wire.js';
import { parsed, STORE, stores } from './arguments.js';
import { toBase64 } from '../host.js';
import { checkTenantId, tenantViews } from '../tenants.js';

/**
 * The bundled in-memory entry store. Its entries live inside the wasm instance, so the tools
 * recall and search without copying entries across the boundary. It implements the host
 * interface itself (synchronously): list, get, upsert, delete, incrementAccess, countUser.
 */
export class InMemoryEntryStore {
  #tenant = null;
  #views = tenantViews((tenantId) => {
    const view = new InMemoryEntryStore();
    view.#tenant = tenantId;
    return view;
  });

  constructor() {
    // Not remade after a failed instance: its entries lived there.
    this[STORE] = handle(this, () => invoke((g) => g.entryStoreNew()), (g, id) => g.entryStoreFree(id), 'InMemoryEntryStore');
    stores.add(this);
  }
  #id() {
    return live(this[STORE]);
  }
  /**
   * Free the store's memory in the core now, instead of when the store is collected (the wasm
   * heap does not shrink, but what is freed is reused). Every later call is `E_ARGUMENT`; a
   * second `free()` does nothing.
   */
  free() {
    release(this[STORE]);
  }
  list(userId) {
    const u = text('InMemoryEntryStore.list', 'userId', userId);
    const store = this.#id();
    return parsed(invoke((g) => g.entryStoreList(store, u)));
  }
  get(id) {
    const i = text('InMemoryEntryStore.get', 'id', id);
    const store = this.#id();
    return parsed(invoke((g) => g.entryStoreGet(store, i)));
  }
  upsert(entry) {
    const e = json('InMemoryEntryStore.upsert', 'entry', entry);
    const store = this.#id();
    invoke((g) => g.entryStoreUpsert(store, e ?? 'null'));
  }
  delete(id) {
    const i = text('InMemoryEntryStore.delete', 'id', id);
    const store = this.#id();
    return invoke((g) => g.entryStoreDelete(store, i));
  }
  incrementAccess(ids) {
    const i = json('InMemoryEntryStore.incrementAccess', 'ids', ids);
    const store = this.#id();
    invoke((g) => g.entryStoreIncrementAccess(store, i ?? 'null'));
  }
  countUser(userId) {
    const u = text('InMemoryEntryStore.countUser', 'userId', userId);
    const store = this.#id();
    return invoke((g) => g.entryStoreCountUser(store, u));
  }
  /**
   * Insert or replace many entries in one call, then store `vectors.rows` (`[{ id, vector:
   * Uint8Array }]`) as vectors of `vectors.model` on those entries as they now are (a row whose
   * entry is not here is skipped). The number of vectors stored. How the SQL stores build the
   * search mirror they answer from `searchIndex`.
   */
  load(entries, vectors) {
    const fn = 'InMemoryEntryStore.load';
    const e = json(fn, 'entries', entries);
    let model = '';
    let rows = '[]';
    if (vectors !== undefined && vectors !== null) {
      model = text(fn, 'vectors.model', vectors.model);
      if (!Array.isArray(vectors.rows)) throw argumentError(fn, 'vectors.rows', 'must be an array of { id, vector: Uint8Array }');
      rows = JSON.stringify(
        vectors.rows.flatMap((row, i) => {
          if (typeof row?.id !== 'string' || !(row.vector instanceof Uint8Array)) throw argumentError(fn, `vectors.rows[${i}]`, 'must be { id: string, vector: Uint8Array }');
          return [row.id, toBase64(row.vector)];
        }),
      );
    }
    const store = this.#id();
    return invoke((g) => g.entryStoreLoad(store, e ?? 'null', model, rows));
  }
  /** The tenant this store holds (null: the default tenant). */
  get tenantId() {
    return this.#tenant;
  }
  /**
   * The store of tenant `tenantId`: a separate InMemoryEntryStore, the same one for the same id
   * (docs/reference/storage.md, "Tenants"); its users are not this store's, even with equal ids.
   */
  forTenant(tenantId) {
    checkTenantId(tenantId, 'InMemoryEntryStore.forTenant');
    if (this.#tenant !== null) {
      if (tenantId === this.#tenant) return this;
      throw argumentError('InMemoryEntryStore.forTenant', 'tenantId', `this store is tenant ${JSON.stringify(this.#tenant)}'s; it cannot see another`);
    }
    return this.#views(tenantId);
  }
  /** Number of entries of all users. */
  get size() {
    const store = this.#id();
    return invoke((g) => g.entryStoreSize(store));
  }
}

export function parseUserMemoryConfig(config) {
  const c = json('parseUserMemoryConfig', 'config', config);
  return parsed(invoke((g) => g.parseUserMemoryConfig(c)));
}
export function resolveMemoryTools(agentConfig, llmTaskConfig) {
  const a = json('resolveMemoryTools', 'agentConfig', agentConfig);
  const t = json('resolveMemoryTools', 'llmTaskConfig', llmTaskConfig);
  return parsed(invoke((g) => g.resolveMemoryTools(a, t)));
}
export function searchTerms(query) {
  const q = text('searchTerms', 'query', query);
  return parsed(invoke((g) => g.searchTerms(q)));
}
export function indexColumns(entries) {
  const e = json('indexColumns', 'entries', entries);
  return parsed(invoke((g) => g.indexColumns(e ?? 'null')));
}
export function searchPrefilter(query) {
  const q = text('searchPrefilter', 'query', query);
  return parsed(invoke((g) => g.searchPrefilter(q)));
}
export function matchesQuery(query, entry) {
  const q = text('matchesQuery', 'query', query);
  const e = json('matchesQuery', 'entry', entry);
  return invoke((g) => g.matchesQuery(q, e ?? 'null'));
}
export function isVisible(entry, agentId, group) {
  const e = json('isVisible', 'entry', entry);
  const a = text('isVisible', 'agentId', agentId);
  const gr = optionalText('isVisible', 'group', group);
  return invoke((g) => g.isVisible(e ?? 'null', a, gr));
}
export function filterClientContext(context) {
  const c = json('filterClientContext', 'context', context);
  return parsed(invoke((g) => g.filterClientContext(c ?? 'null')));
}
export function resolveGroupContext(inputs) {
  const i = json('resolveGroupContext', 'inputs', inputs);
  return invoke((g) => g.resolveGroupContext(i ?? 'null')) ?? null;
}
export function validateMemoryWrite(request, options) {
  const r = json('validateMemoryWrite', 'request', request);
  const o = json('validateMemoryWrite', 'options', options);
  return parsed(invoke((g) => g.validateMemoryWrite(r, o)));
}
export function toolDefinitions(config) {
  const c = json('toolDefinitions', 'config', config);
  return parsed(invoke((g) => g.toolDefinitions(c)));
}

// One SQL store (docs/reference/storage.md, "Adding a backend"): the entry store (with every pushed-down
// operation) and profile storage, over a *driver* (how statements reach the database) and a
// *dialect* (which statements, what the database can store). The SQLite, D1 and PostgreSQL
// adapters are each a driver + a dialect, in a subclass that names the store kind.
//
// A driver: `all(sql, params)` → rows, `first(sql, params)` → row or null, `run(sql, params)` →
// `{ changes }`, `atomic([[sql, params], …])` → `[{ rows, changes }, …]` (all or nothing), and
// optionally `transaction(body)`: run the generator `body(Q)` in one interactive transaction,
// answering each statement it yields (`Q.all`/`Q.first`/`Q.run`); a body may return
// `{ rollback: true, result }`. `local: true` says a transaction costs no round trip (a failed
// conditional write then reads the version it reports inside it). Its errors:
// `identityViolation(error)`, `duplicateId(error)` (undefined, or the id already stored / null),
// optionally `profileExists(error)` (a batched profile insert met a stored path), and
// `hostError(fn, error)` → the `E_HOST` MemcoreError.
//
// A synchronous driver (better-sqlite3) runs every method to completion before its Promise
// returns: no method awaits before its first statement.
import { searchPrefilter } from '../sql-core.js';
import { MemcoreError } from '../../errors.js';
import { checkTenantId, tenantViews } from '../../tenants.js';
import { versionConflict } from '../memory-storage.js';
import { checkWriteOptions, writeCondition } from '../storage-arguments.js';
import { ENTRY_COLUMNS, TENANT_SEPARATOR, argument, checkCap, checkEntries, checkEntry, checkIds, checkQuery, checkString, entryParams, identityConflict, idExists, rowEntry, unstorable } from './entry-rows.js';
import { checkProfilePath, importProfile, parseVersion, profileText } from './schema.js';
import { SearchMirrors } from './search-mirror.js';
import * as episode_store from './episode-store.js';
import * as history_store from './history-store.js';
import * as key_store from './key-store.js';
import * as operator_pages from './operator-pages.js';
import * as vector_store from './vector-store.js';
import { checkModel } from './vector-rows.js';

export { TENANT_SEPARATOR };
if (ENTRY_COLUMNS[0] !== 'id' || ENTRY_COLUMNS[1] !== 'user_id') throw new Error('storage.js: #nsRow expects id and user_id first');
/** The `tenant` option of an open function: null (the default tenant) or a checked tenant id (E_CONFIG otherwise). */
export function tenantOption(fn, options) {
  const tenant = options?.tenant;
  if (tenant === undefined || tenant === null) return null;
  try {
    return checkTenantId(tenant, fn);
  } catch (error) {
    throw new MemcoreError('E_CONFIG', `${fn}: options.tenant ${error.message.replace(/^[^:]*: a tenant id/, 'must be')}`, { path: 'tenant' });
  }
}

/** The statements a transaction body yields. */
export const Q = {
  all: (sql, params = []) => ['all', sql, params],
  first: (sql, params = []) => ['first', sql, params],
  run: (sql, params = []) => ['run', sql, params],
};

/** Run a transaction body on a synchronous `exec` (one statement request → its answer). */
export function drive(body, exec) {
  const steps = body(Q);
  for (let next = steps.next(); ; ) {
    if (next.done) return next.value;
    next = steps.next(exec(next.value));
  }
}

/** Run a transaction body on an asynchronous `exec`. */
export async function driveAsync(body, exec) {
  const steps = body(Q);
  for (let next = steps.next(); ; ) {
    if (next.done) return next.value;
    next = steps.next(await exec(next.value));
  }
}

export class SqlStorage {
  #driver;
  #dialect;
  #mirror;
  #mirrors;
  #tenant;
  #scope;
  /** What the store's concern modules (vector-store.js, history-store.js, …) act through. */
  #ctx;
  /** The `get`s of this tick, stored id → their callers (`#getInTick`); null between ticks. */
  #gets = null;
  #views = tenantViews((tenantId) => new SqlStorage(this.#driver, this.#dialect, this.#mirror, tenantId));

  /**
   * `mirror`: the bound of the search mirror in entries (0 or a schema without revisions: none);
   * `tenant`: the tenant this store is scoped to (null: the default tenant).
   */
  constructor(driver, dialect, mirror = 0, tenant = null) {
    this.#driver = driver;
    this.#dialect = dialect;
    this.#mirror = mirror;
    this.#mirrors = mirror > 0 ? new SearchMirrors(mirror) : null;
    this.#tenant = tenant === null ? null : checkTenantId(tenant, 'tenant');
    this.#scope = tenant === null ? null : `${tenant}${TENANT_SEPARATOR}`;
    // Without interactive transactions (D1) a capped insert cannot wait for its answer before
    // appending its history: the store does not offer `insertWithHistory` at all.
    if (!driver.transaction) this.insertWithHistory = undefined;
    this.#ctx = Object.freeze({
      store: this,
      driver,
      dialect,
      scope: this.#scope,
      tenant: this.#tenant,
      ns: (text) => this.#ns(text),
      plain: (text) => this.#plain(text),
      guard: (text, fn, name) => this.#guard(text, fn, name),
      unstorable: (text) => this.#unstorable(text),
      run: (fn, task, entry) => this.#run(fn, task, entry),
      write: (fn, userId, task, entry, change) => this.#write(fn, userId, task, entry, change),
      mirrorHolding: (ids) => (this.#driver.observe && this.#mirrors !== null ? this.#mirrors.holding(ids) : null),
      entries: (fn, sql, params) => this.#entries(fn, sql, params),
    });
  }

  /** The tenant this store sees (null: the default tenant, the rows written without one). */
  get tenantId() {
    return this.#tenant;
  }

  /**
   * The same database seen as tenant `tenantId`: every operation reads and writes only that
   * tenant's rows (equal user ids in two tenants are two users). The view shares the connection
   * (close the store it came from) and is kept for the next call with the same id.
   */
  forTenant(tenantId) {
    checkTenantId(tenantId, 'forTenant');
    if (this.#tenant !== null) {
      if (tenantId === this.#tenant) return this;
      throw new MemcoreError('E_ARGUMENT', `forTenant: this store is scoped to tenant ${JSON.stringify(this.#tenant)}; it cannot see another`, { function: 'forTenant', argument: 'tenantId' });
    }
    return this.#views(tenantId);
  }

  /**
   * The search index of a user (docs/reference/storage.md, "Search mirror"): an InMemoryEntryStore mirror
   * of the user's entries and of their vectors of `model` (null: none needed), current at the
   * user's revision; null when there is no mirror (it is off, or the user's entries exceed its
   * bound) — the core then lists the entries. The core ranks the mirror in place and reads what
   * it returns again with `get`.
   */
  async searchIndex(userId, model) {
    checkString(userId, 'searchIndex', 'userId');
    if (model !== null) checkModel(model, 'searchIndex', 'model', true);
    if (this.#mirrors === null || this.#unstorable(userId) || (model !== null && this.#unstorable(model))) return null;
    const SQL = this.#dialect.SQL;
    return this.#mirrors.index(userId, model, {
      revision: async () => revisionOf(await this.#run('searchIndex', () => this.#driver.first(SQL.searchRevision, [this.#ns(userId)]))),
      entries: () => this.list(userId),
      vectors: (m) => this.vectors(userId, m),
    });
  }

  async list(userId) {
    checkString(userId, 'list', 'userId');
    if (this.#unstorable(userId)) return [];
    return this.#entries('list', this.#dialect.SQL.list, [this.#ns(userId)]);
  }

  async get(id) {
    checkString(id, 'get', 'id');
    if (this.#unstorable(id)) return null;
    // A local driver reads at once (a statement costs no round trip, and the read sees exactly
    // what was committed before the call); elsewhere the reads of one tick share one statement.
    if (this.#driver.local) return (await this.#entries('get', this.#dialect.SQL.get, [this.#ns(id)]))[0] ?? null;
    return this.#getInTick(this.#ns(id));
  }

  /**
   * The entry of stored id `id`, read with the other `get`s of this tick in one statement (the
   * core asks for a search's hits all at once): the first call of a tick opens the batch, a
   * microtask later one `getEach` answers them all (one `get` alone stays a `get`); a failure is
   * every caller's.
   */
  #getInTick(id) {
    if (this.#gets === null) {
      const batch = new Map();
      this.#gets = batch;
      queueMicrotask(() => {
        this.#gets = null;
        this.#readBatch(batch);
      });
    }
    return new Promise((resolve, reject) => {
      const waiting = this.#gets.get(id);
      if (waiting) waiting.push({ resolve, reject });
      else this.#gets.set(id, [{ resolve, reject }]);
    });
  }

  async #readBatch(batch) {
    const { SQL, idList } = this.#dialect;
    const ids = [...batch.keys()];
    try {
      const rows = ids.length === 1 ? await this.#entries('get', SQL.get, ids) : await this.#entries('get', SQL.getEach, [idList(ids)]);
      const byId = new Map(rows.map((entry) => [entry.id, entry]));
      for (const [id, waiting] of batch) {
        const entry = byId.get(this.#plain(id)) ?? null;
        for (const { resolve } of waiting) resolve(entry);
      }
    } catch (error) {
      for (const waiting of batch.values()) for (const { reject } of waiting) reject(error);
    }
  }

  async upsert(entry) {
    const { SQL, limits, bool } = this.#dialect;
    const json = checkEntry(entry, 'upsert', limits);
    const params = entryParams(this.#nsEntry(entry, 'upsert'), json, bool);
    await this.#write('upsert', entry.userId, () => this.#driver.run(SQL.upsert, params), entry, () => (mirror) => mirror.upsert(entry));
  }

  async delete(id) {
    checkString(id, 'delete', 'id');
    if (this.#unstorable(id)) return false;
    const task = () => this.#driver.run(this.#dialect.SQL.delete, [this.#ns(id)]);
    // The user is the one whose mirror holds the entry (a delete names no user).
    const holder = this.#ctx.mirrorHolding([id]);
    const answer = holder === null ? await this.#run('delete', task) : await this.#write('delete', holder.userId, task, undefined, () => (mirror) => mirror.delete(id));
    const deleted = answer.changes > 0;
    if (deleted) this.#mirrors?.forget(id);
    return deleted;
  }

  async incrementAccess(ids) {
    checkIds(ids, 'incrementAccess');
    const known = ids.filter((id) => !this.#unstorable(id));
    if (known.length === 0) return;
    await this.#run('incrementAccess', () => this.#driver.run(this.#dialect.SQL.incrementAccess, [this.#dialect.idList(known.map((id) => this.#ns(id)))]));
  }

  async countUser(userId) {
    checkString(userId, 'countUser', 'userId');
    if (this.#unstorable(userId)) return 0;
    return Number((await this.#run('countUser', () => this.#driver.first(this.#dialect.SQL.countUser, [this.#ns(userId)]))).n);
  }

  async search(userId, query) {
    checkString(userId, 'search', 'userId');
    checkString(query, 'search', 'query');
    const plan = searchPrefilter(query);
    if (plan.long.length + plan.short.length === 0 || this.#unstorable(userId)) return [];
    const [sql, params] = this.#dialect.searchStatement(this.#ns(userId), plan);
    return this.#entries('search', sql, params);
  }

  async recall(query) {
    const { userId, agentId, groupId, order, limit } = checkQuery(query, 'recall', { order: true });
    const g = groupId ?? '';
    if (this.#unstorable(userId)) return [];
    // An agent or group id that cannot be stored matches no self/group row: '' never does either.
    const a = this.#unstorable(agentId) ? '' : agentId;
    const group = this.#unstorable(g) ? '' : g;
    const { SQL, recallParams } = this.#dialect;
    return this.#entries('recall', order === 'most_recent' ? SQL.recallRecent : SQL.recallAccessed, recallParams(order, this.#ns(userId), a, group, limit));
  }

  async findByKey(userId, key) {
    checkString(userId, 'findByKey', 'userId');
    checkString(key, 'findByKey', 'key');
    if (this.#unstorable(userId) || this.#unstorable(key)) return [];
    return this.#entries('findByKey', this.#dialect.SQL.findByKey, [this.#ns(userId), key]);
  }

  async oldestOwn(query) {
    const { userId, agentId, limit } = checkQuery(query, 'oldestOwn', { order: false });
    if (this.#unstorable(userId) || this.#unstorable(agentId)) return [];
    return this.#entries('oldestOwn', this.#dialect.SQL.oldestOwn, [this.#ns(userId), agentId, limit]);
  }

  /** The dialect's capped insert: `atomic` statements, or an interactive transaction body. */
  async insertWithinCap(entry, cap) {
    const { limits, bool } = this.#dialect;
    const json = checkEntry(entry, 'insertWithinCap', limits);
    const { maxEntries, evict } = checkCap(cap, 'insertWithinCap');
    const scoped = this.#nsEntry(entry, 'insertWithinCap');
    const plan = this.#dialect.capInsert(scoped, maxEntries, evict.map((id) => this.#ns(id)), entryParams(scoped, json, bool));
    const d = this.#driver;
    const task = () => (plan.statements ? then(d.atomic(plan.statements), plan.result) : d.transaction(plan.body));
    return this.#write('insertWithinCap', entry.userId, task, entry, capChange(plan, entry, evict));
  }

  /**
   * Insert every entry (an import) in one transaction (one `atomic` batch where the driver has no
   * interactive transaction), or none. With `{ profile: { path, text } }` the profile is created
   * in the same transaction (create-only: an existing one is `E_VERSION_CONFLICT`).
   */
  async insertAll(entries, options) {
    const { SQL, limits, bool, rowsPerInsert } = this.#dialect;
    const dialect = this.#dialect;
    const d = this.#driver;
    const rows = checkEntries(entries, 'insertAll', limits, bool).map((row, i) => this.#nsRow(row, 'insertAll', `entries[${i}]`));
    const imported = importProfile(options, 'insertAll', limits);
    const profile = imported && { ...imported, path: this.#nsPath(imported.path, 'insertAll') };
    // A local transaction is run even for nothing (it still fails on a closed database).
    if (rows.length === 0 && !profile && !d.local) return;
    const now = new Date().toISOString();
    if (!d.transaction) return this.#run('insertAll', () => this.#insertBatch(rows, profile, now));
    let at = 0;
    try {
      await d.transaction(function* (q) {
        for (const [sql, params, from] of insertStatements(dialect, rows)) {
          at = from;
          yield q.run(sql, params);
        }
        at = rows.length;
        if (!profile) return;
        const write = profileStatements(SQL, 'create', [profile.path, profile.text, now]);
        for (const [sql, params] of write.before) yield q.run(sql, params);
        if (!(yield q.first(...write.statement))) {
          const actual = yield q.first(SQL.profileVersion, [profile.path]);
          throw versionConflict(imported.path, null, actual ? String(actual.version) : null);
        }
      });
    } catch (error) {
      if (error instanceof MemcoreError) throw error;
      // One row a statement: the failing row is the entry; otherwise the driver may name it.
      const entry = rowsPerInsert === 1 ? entries[at] : undefined;
      const id = d.duplicateId(error);
      if (id !== undefined) throw idExists('insertAll', id === null ? entry?.id ?? null : this.#plain(id), error);
      throw this.#failure('insertAll', error, entry);
    }
  }

  async #insertBatch(rows, profile, now) {
    const { SQL } = this.#dialect;
    const d = this.#driver;
    const statements = insertStatements(this.#dialect, rows).map(([sql, params]) => [sql, params]);
    // The import's profile in the same batch: a plain insert, so an existing one fails it all.
    if (profile) {
      const write = profileStatements(SQL, 'insert', [profile.path, profile.text, now]);
      statements.push(...write.before, write.statement);
    }
    try {
      await d.atomic(statements);
    } catch (error) {
      if (profile && d.profileExists?.(error)) {
        const actual = await d.first(SQL.profileVersion, [profile.path]);
        throw versionConflict(this.#plain(profile.path), null, actual ? String(actual.version) : null);
      }
      const id = d.duplicateId(error);
      if (id !== undefined) throw idExists('insertAll', id === null ? null : this.#plain(id), error);
      throw error;
    }
  }

  vectors(userId, model) {
    return vector_store.vectors(this.#ctx, userId, model);
  }

  putVectors(rows) {
    return vector_store.putVectors(this.#ctx, rows);
  }

  unembedded(query) {
    return vector_store.unembedded(this.#ctx, query);
  }

  appendHistory(append) {
    return history_store.appendHistory(this.#ctx, append);
  }

  /** `appendHistory(append)` and `delete(id)` in one step (one round trip on PostgreSQL), both or neither. */
  async deleteWithHistory(id, append) {
    checkString(id, 'deleteWithHistory', 'id');
    if (this.#unstorable(id)) return false;
    const deleted = await history_store.deleteWithHistory(this.#ctx, id, append, [this.#ns(id)]);
    if (deleted) this.#mirrors?.forget(id);
    return deleted;
  }

  /**
   * `insertWithinCap(entry, cap)` and, when it writes, `appendHistory(append)` in one transaction,
   * both or neither (SQLite, PostgreSQL; a D1 store has no such method: D1 has no interactive
   * transactions, and the core then appends, then inserts).
   */
  async insertWithHistory(entry, cap, append) {
    const { limits, bool } = this.#dialect;
    const json = checkEntry(entry, 'insertWithHistory', limits);
    const { maxEntries, evict } = checkCap(cap, 'insertWithHistory');
    const scoped = this.#nsEntry(entry, 'insertWithHistory');
    // The plan of the checked append: a dialect may carry the append in its write statement.
    let plan;
    const planOf = (history) => (plan = this.#dialect.capInsert(scoped, maxEntries, evict.map((id) => this.#ns(id)), entryParams(scoped, json, bool), history));
    return history_store.insertWithHistory(this.#ctx, entry, planOf, append, (result) => capChange(plan, entry, evict)(result));
  }

  /** `appendHistory(append)` and `upsert(entry)` in one step (one round trip on PostgreSQL), both or neither. */
  async writeWithHistory(entry, append) {
    const { limits, bool } = this.#dialect;
    const json = checkEntry(entry, 'writeWithHistory', limits);
    const params = entryParams(this.#nsEntry(entry, 'writeWithHistory'), json, bool);
    await history_store.writeWithHistory(this.#ctx, entry, append, params);
  }

  auditLog(query) {
    return history_store.auditLog(this.#ctx, query);
  }

  eraseHistory(userId, record, renames) {
    return history_store.eraseHistory(this.#ctx, userId, record, renames);
  }

  versionsByAuthor(authorId) {
    return history_store.versionsByAuthor(this.#ctx, authorId);
  }

  idHolders(ids) {
    return history_store.idHolders(this.#ctx, ids);
  }

  entryPage(query) {
    return operator_pages.entryPage(this.#ctx, query);
  }

  userPage(query) {
    return operator_pages.userPage(this.#ctx, query);
  }

  storedUserIds() {
    return operator_pages.storedUserIds(this.#ctx);
  }

  deleteApiKeysOf(userId, options) {
    return key_store.deleteApiKeysOf(this.#ctx, userId, options);
  }

  historySize(userId) {
    return history_store.historySize(this.#ctx, userId);
  }

  /**
   * Apply the history journal now (a SQLite file opened read-write journals each write's history
   * and folds it every 64 writes and before any read of history; elsewhere nothing is journaled):
   * for a reader that cannot fold (a read-only open of the file) or before a copy of the file.
   * Answers how many journaled appends it applied.
   * @example
   * const store = await openSqlite('memcore.db');
   * await store.foldHistory(); // 0 when nothing waited
   */
  foldHistory() {
    return history_store.foldHistory(this.#ctx);
  }

  putEpisodes(episodes) {
    return episode_store.putEpisodes(this.#ctx, episodes);
  }

  episodes(query) {
    return episode_store.episodes(this.#ctx, query);
  }

  deleteEpisodes(userId, before) {
    return episode_store.deleteEpisodes(this.#ctx, userId, before);
  }

  putApiKey(row) {
    return key_store.putApiKey(this.#ctx, row);
  }

  getApiKey(id) {
    return key_store.getApiKey(this.#ctx, id);
  }

  listApiKeys(query) {
    return key_store.listApiKeys(this.#ctx, query);
  }

  revokeApiKey(id, at) {
    return key_store.revokeApiKey(this.#ctx, id, at);
  }

  versions(query) {
    return history_store.versions(this.#ctx, query);
  }

  async read(path) {
    this.#dialect.checkPath(path, 'read');
    if (this.#unstorable(path)) return null;
    const row = await this.#run('read', () => this.#driver.first(this.#dialect.SQL.profileRead, [this.#ns(path)]));
    return row ? { text: row.text, version: String(row.version) } : null;
  }

  async write(path, text, options = {}) {
    const { SQL, limits } = this.#dialect;
    const d = this.#driver;
    checkProfilePath(path, 'write', limits);
    profileText(text, 'write', limits);
    checkWriteOptions(options, 'write');
    const { ifAbsent, ifVersion } = writeCondition(options);
    const plainPath = path;
    path = this.#nsPath(path, 'write');
    const now = new Date().toISOString();
    let write;
    if (ifAbsent) write = profileStatements(SQL, 'create', [path, text, now]);
    else if (ifVersion === null) write = profileStatements(SQL, 'put', [path, text, now]);
    else {
      const expected = parseVersion(ifVersion);
      write = profileStatements(SQL, 'cas', expected === null ? null : [text, now, path, expected]);
    }
    let outcome;
    if (d.local) {
      // The statements and, on a conflict, the version it reports: one transaction.
      outcome = await this.#run('write', () => d.transaction(function* (q) {
        for (const [sql, params] of write.before) yield q.run(sql, params);
        const row = write.statement && (yield q.first(...write.statement));
        if (row) return { version: String(row.version) };
        const actual = yield q.first(SQL.profileVersion, [path]);
        return { conflict: actual ? String(actual.version) : null };
      }));
    } else {
      if (write.statement) {
        const results = await this.#run('write', () => d.atomic([...write.before, write.statement]));
        const row = results.at(-1).rows[0];
        if (row) return { version: String(row.version) };
      }
      const actual = await this.#run('write', () => d.first(SQL.profileVersion, [path]));
      outcome = { conflict: actual ? String(actual.version) : null };
    }
    if ('conflict' in outcome) throw versionConflict(plainPath, ifAbsent ? null : ifVersion, outcome.conflict);
    return outcome;
  }

  async remove(path) {
    this.#dialect.checkPath(path, 'remove');
    if (this.#unstorable(path)) return;
    await this.#run('remove', () => this.#driver.run(this.#dialect.SQL.profileRemove, [this.#ns(path)]));
  }

  /** Profiles need no folders in a table. */
  async ensureRoot(rootFolder) {
    this.#dialect.checkPath(rootFolder, 'ensureRoot');
  }

  /** Text this store cannot hold, or that would name another tenant's row: nothing is found by it. */
  #unstorable(text) {
    return unstorable(text, this.#dialect.limits.nul) || text.includes(TENANT_SEPARATOR);
  }

  /** A stored form of an id, user id or path: the tenant's prefix and the value. */
  #ns(text) {
    return this.#scope === null ? text : this.#scope + text;
  }

  /** The value of a stored id or path, without the tenant's prefix. */
  #plain(text) {
    return this.#scope !== null && typeof text === 'string' && text.startsWith(this.#scope) ? text.slice(this.#scope.length) : text;
  }

  /** E_ARGUMENT for a written id, user id or path holding the tenant separator. */
  #guard(text, fn, name) {
    if (typeof text === 'string' && text.includes(TENANT_SEPARATOR)) {
      throw new MemcoreError('E_ARGUMENT', `${fn}: ${name} may not contain U+001F (the tenant separator of the SQL stores)`, { function: fn, argument: name });
    }
    return text;
  }

  /** A checked entry with its id and user id in stored form. */
  #nsEntry(entry, fn) {
    this.#guard(entry.id, fn, 'entry.id');
    this.#guard(entry.userId, fn, 'entry.userId');
    return this.#scope === null ? entry : { ...entry, id: this.#ns(entry.id), userId: this.#ns(entry.userId) };
  }

  /** Entry params (ENTRY_COLUMNS order: id, user_id first) with the id and user id in stored form. */
  #nsRow(row, fn, at) {
    this.#guard(row[0], fn, `${at}.id`);
    this.#guard(row[1], fn, `${at}.userId`);
    if (this.#scope === null) return row;
    const out = row.slice();
    out[0] = this.#ns(row[0]);
    out[1] = this.#ns(row[1]);
    return out;
  }

  #nsPath(path, fn) {
    return this.#ns(this.#guard(path, fn, 'path'));
  }

  async #entries(fn, sql, params) {
    const rows = await this.#run(fn, () => this.#driver.all(sql, params));
    const parsed = this.#dialect.jsonParsed;
    if (this.#scope === null) return rows.map((row) => rowEntry(row, parsed));
    return rows.map((row) => {
      const entry = rowEntry(row, parsed);
      entry.id = this.#plain(entry.id);
      entry.userId = this.#plain(entry.userId);
      return entry;
    });
  }

  /**
   * `#run` of a write of `userId`'s entries (`task`, through the driver), so that the user's kept
   * search mirror follows it instead of being rebuilt by the next search: on a driver that can
   * watch a write in its transaction (better-sqlite3), the user's revision is read before and
   * after it there, and the mirror, when it was current before, gets `change(result)(store)` —
   * the write's own change, made to its copy — and is current after (`SearchMirrors.advance`).
   * Elsewhere, or with no mirror kept, `task` alone: the revision moves and the next search rebuilds.
   */
  async #write(fn, userId, task, entry, change) {
    const d = this.#driver;
    const kept = d.observe && this.#mirrors !== null && !this.#unstorable(userId) ? this.#mirrors.changeable(userId) : null;
    if (kept === null) return this.#run(fn, task, entry);
    const revision = () => revisionOf(d.first(this.#dialect.SQL.searchRevision, [this.#ns(userId)]));
    const { seen, result, now } = await this.#run(fn, () => d.observe(revision, task, revision), entry);
    this.#mirrors.advance(userId, kept, seen, now, change(result));
    return result;
  }

  async #run(fn, task, entry) {
    try {
      return await task();
    } catch (error) {
      throw this.#failure(fn, error, entry);
    }
  }

  #failure(fn, error, entry) {
    if (error instanceof MemcoreError) return error;
    if (entry && this.#driver.identityViolation(error)) return identityConflict(fn, entry, error);
    return this.#driver.hostError(fn, error);
  }
}

/** A user's search revision as read (`searchRevision`; no row: 0), as text. */
function revisionOf(row) {
  return String(row?.revision ?? 0);
}

/** `f(value)`, after it resolves when it is a promise (a driver's answer, synchronous or not). */
function then(value, f) {
  return value instanceof Promise ? value.then(f) : f(value);
}

/**
 * What a capped insert did, for the search mirror to do the same (`plan.change`, set by the
 * dialect's statements as they answer): its evictions, then the entry — or null when nothing is
 * known (no change recorded, or the update of a row of another id at the identity).
 */
function capChange(plan, entry, evict) {
  return (result) => {
    const done = plan.change;
    if (!result.written || !done) return null;
    return (mirror) => {
      if (done.evicted) for (const id of evict) mirror.delete(id);
      if (done.inserted) mirror.upsert(entry);
    };
  };
}

/** `insertAll`'s row inserts: `[sql, params, index of the first row]`, `rowsPerInsert` rows a statement. */
function insertStatements({ rowsPerInsert, insertRows }, rows) {
  const out = [];
  for (let i = 0; i < rows.length; i += rowsPerInsert) {
    const chunk = rows.slice(i, i + rowsPerInsert);
    out.push([insertRows(chunk.length), chunk.flat(), i]);
  }
  return out;
}

/**
 * A profile write: the statements `before` it (SQLite bumps the version counter first, even when
 * the write cannot happen) and the `statement` whose returned row carries the new version (null
 * when the write cannot happen: an unparsable `ifVersion`).
 */
function profileStatements(SQL, kind, params) {
  const name = { create: 'profileCreate', put: 'profilePut', cas: 'profileCas', insert: 'profileInsert' }[kind];
  return { before: SQL.bumpVersion ? [[SQL.bumpVersion, []]] : [], statement: params ? [SQL[name], params] : null };
}



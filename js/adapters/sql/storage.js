// One SQL store (docs/storage.md, "Adding a backend"): the entry store (with every pushed-down
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
import { ENTRY_COLUMNS, WRITER_FILTERS, argument, entryPageFilter, checkCap, checkEntries, checkEntry, checkIds, checkQuery, checkString, entryParams, identityConflict, idExists, rowEntry, scopeEnd, unstorable } from './entry-rows.js';
import { checkProfilePath, importProfile, parseVersion, profileText } from './schema.js';
import { SearchMirrors } from './search-mirror.js';
import { appendStatements, auditRecord, checkAppend, checkAuditQuery, checkErasure, checkRenames, checkVersionQuery } from './version-rows.js';
import { checkModel, checkUnembeddedQuery, checkVectorRows, keyOrderMatters, sameJson, vectorBytes } from './vector-rows.js';

/**
 * Tenants (docs/storage.md, "Tenants"): a store scoped to tenant `t` keeps every row's user id,
 * entry id, version id and profile path as `t` + U+001F + the value, and answers values without
 * the prefix; the default (unscoped) store keeps them as they are. No value a caller passes may hold
 * U+001F, so no id of one tenant can name a row of another.
 */
export const TENANT_SEPARATOR = '\u001f';
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
   * The search index of a user (docs/storage.md, "Search mirror"): an InMemoryEntryStore mirror
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
      revision: async () => String((await this.#run('searchIndex', () => this.#driver.first(SQL.searchRevision, [this.#ns(userId)])))?.revision ?? 0),
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
    return (await this.#entries('get', this.#dialect.SQL.get, [this.#ns(id)]))[0] ?? null;
  }

  async upsert(entry) {
    const { SQL, limits, bool } = this.#dialect;
    const json = checkEntry(entry, 'upsert', limits);
    const params = entryParams(this.#nsEntry(entry, 'upsert'), json, bool);
    await this.#run('upsert', () => this.#driver.run(SQL.upsert, params), entry);
  }

  async delete(id) {
    checkString(id, 'delete', 'id');
    if (this.#unstorable(id)) return false;
    const deleted = (await this.#run('delete', () => this.#driver.run(this.#dialect.SQL.delete, [this.#ns(id)]))).changes > 0;
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
    return this.#run('insertWithinCap', async () => (plan.statements ? plan.result(await d.atomic(plan.statements)) : d.transaction(plan.body)), entry);
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

  /** The user's stored vectors made by `model` (`[{ id, vector: Uint8Array }]`, any order). */
  async vectors(userId, model) {
    checkString(userId, 'vectors', 'userId');
    checkModel(model, 'vectors', 'model', true);
    if (this.#unstorable(userId) || this.#unstorable(model)) return [];
    const [sql, params] = this.#dialect.vectorsStatement(this.#ns(userId), model);
    let rows = await this.#run('vectors', () => this.#driver.all(sql, params));
    if (this.#dialect.vectorRows) {
      const packed = this.#dialect.vectorRows(rows);
      if (packed !== null) return this.#scope === null ? packed : packed.map((r) => ({ id: this.#plain(r.id), vector: r.vector }));
      rows = await this.#run('vectors', () => this.#driver.all(this.#dialect.SQL.vectors, [this.#ns(userId), model]));
    }
    const out = [];
    const bytesOf = this.#dialect.vectorOf ?? ((row) => vectorBytes(row.embedding));
    for (const row of rows) {
      const vector = bytesOf(row);
      if (vector !== null) out.push({ id: this.#plain(row.id), vector });
    }
    return out;
  }

  /**
   * Write each row's vector and model only while its entry still has exactly that key and value
   * (one guarded UPDATE a row, all in one transaction / batch); answers the rows written. A row
   * whose entry is gone or changed is skipped. Where values are stored as JSON text (SQLite, D1),
   * a row skipped whose value holds an object is re-checked against the stored text, as JSON:
   * the same value with its keys in another order is the same value.
   */
  async putVectors(rows) {
    const { limits } = this.#dialect;
    const checked = checkVectorRows(rows, 'putVectors', limits).filter((r) => r.json !== null);
    if (checked.length === 0) return 0;
    const blob = this.#driver.blob ?? ((v) => v);
    for (const [i, r] of checked.entries()) this.#guard(r.row.id, 'putVectors', `rows[${i}].id`);
    const statement = ({ row }, json) => this.#dialect.putVectorStatement(this.#ns(row.id), row.key, json, row.model, blob(row.vector));
    const results = await this.#run('putVectors', () => this.#driver.atomic(checked.map((r) => statement(r, r.json))));
    // Each statement updates at most one row (by primary key); D1 counts the rows the revision
    // triggers write in `changes` too, so a statement counts as one when it changed anything.
    let written = results.filter((r) => r.changes > 0).length;
    if (this.#dialect.jsonEquality !== 'text') return written;
    const retry = checked.filter((r, i) => results[i].changes === 0 && keyOrderMatters(r.row.value));
    if (retry.length === 0) return written;
    const { SQL, idList } = this.#dialect;
    const stored = new Map();
    for (const row of await this.#run('putVectors', () => this.#driver.all(SQL.storedValues, [idList(retry.map((r) => this.#ns(r.row.id)))]))) stored.set(this.#plain(row.id), row);
    const again = retry.flatMap((r) => {
      const now = stored.get(r.row.id);
      if (!now || now.key !== r.row.key || now.value === r.json) return [];
      let value;
      try {
        value = JSON.parse(now.value);
      } catch {
        return [];
      }
      // Guarded by the stored text itself: a write in between skips it.
      return sameJson(value, r.row.value) ? [statement(r, now.value)] : [];
    });
    if (again.length === 0) return written;
    const more = await this.#run('putVectors', () => this.#driver.atomic(again));
    written += more.filter((r) => r.changes > 0).length;
    return written;
  }

  /**
   * Entries (of `userId`, or of every user) with no vector or a vector of another model than
   * `model`, id ascending, ids `> after` when given, at most `limit`.
   */
  async unembedded(query) {
    const q = checkUnembeddedQuery(query, 'unembedded', this.#dialect.limits.nul);
    if (q.limit === 0 || (q.userId !== null && this.#unstorable(q.userId)) || (q.after !== null && q.after.includes(TENANT_SEPARATOR))) return [];
    // Every user's: this tenant's rows only (`scope`: the ids' prefix; null: ids without one).
    const [sql, params] = this.#dialect.unembeddedStatement({
      ...q, userId: q.userId === null ? null : this.#ns(q.userId), after: q.after === null ? null : this.#ns(q.after), scope: this.#scope,
    });
    return this.#entries('unembedded', sql, params);
  }

  /**
   * History (docs/storage.md, "History"): insert the versions (an id already stored is skipped)
   * and the audit records, keep each versioned entry's newest `maxVersionsPerEntry`, drop the
   * user's versions and audit records from before `notBefore` — one transaction.
   */
  async appendHistory(append) {
    const { SQL, limits } = this.#dialect;
    const checked = checkAppend(append, 'appendHistory', limits);
    this.#guard(checked.userId, 'appendHistory', 'append.userId');
    checked.versions.forEach((v, i) => {
      this.#guard(v.id, 'appendHistory', `append.versions[${i}].id`);
      this.#guard(v.entryId, 'appendHistory', `append.versions[${i}].entryId`);
    });
    const userId = this.#ns(checked.userId);
    const scoped = {
      ...checked,
      userId,
      versions: checked.versions.map((v) => ({ ...v, id: this.#ns(v.id), userId, entryId: this.#ns(v.entryId) })),
      audit: checked.audit.map((r) => ({ ...r, userId })),
    };
    await this.#run('appendHistory', () => this.#driver.atomic(appendStatements(SQL, scoped)));
  }

  /** The audit records of `query.userId` (or every user's) from `since`, after `afterSeq`, at most `limit`, in `seq` order. */
  async auditLog(query) {
    const { userId, since, afterSeq, limit } = checkAuditQuery(query, 'auditLog');
    if (userId !== null && this.#unstorable(userId)) return [];
    const { SQL } = this.#dialect;
    // Every user's: this tenant's records only.
    const [sql, params] = userId !== null ? [SQL.auditOfUser, [this.#ns(userId), since, afterSeq, limit]]
      : this.#scope === null ? [SQL.auditOfAll, [since, afterSeq, limit]] : [SQL.auditOfTenant, [this.#scope, scopeEnd(this.#scope), since, afterSeq, limit]];
    return (await this.#run('auditLog', () => this.#driver.all(sql, params))).map(auditRecord);
  }

  /**
   * Erase the user's history (Art. 17): every version and audit record of the user, and the
   * erasure's own record appended — one transaction. Answers what was removed.
   */
  async eraseHistory(userId, record, renames) {
    const { SQL, limits } = this.#dialect;
    const row = checkErasure(userId, record, 'eraseHistory', limits);
    const renamed = checkRenames(renames, 'eraseHistory', limits);
    this.#guard(userId, 'eraseHistory', 'userId');
    this.#guard(row.userId, 'eraseHistory', 'record.userId');
    const user = this.#ns(userId);
    const statements = [[SQL.eraseVersions, [user]], [SQL.eraseAudit, [user]]];
    // Other users' history that named the user as the one who acted (behaviour §8.3): audit
    // records of this tenant renamed in place, versions replaced by their renamed states.
    if (renamed.pseudonym !== null) {
      this.#guard(renamed.pseudonym, 'eraseHistory', 'renames.pseudonym');
      statements.push(this.#scope === null ? [SQL.renameActor, [renamed.pseudonym, userId]] : [SQL.renameActorTenant, [renamed.pseudonym, userId, this.#scope, scopeEnd(this.#scope)]]);
    }
    for (const [i, { replaces, row: v }] of renamed.versions.entries()) {
      for (const [name, value] of [['replaces', replaces], ['version.id', v.id], ['version.userId', v.userId], ['version.entryId', v.entryId]]) this.#guard(value, 'eraseHistory', `renames.versions[${i}].${name}`);
      statements.push([SQL.deleteVersion, [this.#ns(replaces)]], [SQL.appendVersion, [this.#ns(v.id), this.#ns(v.userId), this.#ns(v.entryId), v.key, v.validUntil, v.body]]);
    }
    statements.push([SQL.appendAudit, [row.at, this.#ns(row.userId), row.operation, row.body]]);
    const results = await this.#run('eraseHistory', () => this.#driver.atomic(statements));
    const answer = { versions: results[0].changes, audit: results[1].changes };
    if (renamed.pseudonym === null) return answer;
    let versions = 0;
    for (let i = 0; i < renamed.versions.length; i += 1) versions += results[3 + 2 * i].changes;
    return { ...answer, renamed: { audit: results[2].changes, versions } };
  }

  /** The versions of any user of this tenant that `authorId` ended (an erasure renames them). */
  async versionsByAuthor(authorId) {
    checkString(authorId, 'versionsByAuthor', 'authorId');
    if (unstorable(authorId, this.#dialect.limits.nul)) return [];
    const { SQL } = this.#dialect;
    const [sql, params] = this.#scope === null ? [SQL.versionsByAuthor, [authorId]] : [SQL.versionsByAuthorTenant, [authorId, this.#scope, scopeEnd(this.#scope)]];
    const rows = await this.#run('versionsByAuthor', () => this.#driver.all(sql, params));
    return rows.map((row) => JSON.parse(row.body));
  }

  /**
   * Who holds each of `ids` (behaviour §8.3, "Entry ids"): `[{ id, userId, current }]` — the user
   * of the current entry with the id, and each user whose kept versions carry it.
   */
  async idHolders(ids) {
    checkIds(ids, 'idHolders');
    const known = ids.filter((id) => !this.#unstorable(id));
    if (known.length === 0) return [];
    const { SQL, idList } = this.#dialect;
    const list = idList(known.map((id) => this.#ns(id)));
    // The current entries holding the ids, and the users whose versions carry them: one statement.
    const rows = await this.#run('idHolders', () => this.#driver.all(SQL.idHolders, this.#dialect.idHoldersParams(list)));
    return rows.map((row) => ({ id: this.#plain(row.id), userId: this.#plain(row.user_id), current: Number(row.current) === 1 }));
  }

  /**
   * A page of a user's entries for operators: `{ entries, total }` — the non-reserved entries,
   * newest first (the core's recency rule: `updatedAt`, then id), `offset` skipped, at most `limit`
   * (1–1000), kept by the filters given (`category`, `visibility`, `agentId`: equal; `writtenBy`:
   * a writer kind, `written` for any known kind but `learned`, `unknown` for none), and how many
   * entries the filters keep in all. Two statements; nothing else of the user is read.
   */
  async entryPage({ userId, limit = 50, offset = 0, category, visibility, agentId, writtenBy } = {}) {
    checkString(userId, 'entryPage', 'userId');
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw argument('entryPage', 'limit', 'entryPage: limit must be an integer from 1 to 1000');
    if (!Number.isSafeInteger(offset) || offset < 0) throw argument('entryPage', 'offset', 'entryPage: offset must be an integer from 0');
    for (const [name, value] of [['category', category], ['visibility', visibility], ['agentId', agentId]]) {
      if (value !== undefined && value !== null && typeof value !== 'string') throw argument('entryPage', name, `entryPage: ${name} must be a string`);
    }
    if (writtenBy !== undefined && writtenBy !== null && !WRITER_FILTERS.includes(writtenBy)) {
      throw argument('entryPage', 'writtenBy', `entryPage: writtenBy must be one of ${WRITER_FILTERS.join(', ')}`);
    }
    if (this.#unstorable(userId) || [category, visibility, agentId].some((v) => typeof v === 'string' && unstorable(v, this.#dialect.limits.nul))) return { entries: [], total: 0 };
    const { where, params } = entryPageFilter({ category, visibility, agentId, writtenBy });
    const [page, count] = this.#dialect.entryPage(where);
    const user = this.#ns(userId);
    const entries = await this.#entries('entryPage', page, [user, ...params, limit, offset]);
    const { n } = await this.#run('entryPage', () => this.#driver.first(count, [user, ...params]));
    return { entries, total: Number(n) };
  }

  /**
   * A page of this store's users (its tenant's) for operators: those with entries or episodes,
   * in id order (byte order), from after `after`, whose id starts with `prefix`, at most `limit`
   * (1–200): `{ users: [{ userId, entries, episodes, lastActivity, restricted }], next }` — `next`
   * the `after` of the next page, or null. `entries` excludes the reserved `_gdpr_` keys;
   * `lastActivity` is the newest entry update or episode.
   */
  async userPage({ prefix = '', after = null, limit = 50 } = {}) {
    if (typeof prefix !== 'string') throw argument('userPage', 'prefix', 'userPage: prefix must be a string');
    if (after !== null && typeof after !== 'string') throw argument('userPage', 'after', 'userPage: after must be a user id or null');
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw argument('userPage', 'limit', 'userPage: limit must be an integer from 1 to 200');
    const { SQL, userPageParams, userSummaryParams } = this.#dialect;
    const start = this.#ns(prefix);
    const from = after === null ? '' : this.#ns(after);
    const plain = this.#scope === null;
    const rows = await this.#run('userPage', () => this.#driver.all(SQL.userPage, userPageParams(from, start, plain, limit + 1)));
    const page = rows.slice(0, limit).map((r) => r.user_id);
    const users = [];
    for (const stored of page) {
      const s = await this.#run('userPage', () => this.#driver.first(SQL.userSummary, userSummaryParams(stored)));
      const last = [s.last_entry, s.last_episode].filter((t) => typeof t === 'string').sort().at(-1) ?? null;
      users.push({ userId: this.#plain(stored), entries: Number(s.entries), episodes: Number(s.episodes), lastActivity: last, restricted: Number(s.restricted) > 0 });
    }
    return { users, next: rows.length > limit ? users.at(-1).userId : null };
  }

  /**
   * Every user id the database holds rows of — entries, versions, audit records (an erasure's own
   * record aside) and API keys — in every tenant: `[{ tenantId, userId }]` (`tenantId` null: the
   * default tenant). For the one-off repair of ids memcore now refuses (`findInvalidUserIds`,
   * `memcore doctor`); on the database's store, not on a tenant view.
   */
  async storedUserIds() {
    if (this.#tenant !== null) {
      throw new MemcoreError('E_ARGUMENT', 'storedUserIds: call it on the database\'s store, not on a tenant view (it lists every tenant)', { function: 'storedUserIds', argument: 'this' });
    }
    const rows = await this.#run('storedUserIds', () => this.#driver.all(this.#dialect.SQL.storedUserIds, []));
    return rows.map(({ user_id: stored }) => {
      const at = stored.indexOf(TENANT_SEPARATOR);
      return at < 0 ? { tenantId: null, userId: stored } : { tenantId: stored.slice(0, at), userId: stored.slice(at + 1) };
    });
  }

  /**
   * Delete the API keys of `userId` (an erasure ends the user's access): in `options.tenantId`
   * when given (null: the default tenant; keys are the database's, as for `listApiKeys`), else in
   * this store's own tenant. How many were deleted.
   */
  async deleteApiKeysOf(userId, options) {
    checkString(userId, 'deleteApiKeysOf', 'userId');
    const given = options?.tenantId;
    const tenant = given === undefined ? this.#tenant : given === null ? null : checkTenantId(given, 'deleteApiKeysOf');
    const result = await this.#run('deleteApiKeysOf', () => this.#driver.run(this.#dialect.SQL.deleteApiKeysOfUser, [tenant ?? '', userId]));
    return result.changes;
  }

  /** How many versions and audit records the store keeps of the user. */
  async historySize(userId) {
    checkString(userId, 'historySize', 'userId');
    if (this.#unstorable(userId)) return { versions: 0, audit: 0 };
    const row = await this.#run('historySize', () => this.#driver.first(this.#dialect.SQL.historySize, [this.#ns(userId), this.#ns(userId)]));
    return { versions: Number(row.versions), audit: Number(row.audit) };
  }

  /**
   * Store episodes (behaviour §8.6) whose id is not stored yet, in one transaction; answers how
   * many were new. Ids and user ids are kept under the store's tenant.
   */
  async putEpisodes(episodes) {
    if (!Array.isArray(episodes)) throw argument('putEpisodes', 'episodes', 'putEpisodes: episodes must be an array of episodes');
    const rows = [];
    for (const e of episodes) {
      for (const field of ['id', 'userId', 'conversationId', 'at']) checkString(e?.[field], 'putEpisodes', `episodes[].${field}`);
      const body = JSON.stringify(e);
      if ([e.id, e.userId, e.conversationId, e.at].some((t) => this.#unstorable(t))) continue;
      rows.push([this.#dialect.SQL.putEpisode, [this.#ns(e.id), this.#ns(e.userId), e.conversationId, e.at, body]]);
    }
    if (rows.length === 0) return 0;
    const results = await this.#run('putEpisodes', () => this.#driver.atomic(rows));
    return results.filter((r) => r.changes > 0).length;
  }

  /** The episodes `{ userId, conversationId?, notBefore? }` names, oldest first. */
  async episodes(query) {
    if (query === null || typeof query !== 'object') throw argument('episodes', 'query', 'episodes: query must be { userId, conversationId?, notBefore? }');
    const { userId, conversationId = null, notBefore = null } = query;
    checkString(userId, 'episodes', 'query.userId');
    if (this.#unstorable(userId) || (conversationId !== null && this.#unstorable(conversationId))) return [];
    const { SQL } = this.#dialect;
    const since = typeof notBefore === 'string' ? notBefore : '';
    const [sql, params] = conversationId === null ? [SQL.episodesOfUser, [this.#ns(userId), since]] : [SQL.episodesOfConversation, [this.#ns(userId), conversationId, since]];
    const rows = await this.#run('episodes', () => this.#driver.all(sql, params));
    return rows.map((row) => JSON.parse(row.body));
  }

  /** Delete the user's episodes from before `before`, or all of them (`null`); answers how many. */
  async deleteEpisodes(userId, before) {
    checkString(userId, 'deleteEpisodes', 'userId');
    if (this.#unstorable(userId)) return 0;
    const { SQL } = this.#dialect;
    const [sql, params] = typeof before === 'string' ? [SQL.deleteEpisodesBefore, [this.#ns(userId), before]] : [SQL.deleteEpisodesOfUser, [this.#ns(userId)]];
    return (await this.#run('deleteEpisodes', () => this.#driver.run(sql, params))).changes;
  }

  /**
   * Store a new API key (memcore/server `apiKeys`): `{ id, hash, tenantId, userId, record }`. Keys
   * are the database's, not a tenant view's: every view reads and writes the same keys, each
   * carrying its own `tenantId` (null: the default tenant).
   */
  async putApiKey(row) {
    const { id, hash, tenantId, userId, record } = checkKeyRow(row);
    await this.#run('putApiKey', () => this.#driver.run(this.#dialect.SQL.putApiKey, [id, hash, tenantId ?? '', userId, JSON.stringify(record)]));
  }

  /** The stored API key `id` (its digest, never a secret), or null. */
  async getApiKey(id) {
    if (typeof id !== 'string') throw new MemcoreError('E_ARGUMENT', 'getApiKey: id must be a string', { function: 'getApiKey', argument: 'id' });
    const row = await this.#run('getApiKey', () => this.#driver.first(this.#dialect.SQL.getApiKey, [id]));
    return row ? keyRow(row) : null;
  }

  /** The API keys of `tenantId` (null: the default tenant), of `userId` when given. */
  async listApiKeys({ tenantId = null, userId } = {}) {
    const { SQL } = this.#dialect;
    const [sql, params] = userId === undefined ? [SQL.listApiKeys, [tenantId ?? '']] : [SQL.listApiKeysOfUser, [tenantId ?? '', userId]];
    return (await this.#run('listApiKeys', () => this.#driver.all(sql, params))).map(keyRow);
  }

  /** Revoke the API key `id` at `at`: true when it was live. */
  async revokeApiKey(id, at) {
    const result = await this.#run('revokeApiKey', () => this.#driver.run(this.#dialect.SQL.revokeApiKey, [at, id]));
    return result.changes > 0;
  }

  /** The versions of `query.userId` (of `query.entryId`, or whose key was `query.key`), any order. */
  async versions(query) {
    const { userId, entryId, key } = checkVersionQuery(query, 'versions');
    if (this.#unstorable(userId) || (entryId !== null && this.#unstorable(entryId)) || (key !== null && this.#unstorable(key))) return [];
    const { SQL } = this.#dialect;
    const user = this.#ns(userId);
    const [sql, params] = entryId !== null ? [SQL.versionsOfEntry, [user, this.#ns(entryId)]] : key !== null ? [SQL.versionsOfKey, [user, key]] : [SQL.versionsOfUser, [user]];
    const rows = await this.#run('versions', () => this.#driver.all(sql, params));
    return rows.map((row) => JSON.parse(row.body));
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

/** An API key row as putApiKey takes it (memcore/server checked its parts). */
function checkKeyRow(row) {
  const ok = row !== null && typeof row === 'object' && typeof row.id === 'string' && /^[0-9a-f]{64}$/.test(row.hash ?? '')
    && (row.tenantId === null || row.tenantId === undefined || typeof row.tenantId === 'string') && typeof row.userId === 'string' && row.record !== null && typeof row.record === 'object';
  if (!ok) throw new MemcoreError('E_ARGUMENT', 'putApiKey: row must be { id, hash (SHA-256 hex), tenantId, userId, record }', { function: 'putApiKey', argument: 'row' });
  return row;
}

/** An API key row as the key store contract answers it. */
function keyRow(row) {
  return { id: row.id, hash: row.hash, tenantId: row.tenant_id === '' ? null : row.tenant_id, userId: row.user_id, record: JSON.parse(row.body), revokedAt: row.revoked_at ?? null };
}

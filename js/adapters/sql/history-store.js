// History and the audit log of the SQL stores (docs/reference/storage.md, "History"): SqlStorage's history
// methods, as functions of the store's context (storage.js).
import { argument, checkIds, checkString, scopeEnd, unstorable } from './entry-rows.js';
import { appendStatements, auditRecord, checkAppend, checkAuditQuery, checkErasure, checkRenames, checkVersionQuery } from './version-rows.js';

/** The schema version that has the history journal (sql/sqlite/013_history_journal.sql). */
export const JOURNAL_SINCE = 13;

/**
 * Journaled appends between two folds: the write that journals the 64th folds them all. Measured
 * (docs/internals/measurements.md, "History"): a fold's pages are shared by its appends, so an
 * update with history writes ~2 pages a commit more than without instead of ~12; a fold of 64
 * is one transaction of some milliseconds, once in 64 writes.
 */
export const JOURNAL_FOLD_AT = 64;

/**
 * The statements that append `scoped` with a write: on a SQLite file (`driver.journal` 'fold'),
 * one journal row — the append's user, its tenant prefix, its retention, and its versions and
 * audit records as JSON arrays of the bodies `checkAppend` made (its statement answers the
 * journal's count, `n`); else the dialect's one statement (PostgreSQL) or the append's statements
 * (D1, a read-only file).
 */
function appendList(ctx, scoped) {
  const { SQL, appendHistoryStatement } = ctx.dialect;
  if (ctx.driver.journal === 'fold') {
    const { versions, audit, userId, max, notBefore } = scoped;
    return [[SQL.journalAppend, [userId, ctx.scope ?? '', max, notBefore, `[${versions.map((v) => v.body).join(',')}]`, `[${audit.map((r) => r.body).join(',')}]`]]];
  }
  return appendHistoryStatement ? [appendHistoryStatement(scoped)] : appendStatements(SQL, scoped);
}

/**
 * After a write that journaled its append (`results`: its atomic answers, the journal's first):
 * the fold, when the journal holds `JOURNAL_FOLD_AT` appends. The write has committed whatever
 * the fold does: a fold that fails leaves the journal as it was, for the next fold (the next
 * read of history, the next 64th write, `close()`) to apply — and that one reports it.
 */
async function foldWhenFull(ctx, journaled) {
  if (journaled === null || journaled < JOURNAL_FOLD_AT) return;
  try {
    await foldHistory(ctx);
  } catch {
    // Kept in the journal: applied and reported by the next fold.
  }
}

/** The journal's count answered by a write's atomic results (`null`: not journaled). */
function journaledCount(ctx, results) {
  return ctx.driver.journal === 'fold' ? Number(results[0].rows[0].n) : null;
}

/**
 * Fold the history journal (SQLite files; elsewhere nothing to do): each journaled append applied
 * in order — the statements an append made directly runs, so the same versions and audit records
 * are kept — and the journal emptied, in one transaction. Answers how many appends it applied.
 * Every read of history folds first, so it reads every append; a read-only open cannot, and reads
 * the history as last folded (docs/reference/storage.md, "History").
 */
export async function foldHistory(ctx) {
  if (ctx.driver.journal !== 'fold') return 0;
  const { SQL } = ctx.dialect;
  // The journal is empty at most reads: a read, not a write transaction, finds that.
  if (Number((await ctx.run('foldHistory', () => ctx.driver.first(SQL.journalPending, []))).pending) === 0) return 0;
  return ctx.run('foldHistory', () => ctx.driver.transaction((q) => foldSteps(SQL, q)));
}

/**
 * The fold's steps in a transaction of the caller's (`q`): answers how many appends it applied.
 * The appends' statements in order (each journal row read back as the append it was), less those
 * a later one of the batch makes redundant: a trim of an entry followed by a trim of the same
 * entry to as few versions, an expiry of a user's history followed by one of the same user from
 * as late. Both only delete from the old end of what they read (the oldest versions, the records
 * before a time), so the later one deletes all the earlier would have, and what was appended
 * between. (Measured: folding the batch as a set in SQL — its versions and records inserted by
 * one statement each from the rows' JSON — cost more than this, SQLite parsing each body once per
 * column it reads; docs/internals/measurements.md, "History".)
 */
function* foldSteps(SQL, q) {
  const rows = yield q.all(SQL.journalRows, []);
  const statements = rows.flatMap((row) => appendStatements(SQL, journaledAppend(row)));
  const later = new Map();
  const needed = [];
  for (let i = statements.length - 1; i >= 0; i -= 1) {
    const [sql, params] = statements[i];
    // Trims: [entryId, userId, entryId, max]; expiries: [userId, notBefore].
    const kind = sql === SQL.keepNewestVersions ? `t${JSON.stringify(params.slice(0, 2))}` : sql === SQL.dropExpiredVersions ? `v${params[0]}` : sql === SQL.dropExpiredAudit ? `a${params[0]}` : null;
    if (kind !== null) {
      const bound = params[params.length - 1];
      const seen = later.get(kind);
      if (seen !== undefined && (kind[0] === 't' ? seen <= bound : seen >= bound)) continue;
      later.set(kind, seen === undefined ? bound : kind[0] === 't' ? Math.min(seen, bound) : seen > bound ? seen : bound);
    }
    needed.push(statements[i]);
  }
  for (let i = needed.length - 1; i >= 0; i -= 1) yield q.run(needed[i][0], needed[i][1]);
  if (rows.length > 0) yield q.run(SQL.journalClear, [rows[rows.length - 1].n]);
  return rows.length;
}

/**
 * A journal row as the append `checkAppend` and `scopedAppend` made (`appendStatements`'
 * argument): each version's and record's columns read from its object, its ids given the row's
 * tenant prefix, its body the object's JSON again (JSON.stringify of what JSON.parse read from
 * JSON.stringify's text is that text).
 */
function journaledAppend(row) {
  const { user_id: userId, scope } = row;
  const versions = JSON.parse(row.versions).map((v) => ({ id: scope + v.id, userId, entryId: scope + v.entryId, key: v.key, validUntil: v.validUntil, body: JSON.stringify(v) }));
  const audit = JSON.parse(row.audit).map((r) => ({ at: r.at, userId, operation: r.operation, body: JSON.stringify(r) }));
  return { versions, audit, userId, max: Number(row.max_versions), notBefore: row.not_before };
}

/**
 * History (docs/reference/storage.md, "History"): insert the versions (an id already stored is skipped)
 * and the audit records, keep each versioned entry's newest `maxVersionsPerEntry`, drop the
 * user's versions and audit records from before `notBefore` — one transaction (PostgreSQL: one
 * statement; a SQLite file: one journal row, folded later).
 */
export async function appendHistory(ctx, append) {
  const scoped = scopedAppend(ctx, append, 'appendHistory');
  const results = await ctx.run('appendHistory', () => ctx.driver.atomic(appendList(ctx, scoped)));
  await foldWhenFull(ctx, journaledCount(ctx, results));
}

/**
 * `writeWithHistory(entry, append)`: the append, then the entry's upsert (`params`, the upsert's
 * parameters), both or neither — the dialect's one statement (PostgreSQL: a data-modifying CTE,
 * one round trip), else one `atomic` list (SQLite: one transaction; D1: one batch).
 */
export async function writeWithHistory(ctx, entry, append, params) {
  const scoped = scopedAppend(ctx, append, 'writeWithHistory');
  if (scoped.userId !== ctx.ns(entry.userId)) {
    throw argument('writeWithHistory', 'append.userId', 'writeWithHistory: append.userId must be entry.userId');
  }
  const { SQL, writeWithHistoryStatement } = ctx.dialect;
  const statements = writeWithHistoryStatement ? [writeWithHistoryStatement(params, scoped)] : [...appendList(ctx, scoped), [SQL.upsert, params]];
  const results = await ctx.write('writeWithHistory', entry.userId, () => ctx.driver.atomic(statements), entry, () => (mirror) => mirror.upsert(entry));
  await foldWhenFull(ctx, journaledCount(ctx, results));
}

/**
 * `deleteWithHistory(id, append)`: the append, then the delete of entry `id` (`params`, the
 * delete's parameters), both or neither — PostgreSQL one statement, else one `atomic` list.
 * Answers whether the entry was there.
 */
export async function deleteWithHistory(ctx, id, append, params) {
  const scoped = scopedAppend(ctx, append, 'deleteWithHistory');
  const { SQL, deleteWithHistoryStatement } = ctx.dialect;
  const statements = deleteWithHistoryStatement ? [deleteWithHistoryStatement(params, scoped)] : [...appendList(ctx, scoped), [SQL.delete, params]];
  const results = await ctx.write('deleteWithHistory', ctx.plain(scoped.userId), () => ctx.driver.atomic(statements), undefined, () => (mirror) => mirror.delete(id));
  await foldWhenFull(ctx, journaledCount(ctx, results));
  return results[results.length - 1].changes > 0;
}

/**
 * `insertWithHistory(entry, cap, append)`: the dialect's capped insert (`planOf(scoped append)`,
 * run as `insertWithinCap` runs it) and, when it writes, the append — both or neither, in one
 * interactive transaction (SQLite, PostgreSQL): a refused insert appends nothing. A plan that
 * `appends` carries the append in its write statement (PostgreSQL: no round trip of its own).
 * Answers as `insertWithinCap`. Needs `driver.transaction` (D1 has none: its stores do not offer
 * the method). `change`: what the user's search mirror does to follow it (storage.js, `#write`).
 */
export async function insertWithHistory(ctx, entry, planOf, append, change) {
  const scoped = scopedAppend(ctx, append, 'insertWithHistory');
  if (scoped.userId !== ctx.ns(entry.userId)) {
    throw argument('insertWithHistory', 'append.userId', 'insertWithHistory: append.userId must be entry.userId');
  }
  const plan = planOf(scoped);
  const history = plan.appends ? [] : appendList(ctx, scoped);
  let journaled = null;
  const answer = await ctx.write('insertWithHistory', entry.userId, () => ctx.driver.transaction(function* (q) {
    let result;
    if (plan.statements) {
      // The dialect's statements, each re-deciding from the table, answered as `atomic` would.
      const answers = [];
      for (const [sql, params] of plan.statements) {
        answers.push(/^\s*SELECT\b/i.test(sql) ? { rows: yield q.all(sql, params), changes: 0 } : { rows: [], changes: (yield q.run(sql, params)).changes });
      }
      result = plan.result(answers);
    } else {
      const outcome = yield* plan.body(q);
      if (outcome?.rollback) return outcome;
      result = outcome;
    }
    if (!result.written) return { rollback: true, result };
    for (const [sql, params] of history) {
      if (ctx.driver.journal === 'fold') journaled = Number((yield q.all(sql, params))[0].n);
      else yield q.run(sql, params);
    }
    return result;
  }), entry, change);
  await foldWhenFull(ctx, journaled);
  return answer;
}

/** `append` checked (`fn` names the function in errors) and in this store's namespace. */
function scopedAppend(ctx, append, fn) {
  const checked = checkAppend(append, fn, ctx.dialect.limits);
  ctx.guard(checked.userId, fn, 'append.userId');
  checked.versions.forEach((v, i) => {
    ctx.guard(v.id, fn, `append.versions[${i}].id`);
    ctx.guard(v.entryId, fn, `append.versions[${i}].entryId`);
  });
  const userId = ctx.ns(checked.userId);
  return {
    ...checked,
    userId,
    versions: checked.versions.map((v) => ({ ...v, id: ctx.ns(v.id), userId, entryId: ctx.ns(v.entryId) })),
    audit: checked.audit.map((r) => ({ ...r, userId })),
  };
}

/** The audit records of `query.userId` (or every user's) from `since`, after `afterSeq`, at most `limit`, in `seq` order. */
export async function auditLog(ctx, query) {
  const { userId, since, afterSeq, limit } = checkAuditQuery(query, 'auditLog');
  if (userId !== null && ctx.unstorable(userId)) return [];
  await foldHistory(ctx);
  const { SQL } = ctx.dialect;
  // Every user's: this tenant's records only.
  const [sql, params] = userId !== null ? [SQL.auditOfUser, [ctx.ns(userId), since, afterSeq, limit]]
    : ctx.scope === null ? [SQL.auditOfAll, [since, afterSeq, limit]] : [SQL.auditOfTenant, [ctx.scope, scopeEnd(ctx.scope), since, afterSeq, limit]];
  return (await ctx.run('auditLog', () => ctx.driver.all(sql, params))).map(auditRecord);
}

/**
 * Erase the user's history (Art. 17): every version and audit record of the user, and the
 * erasure's own record appended — one transaction. Answers what was removed.
 */
export async function eraseHistory(ctx, userId, record, renames) {
  const { SQL, limits } = ctx.dialect;
  const row = checkErasure(userId, record, 'eraseHistory', limits);
  const renamed = checkRenames(renames, 'eraseHistory', limits);
  ctx.guard(userId, 'eraseHistory', 'userId');
  ctx.guard(row.userId, 'eraseHistory', 'record.userId');
  const user = ctx.ns(userId);
  const statements = [[SQL.eraseVersions, [user]], [SQL.eraseAudit, [user]]];
  // Other users' history that named the user as the one who acted (behaviour §8.3): audit
  // records of this tenant renamed in place, versions replaced by their renamed states.
  if (renamed.pseudonym !== null) {
    ctx.guard(renamed.pseudonym, 'eraseHistory', 'renames.pseudonym');
    statements.push(ctx.scope === null ? [SQL.renameActor, [renamed.pseudonym, userId]] : [SQL.renameActorTenant, [renamed.pseudonym, userId, ctx.scope, scopeEnd(ctx.scope)]]);
  }
  for (const [i, { replaces, row: v }] of renamed.versions.entries()) {
    for (const [name, value] of [['replaces', replaces], ['version.id', v.id], ['version.userId', v.userId], ['version.entryId', v.entryId]]) ctx.guard(value, 'eraseHistory', `renames.versions[${i}].${name}`);
    statements.push([SQL.deleteVersion, [ctx.ns(replaces)]], [SQL.appendVersion, [ctx.ns(v.id), ctx.ns(v.userId), ctx.ns(v.entryId), v.key, v.validUntil, v.body]]);
  }
  statements.push([SQL.appendAudit, [row.at, ctx.ns(row.userId), row.operation, row.body]]);
  // A SQLite file folds its journal in the erasure's own transaction: the erasure removes every
  // append made before it, journaled or not, and no append of the user is left to fold after it.
  const results = await ctx.run('eraseHistory', () => (ctx.driver.journal !== 'fold' ? ctx.driver.atomic(statements) : ctx.driver.transaction(function* (q) {
    yield* foldSteps(SQL, q);
    const answers = [];
    for (const [sql, params] of statements) answers.push({ changes: (yield q.run(sql, params)).changes });
    return answers;
  })));
  const answer = { versions: results[0].changes, audit: results[1].changes };
  if (renamed.pseudonym === null) return answer;
  let versions = 0;
  for (let i = 0; i < renamed.versions.length; i += 1) versions += results[3 + 2 * i].changes;
  return { ...answer, renamed: { audit: results[2].changes, versions } };
}

/** The versions of any user of this tenant that `authorId` ended (an erasure renames them). */
export async function versionsByAuthor(ctx, authorId) {
  checkString(authorId, 'versionsByAuthor', 'authorId');
  if (unstorable(authorId, ctx.dialect.limits.nul)) return [];
  await foldHistory(ctx);
  const { SQL } = ctx.dialect;
  const [sql, params] = ctx.scope === null ? [SQL.versionsByAuthor, [authorId]] : [SQL.versionsByAuthorTenant, [authorId, ctx.scope, scopeEnd(ctx.scope)]];
  const rows = await ctx.run('versionsByAuthor', () => ctx.driver.all(sql, params));
  return rows.map((row) => JSON.parse(row.body));
}

/**
 * Who holds each of `ids` (behaviour §8.3, "Entry ids"): `[{ id, userId, current }]` — the user
 * of the current entry with the id, and each user whose kept versions carry it.
 */
export async function idHolders(ctx, ids) {
  checkIds(ids, 'idHolders');
  const known = ids.filter((id) => !ctx.unstorable(id));
  if (known.length === 0) return [];
  const { SQL, idList } = ctx.dialect;
  const list = idList(known.map((id) => ctx.ns(id)));
  // The current entries holding the ids, and the users whose versions carry them: one statement
  // (on a SQLite file, the journaled versions read too: every new key asks, so it does not fold).
  const [sql, params] = ctx.driver.journal ? [SQL.idHoldersJournal, [...ctx.dialect.idHoldersParams(list), list]] : [SQL.idHolders, ctx.dialect.idHoldersParams(list)];
  const rows = await ctx.run('idHolders', () => ctx.driver.all(sql, params));
  return rows.map((row) => ({ id: ctx.plain(row.id), userId: ctx.plain(row.user_id), current: Number(row.current) === 1 }));
}

/** How many versions and audit records the store keeps of the user. */
export async function historySize(ctx, userId) {
  checkString(userId, 'historySize', 'userId');
  if (ctx.unstorable(userId)) return { versions: 0, audit: 0 };
  await foldHistory(ctx);
  const row = await ctx.run('historySize', () => ctx.driver.first(ctx.dialect.SQL.historySize, [ctx.ns(userId), ctx.ns(userId)]));
  return { versions: Number(row.versions), audit: Number(row.audit) };
}

/** The versions of `query.userId` (of `query.entryId`, or whose key was `query.key`), any order. */
export async function versions(ctx, query) {
  const { userId, entryId, key } = checkVersionQuery(query, 'versions');
  if (ctx.unstorable(userId) || (entryId !== null && ctx.unstorable(entryId)) || (key !== null && ctx.unstorable(key))) return [];
  await foldHistory(ctx);
  const { SQL } = ctx.dialect;
  const user = ctx.ns(userId);
  const [sql, params] = entryId !== null ? [SQL.versionsOfEntry, [user, ctx.ns(entryId)]] : key !== null ? [SQL.versionsOfKey, [user, key]] : [SQL.versionsOfUser, [user]];
  const rows = await ctx.run('versions', () => ctx.driver.all(sql, params));
  return rows.map((row) => JSON.parse(row.body));
}

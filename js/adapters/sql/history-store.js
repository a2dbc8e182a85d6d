// History and the audit log of the SQL stores (docs/reference/storage.md, "History"): SqlStorage's history
// methods, as functions of the store's context (storage.js).
import { argument, checkIds, checkString, scopeEnd, unstorable } from './entry-rows.js';
import { appendStatements, auditRecord, checkAppend, checkAuditQuery, checkErasure, checkRenames, checkVersionQuery } from './version-rows.js';

/**
 * History (docs/reference/storage.md, "History"): insert the versions (an id already stored is skipped)
 * and the audit records, keep each versioned entry's newest `maxVersionsPerEntry`, drop the
 * user's versions and audit records from before `notBefore` — one transaction (PostgreSQL: one
 * statement).
 */
export async function appendHistory(ctx, append) {
  const scoped = scopedAppend(ctx, append, 'appendHistory');
  const { SQL, appendHistoryStatement } = ctx.dialect;
  const statements = appendHistoryStatement ? [appendHistoryStatement(scoped)] : appendStatements(SQL, scoped);
  await ctx.run('appendHistory', () => ctx.driver.atomic(statements));
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
  const statements = writeWithHistoryStatement ? [writeWithHistoryStatement(params, scoped)] : [...appendStatements(SQL, scoped), [SQL.upsert, params]];
  await ctx.write('writeWithHistory', entry.userId, () => ctx.driver.atomic(statements), entry, () => (mirror) => mirror.upsert(entry));
}

/**
 * `deleteWithHistory(id, append)`: the append, then the delete of entry `id` (`params`, the
 * delete's parameters), both or neither — PostgreSQL one statement, else one `atomic` list.
 * Answers whether the entry was there.
 */
export async function deleteWithHistory(ctx, id, append, params) {
  const scoped = scopedAppend(ctx, append, 'deleteWithHistory');
  const { SQL, deleteWithHistoryStatement } = ctx.dialect;
  const statements = deleteWithHistoryStatement ? [deleteWithHistoryStatement(params, scoped)] : [...appendStatements(SQL, scoped), [SQL.delete, params]];
  const results = await ctx.write('deleteWithHistory', ctx.plain(scoped.userId), () => ctx.driver.atomic(statements), undefined, () => (mirror) => mirror.delete(id));
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
  const { SQL, appendHistoryStatement } = ctx.dialect;
  const history = plan.appends ? [] : appendHistoryStatement ? [appendHistoryStatement(scoped)] : appendStatements(SQL, scoped);
  return ctx.write('insertWithHistory', entry.userId, () => ctx.driver.transaction(function* (q) {
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
    for (const [sql, params] of history) yield q.run(sql, params);
    return result;
  }), entry, change);
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
  const results = await ctx.run('eraseHistory', () => ctx.driver.atomic(statements));
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
  // The current entries holding the ids, and the users whose versions carry them: one statement.
  const rows = await ctx.run('idHolders', () => ctx.driver.all(SQL.idHolders, ctx.dialect.idHoldersParams(list)));
  return rows.map((row) => ({ id: ctx.plain(row.id), userId: ctx.plain(row.user_id), current: Number(row.current) === 1 }));
}

/** How many versions and audit records the store keeps of the user. */
export async function historySize(ctx, userId) {
  checkString(userId, 'historySize', 'userId');
  if (ctx.unstorable(userId)) return { versions: 0, audit: 0 };
  const row = await ctx.run('historySize', () => ctx.driver.first(ctx.dialect.SQL.historySize, [ctx.ns(userId), ctx.ns(userId)]));
  return { versions: Number(row.versions), audit: Number(row.audit) };
}

/** The versions of `query.userId` (of `query.entryId`, or whose key was `query.key`), any order. */
export async function versions(ctx, query) {
  const { userId, entryId, key } = checkVersionQuery(query, 'versions');
  if (ctx.unstorable(userId) || (entryId !== null && ctx.unstorable(entryId)) || (key !== null && ctx.unstorable(key))) return [];
  const { SQL } = ctx.dialect;
  const user = ctx.ns(userId);
  const [sql, params] = entryId !== null ? [SQL.versionsOfEntry, [user, ctx.ns(entryId)]] : key !== null ? [SQL.versionsOfKey, [user, key]] : [SQL.versionsOfUser, [user]];
  const rows = await ctx.run('versions', () => ctx.driver.all(sql, params));
  return rows.map((row) => JSON.parse(row.body));
}

// The vectors of the SQL stores (docs/reference/storage.md, "Vectors"): SqlStorage's vectors, putVectors and
// unembedded, as functions of the store's context (storage.js).
import { checkString, TENANT_SEPARATOR } from './entry-rows.js';
import { checkModel, checkUnembeddedQuery, checkVectorRows, keyOrderMatters, sameJson, vectorBytes } from './vector-rows.js';

/** The user's stored vectors made by `model` (`[{ id, vector: Uint8Array }]`, any order). */
export async function vectors(ctx, userId, model) {
  checkString(userId, 'vectors', 'userId');
  checkModel(model, 'vectors', 'model', true);
  if (ctx.unstorable(userId) || ctx.unstorable(model)) return [];
  const [sql, params] = ctx.dialect.vectorsStatement(ctx.ns(userId), model);
  let rows = await ctx.run('vectors', () => ctx.driver.all(sql, params));
  if (ctx.dialect.vectorRows) {
    const packed = ctx.dialect.vectorRows(rows);
    if (packed !== null) return ctx.scope === null ? packed : packed.map((r) => ({ id: ctx.plain(r.id), vector: r.vector }));
    rows = await ctx.run('vectors', () => ctx.driver.all(ctx.dialect.SQL.vectors, [ctx.ns(userId), model]));
  }
  const out = [];
  const bytesOf = ctx.dialect.vectorOf ?? ((row) => vectorBytes(row.embedding));
  for (const row of rows) {
    const vector = bytesOf(row);
    if (vector !== null) out.push({ id: ctx.plain(row.id), vector });
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
export async function putVectors(ctx, rows) {
  const { limits } = ctx.dialect;
  const checked = checkVectorRows(rows, 'putVectors', limits).filter((r) => r.json !== null);
  if (checked.length === 0) return 0;
  const blob = ctx.driver.blob ?? ((v) => v);
  for (const [i, r] of checked.entries()) ctx.guard(r.row.id, 'putVectors', `rows[${i}].id`);
  const statement = ({ row }, json) => ctx.dialect.putVectorStatement(ctx.ns(row.id), row.key, json, row.model, blob(row.vector));
  const statements = checked.map((r) => statement(r, r.json));
  // Vectors of one user's entries, whose search mirror is kept: the mirror takes them too.
  const holder = ctx.mirrorHolding(checked.map((r) => r.row.id));
  const results = holder === null
    ? await ctx.run('putVectors', () => ctx.driver.atomic(statements))
    : await ctx.write('putVectors', holder.userId, () => ctx.driver.atomic(statements), undefined, mirrorChange(checked, holder.kept.model));
  // Each statement updates at most one row (by primary key); D1 counts the rows the revision
  // triggers write in `changes` too, so a statement counts as one when it changed anything.
  let written = results.filter((r) => r.changes > 0).length;
  if (ctx.dialect.jsonEquality !== 'text') return written;
  const retry = checked.filter((r, i) => results[i].changes === 0 && keyOrderMatters(r.row.value));
  if (retry.length === 0) return written;
  const { SQL, idList } = ctx.dialect;
  const stored = new Map();
  for (const row of await ctx.run('putVectors', () => ctx.driver.all(SQL.storedValues, [idList(retry.map((r) => ctx.ns(r.row.id)))]))) stored.set(ctx.plain(row.id), row);
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
  const more = await ctx.run('putVectors', () => ctx.driver.atomic(again));
  written += more.filter((r) => r.changes > 0).length;
  return written;
}

/**
 * The rows' vectors as a search mirror of `model` takes them (`SqlStorage#write`): each written
 * row's (its statement changed the entry), copied now; a mirror without vectors has nothing to
 * take; a vector of another model replaces the mirror's on a written entry, which a mirror cannot
 * hold (null: it is dropped).
 */
function mirrorChange(checked, model) {
  const copies = checked.map((r) => ({ id: r.row.id, model: r.row.model, vector: new Uint8Array(r.row.vector) }));
  return (answers) => {
    const written = copies.filter((_, i) => answers[i].changes > 0);
    if (model === null || written.length === 0) return () => {};
    if (written.some((r) => r.model !== model)) return null;
    return (mirror) => mirror.load([], { model, rows: written });
  };
}

/**
 * Entries (of `userId`, or of every user) with no vector or a vector of another model than
 * `model`, id ascending, ids `> after` when given, at most `limit`.
 */
export async function unembedded(ctx, query) {
  const q = checkUnembeddedQuery(query, 'unembedded', ctx.dialect.limits.nul);
  if (q.limit === 0 || (q.userId !== null && ctx.unstorable(q.userId)) || (q.after !== null && q.after.includes(TENANT_SEPARATOR))) return [];
  // Every user's: this tenant's rows only (`scope`: the ids' prefix; null: ids without one).
  const [sql, params] = ctx.dialect.unembeddedStatement({
    ...q, userId: q.userId === null ? null : ctx.ns(q.userId), after: q.after === null ? null : ctx.ns(q.after), scope: ctx.scope,
  });
  return ctx.entries('unembedded', sql, params);
}

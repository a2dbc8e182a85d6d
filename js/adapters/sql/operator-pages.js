// The operators' pages of the SQL stores (behaviour §8.7): a user's entries and the users, one
// page at a time, and every stored user id (doctor); functions of the store's context (storage.js).
import { foldHistory } from './history-store.js';
import { MemcoreError } from '../../errors.js';
import { argument, checkString, entryPageFilter, TENANT_SEPARATOR, unstorable, WRITER_FILTERS } from './entry-rows.js';

/**
 * A page of a user's entries for operators: `{ entries, total }` — the non-reserved entries,
 * newest first (the core's recency rule: `updatedAt`, then id), `offset` skipped, at most `limit`
 * (1–1000), kept by the filters given (`category`, `visibility`, `agentId`: equal; `writtenBy`:
 * a writer kind, `written` for any known kind but `learned`, `unknown` for none), and how many
 * entries the filters keep in all. Two statements; nothing else of the user is read.
 */
export async function entryPage(ctx, { userId, limit = 50, offset = 0, category, visibility, agentId, writtenBy } = {}) {
  checkString(userId, 'entryPage', 'userId');
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw argument('entryPage', 'limit', 'entryPage: limit must be an integer from 1 to 1000');
  if (!Number.isSafeInteger(offset) || offset < 0) throw argument('entryPage', 'offset', 'entryPage: offset must be an integer from 0');
  for (const [name, value] of [['category', category], ['visibility', visibility], ['agentId', agentId]]) {
    if (value !== undefined && value !== null && typeof value !== 'string') throw argument('entryPage', name, `entryPage: ${name} must be a string`);
  }
  if (writtenBy !== undefined && writtenBy !== null && !WRITER_FILTERS.includes(writtenBy)) {
    throw argument('entryPage', 'writtenBy', `entryPage: writtenBy must be one of ${WRITER_FILTERS.join(', ')}`);
  }
  if (ctx.unstorable(userId) || [category, visibility, agentId].some((v) => typeof v === 'string' && unstorable(v, ctx.dialect.limits.nul))) return { entries: [], total: 0 };
  const { where, params } = entryPageFilter({ category, visibility, agentId, writtenBy });
  const [page, count] = ctx.dialect.entryPage(where);
  const user = ctx.ns(userId);
  const entries = await ctx.entries('entryPage', page, [user, ...params, limit, offset]);
  const { n } = await ctx.run('entryPage', () => ctx.driver.first(count, [user, ...params]));
  return { entries, total: Number(n) };
}

/**
 * A page of this store's users (its tenant's) for operators: those with entries or episodes,
 * in id order (byte order), from after `after`, whose id starts with `prefix`, at most `limit`
 * (1–200): `{ users: [{ userId, entries, episodes, lastActivity, restricted }], next }` — `next`
 * the `after` of the next page, or null. `entries` excludes the reserved `_gdpr_` keys;
 * `lastActivity` is the newest entry update or episode.
 */
export async function userPage(ctx, { prefix = '', after = null, limit = 50 } = {}) {
  if (typeof prefix !== 'string') throw argument('userPage', 'prefix', 'userPage: prefix must be a string');
  if (after !== null && typeof after !== 'string') throw argument('userPage', 'after', 'userPage: after must be a user id or null');
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw argument('userPage', 'limit', 'userPage: limit must be an integer from 1 to 200');
  const { SQL, userPageParams, userSummaryParams } = ctx.dialect;
  const start = ctx.ns(prefix);
  const from = after === null ? '' : ctx.ns(after);
  const plain = ctx.scope === null;
  const rows = await ctx.run('userPage', () => ctx.driver.all(SQL.userPage, userPageParams(from, start, plain, limit + 1)));
  const page = rows.slice(0, limit).map((r) => r.user_id);
  const users = [];
  for (const stored of page) {
    const s = await ctx.run('userPage', () => ctx.driver.first(SQL.userSummary, userSummaryParams(stored)));
    const last = [s.last_entry, s.last_episode].filter((t) => typeof t === 'string').sort().at(-1) ?? null;
    users.push({ userId: ctx.plain(stored), entries: Number(s.entries), episodes: Number(s.episodes), lastActivity: last, restricted: Number(s.restricted) > 0 });
  }
  return { users, next: rows.length > limit ? users.at(-1).userId : null };
}

/**
 * Every user id the database holds rows of — entries, versions, audit records (an erasure's own
 * record aside) and API keys — in every tenant: `[{ tenantId, userId }]` (`tenantId` null: the
 * default tenant). For the one-off repair of ids memcore now refuses (`findInvalidUserIds`,
 * `memcore doctor`); on the database's store, not on a tenant view.
 */
export async function storedUserIds(ctx) {
  if (ctx.tenant !== null) {
    throw new MemcoreError('E_ARGUMENT', 'storedUserIds: call it on the database\'s store, not on a tenant view (it lists every tenant)', { function: 'storedUserIds', argument: 'this' });
  }
  // A read-write SQLite file folds its history journal first; a read-only one reads it beside.
  await foldHistory(ctx);
  const { SQL } = ctx.dialect;
  const rows = await ctx.run('storedUserIds', () => ctx.driver.all(SQL.storedUserIds, []));
  if (ctx.driver.journal === 'read') {
    const seen = new Set(rows.map((row) => row.user_id));
    for (const row of await ctx.run('storedUserIds', () => ctx.driver.all(SQL.journalUserIds, []))) {
      if (!seen.has(row.user_id)) rows.push(row);
      seen.add(row.user_id);
    }
  }
  return rows.map(({ user_id: stored }) => {
    const at = stored.indexOf(TENANT_SEPARATOR);
    return at < 0 ? { tenantId: null, userId: stored } : { tenantId: stored.slice(0, at), userId: stored.slice(at + 1) };
  });
}

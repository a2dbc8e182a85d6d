// Episodes of the SQL stores (docs/reference/storage.md, "Episodes"): functions of the store's context
// (storage.js).
import { argument, checkString } from './entry-rows.js';

/**
 * Store episodes (behaviour §8.6) whose id is not stored yet, in one transaction (PostgreSQL: one
 * statement, `putEpisodesStatement`); answers how many were new. Ids and user ids are kept under
 * the store's tenant.
 */
export async function putEpisodes(ctx, episodes) {
  if (!Array.isArray(episodes)) throw argument('putEpisodes', 'episodes', 'putEpisodes: episodes must be an array of episodes');
  const rows = [];
  for (const e of episodes) {
    for (const field of ['id', 'userId', 'conversationId', 'at']) checkString(e?.[field], 'putEpisodes', `episodes[].${field}`);
    const body = JSON.stringify(e);
    if ([e.id, e.userId, e.conversationId, e.at].some((t) => ctx.unstorable(t))) continue;
    rows.push([ctx.ns(e.id), ctx.ns(e.userId), e.conversationId, e.at, body]);
  }
  if (rows.length === 0) return 0;
  const { SQL, putEpisodesStatement } = ctx.dialect;
  if (putEpisodesStatement) {
    const [sql, params] = putEpisodesStatement(rows);
    return (await ctx.run('putEpisodes', () => ctx.driver.all(sql, params))).length;
  }
  const results = await ctx.run('putEpisodes', () => ctx.driver.atomic(rows.map((params) => [SQL.putEpisode, params])));
  return results.filter((r) => r.changes > 0).length;
}

/** The episodes `{ userId, conversationId?, notBefore? }` names, oldest first. */
export async function episodes(ctx, query) {
  if (query === null || typeof query !== 'object') throw argument('episodes', 'query', 'episodes: query must be { userId, conversationId?, notBefore? }');
  const { userId, conversationId = null, notBefore = null } = query;
  checkString(userId, 'episodes', 'query.userId');
  if (ctx.unstorable(userId) || (conversationId !== null && ctx.unstorable(conversationId))) return [];
  const { SQL } = ctx.dialect;
  const since = typeof notBefore === 'string' ? notBefore : '';
  const [sql, params] = conversationId === null ? [SQL.episodesOfUser, [ctx.ns(userId), since]] : [SQL.episodesOfConversation, [ctx.ns(userId), conversationId, since]];
  const rows = await ctx.run('episodes', () => ctx.driver.all(sql, params));
  return rows.map((row) => JSON.parse(row.body));
}

/** Delete the user's episodes from before `before`, or all of them (`null`); answers how many. */
export async function deleteEpisodes(ctx, userId, before) {
  checkString(userId, 'deleteEpisodes', 'userId');
  if (ctx.unstorable(userId)) return 0;
  const { SQL } = ctx.dialect;
  const [sql, params] = typeof before === 'string' ? [SQL.deleteEpisodesBefore, [ctx.ns(userId), before]] : [SQL.deleteEpisodesOfUser, [ctx.ns(userId)]];
  return (await ctx.run('deleteEpisodes', () => ctx.driver.run(sql, params))).changes;
}

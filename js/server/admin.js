// The administrators' routes of createMemoryHandler (behaviour §4.3, §8.3, §8.5, §8.7): data
// subjects' rights, the audit log, the users' page, a user's profile, Dream now and its runs, and
// API keys. Each takes the request, its parsed parts, the principal and the handler's routes.
import { checkUserId, ContextMemory, countTokens, dream as runDream, parseProfile } from '../api.js';
import { HttpFailure, json, mediaType, readJson, readText } from './http.js';
import { requireAdmin } from './principal.js';
import { hasScope, SCOPES } from './scopes.js';
import { allow, intParam, invalid, notFound } from './routing.js';

/** How many Dream runs `GET /admin/dream` remembers (this process's, newest first). */
const DREAM_RUNS_KEPT = 100;
/** The profile budget the operators' token meter shows (behaviour §1.3's default). */
const DEFAULT_PROFILE_BUDGET = 2000;

/**
 * behaviour §4.3 for administrators: `DELETE /admin/gdpr/{userId}` (Art. 17 erasure: every entry,
 * `_gdpr_` ones included, and the profile), `GET /admin/gdpr/{userId}/export` (Art. 15/20),
 * `GET`/`PUT /admin/gdpr/{userId}/restriction` with `{ "restricted": true | false }` (Art. 18).
 */
export async function gdpr(request, [userId, what], principal, { ops }) {
  if (what === undefined) {
    allow(request, ['DELETE']);
    const who = await principal();
    requireAdmin(who);
    return json(await ops.erase(userId, who));
  }
  if (what === 'export') {
    allow(request, ['GET']);
    const who = await principal();
    requireAdmin(who);
    return json(await ops.exportData(userId, who));
  }
  if (what === 'restriction') {
    allow(request, ['GET', 'PUT']);
    const who = await principal();
    requireAdmin(who);
    if (request.method !== 'PUT') return json({ restricted: await ops.restricted(userId) });
    const body = await readJson(request);
    if (body === null || typeof body !== 'object' || typeof body.restricted !== 'boolean') {
      throw invalid([{ field: 'restricted', message: 'restricted must be true or false' }], 'the body must be { "restricted": true | false }');
    }
    return json(await ops.setRestricted(userId, body.restricted, who));
  }
  throw notFound();
}

/**
 * behaviour §8.3 for administrators: `GET /admin/audit?userId=&since=&afterSeq=&limit=` → `{ records }`,
 * the audit log in `seq` order (`afterSeq`: the last `seq` of the previous page).
 */
export async function audit(request, url, principal, { ops }) {
  allow(request, ['GET']);
  requireAdmin(await principal());
  const q = url.searchParams;
  const query = {};
  for (const name of ['userId', 'since']) if (q.has(name)) query[name] = q.get(name);
  for (const name of ['afterSeq', 'limit']) {
    if (!q.has(name)) continue;
    const n = Number(q.get(name));
    if (!Number.isSafeInteger(n) || n < 0) throw new HttpFailure(400, `the query parameter ${name} must be a non-negative integer`, { violations: [{ field: name, message: `${name} must be a non-negative integer` }] });
    query[name] = n;
  }
  return json({ records: await ops.audit(query) });
}

/**
 * behaviour §8.7 for administrators: `GET /admin/users?prefix=&after=&limit=` → `{ users: [{ userId,
 * entries, episodes, lastActivity, restricted }], next }`, a page (limit 1–200, default 50) of the
 * users with entries or episodes in id order; `next` is the `after` of the next page. The entry
 * store must list its users (`userPage`: the SQL stores of this package), else 501.
 */
export async function users(request, url, principal, routes) {
  allow(request, ['GET']);
  requireAdmin(await principal());
  const store = routes.entries;
  if (typeof store?.userPage !== 'function') throw new HttpFailure(501, 'this entry store cannot list its users (the SQL stores of memcore can: userPage)', { code: 'E_NOT_SUPPORTED' });
  const q = url.searchParams;
  return json(await store.userPage({ prefix: q.get('prefix') ?? '', after: q.has('after') ? q.get('after') : null, limit: intParam(url, 'limit', 1, 200, 50) }));
}

/**
 * behaviour §8.7 for administrators: a user's profile — `GET /admin/profiles/{userId}` → `{ exists,
 * body, lastUpdated, turnCount, tokens, maxTokens, diagnostics }` (`tokens`: the body's count in
 * the profile's encoding), `PUT` with JSON `{ body }` (or text/markdown) saves it as the user's own
 * Settings save does → the same with `saved: true`. Needs `profiles` (a ContextMemory).
 */
export async function adminProfile(request, userId, principal, routes) {
  allow(request, ['GET', 'PUT']);
  requireAdmin(await principal());
  checkUserId(userId);
  const profiles = routes.profiles;
  if (!(profiles instanceof ContextMemory)) throw new HttpFailure(501, 'the handler has no profiles (a ContextMemory)', { code: 'E_NOT_SUPPORTED' });
  let saved = null;
  if (request.method === 'PUT') {
    const type = mediaType(request);
    let body;
    if (type === 'application/json') {
      const parsed = await readJson(request);
      if (parsed === null || typeof parsed !== 'object' || typeof parsed.body !== 'string') throw invalid([{ field: 'body', message: 'body is required (a string)' }]);
      body = parsed.body;
    } else if (type === 'text/plain' || type === 'text/markdown') {
      body = await readText(request);
    } else {
      throw new HttpFailure(415, 'send the profile body as text/markdown, text/plain or application/json { body }');
    }
    saved = await profiles.updateMyContextMemory(userId, body);
  }
  const view = await profiles.getMyContextMemory(userId);
  // The meter counts the body with o200k_base against the default budget (behaviour §1.3): the
  // handler does not see the ContextMemory's configuration.
  const answer = {
    ...view,
    tokens: view.exists ? countTokens(view.body) : 0,
    maxTokens: DEFAULT_PROFILE_BUDGET,
    diagnostics: saved ? saved.diagnostics ?? [] : view.exists ? parseProfile(view.body).diagnostics : [],
  };
  return json(saved ? { saved: true, ...answer } : answer);
}

/**
 * behaviour §8.7 for administrators: `POST /admin/dream/{userId}` runs Dream for the user now (the
 * handler's `config`; `model` for summarisation, when given) → `{ report }`; `GET
 * /admin/dream?userId=` → `{ runs: [{ userId, at, report }] }`, this process's last runs, newest
 * first.
 */
export async function dreamRoute(request, url, userId, principal, routes) {
  allow(request, userId === undefined ? ['GET'] : ['POST']);
  requireAdmin(await principal());
  if (userId === undefined) {
    const only = url.searchParams.get('userId');
    return json({ runs: routes.dreamRuns.filter((r) => only === null || r.userId === only) });
  }
  checkUserId(userId);
  const at = new Date(routes.now ? routes.now() : Date.now()).toISOString();
  // An operator's run is asked for: Dream is on for it whatever the agents' schedules say.
  const base = routes.config && typeof routes.config === 'object' ? routes.config : {};
  const config = { ...base, dream: { ...(base.dream ?? {}), enabled: true } };
  const report = await runDream({ store: routes.entries, ...(routes.model ? { model: routes.model } : {}), userId, agentId: 'memcore-operator', config, now: at });
  routes.dreamRuns.unshift({ userId, at, report });
  routes.dreamRuns.length = Math.min(routes.dreamRuns.length, DREAM_RUNS_KEPT);
  return json({ report });
}

/**
 * behaviour §8.5 for administrators, with the handler's `apiKeys`: `GET /admin/keys?userId=` → `{ keys }`
 * (the administrator's tenant's, never a secret), `POST /admin/keys` with `{ userId, scopes,
 * agentId?, groupId?, name?, expiresAt? }` → 201 `{ key, record }` (the only time the key is shown),
 * `DELETE /admin/keys/{id}` → `{ revoked: true }` (404 when no live key of the tenant has that id).
 */
export async function keys(request, url, id, principal, { apiKeys }) {
  allow(request, id === undefined ? ['GET', 'POST'] : ['DELETE']);
  const who = await principal();
  requireAdmin(who);
  const tenantId = who.tenantId ?? null;
  if (id !== undefined) {
    if (!(await apiKeys.revoke(id, { tenantId }))) throw new HttpFailure(404, 'no live API key has this id');
    return json({ revoked: true });
  }
  if (request.method === 'POST') {
    const body = await readJson(request);
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid([{ field: '', message: 'the body must be { userId, scopes, … }' }]);
    const { userId, scopes, agentId, groupId, name, expiresAt } = body;
    // A key gives at most what its minter holds: its scopes (a principal without `scopes` holds
    // every one), in the minter's tenant only.
    const beyond = Array.isArray(scopes) ? scopes.filter((scope) => typeof scope === 'string' && SCOPES.includes(scope) && !hasScope(who, scope)) : [];
    if (beyond.length > 0) {
      throw new HttpFailure(403, `a key can give only scopes its creator holds; this principal does not hold ${[...new Set(beyond)].join(', ')}`, { missingScope: beyond[0] });
    }
    return json(await apiKeys.create({ tenantId, userId, scopes, agentId, groupId, name, expiresAt }), 201);
  }
  const userId = url.searchParams.get('userId');
  return json({ keys: await apiKeys.list({ tenantId, ...(userId === null ? {} : { userId }) }) });
}

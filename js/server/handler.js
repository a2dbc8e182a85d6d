// createMemoryHandler: behaviour §2.8's REST routes and the MCP endpoint as one Fetch-API handler
// `(request) => Promise<Response>`. Every memory rule is the core's (js/api.js); this file
// routes, checks the principal and turns outcomes into HTTP answers. It never throws.
import {
  learnFromTurn,
  ContextMemory,
  parseUserMemoryConfig,
  resolveEnablement,
  WEB_SEARCH_TOOLTIP,
  readProperties,
} from '../api.js';
import { errorResponse, HttpFailure, json, mediaType, readJson, readText, segments, setBodyDeadline } from './http.js';
import { createLimits } from './limits.js';
import { principalOf, requireAccess, requireScope } from './principal.js';
import { MCP_PEERS } from './mcp-tools.js';
import { answerOf } from './outcomes.js';
import { memoryOperations } from './operations.js';
import { adminProfile, audit, dreamRoute, gdpr, keys, users } from './admin.js';
import { allow, intParam, invalid, notFound, writerFilter } from './routing.js';
import { forTenant, tenantViews } from '../tenants.js';
import { telemetryOption } from '../telemetry/core.js';
import { MemcoreError } from '../errors.js';

export { HTTP_ERROR_CODES, MAX_BODY_BYTES } from './http.js';

const MEMORIES = ['usermemorystore', 'memories'];
const PROPERTIES = ['propertiesstore', 'properties'];
const CONTEXT = ['contextmemory', 'me'];
const GDPR = ['admin', 'gdpr'];
const AUDIT = ['admin', 'audit'];
const KEYS = ['admin', 'keys'];
const USERS = ['admin', 'users'];
const PROFILES = ['admin', 'profiles'];
const DREAM = ['admin', 'dream'];

/**
 * The MCP endpoint's module, loaded on the first MCP request: the SDK and zod are optional peer
 * dependencies, so a host serving only REST installs neither. Without them `/mcp` answers 501.
 */
const mcpModules = {};
function loadMcp(which = 'admin') {
  mcpModules[which] ??= import(which === 'agent' ? './mcp-agent.js' : './mcp.js').catch((error) => {
    mcpModules[which] = undefined; // installed later (a dev server): try again on the next request
    throw new HttpFailure(501, `the MCP endpoint needs the optional peer dependencies ${MCP_PEERS.join(' and ')} (npm install ${MCP_PEERS.join(' ')}): ${error?.message ?? error}`, { code: 'E_MCP_UNAVAILABLE' });
  });
  return mcpModules[which];
}

function misuse(message) {
  return new MemcoreError('E_ARGUMENT', `createMemoryHandler: ${message}`, { function: 'createMemoryHandler' });
}

function mountPath(name, value, fallback) {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'string' || (value !== '' && !/^\/[^?#]*$/.test(value))) {
    throw misuse(`\`${name}\` must be a path like '/api' ('' for the root)`);
  }
  return value.replace(/\/+$/, '');
}

/**
 * A Fetch-API handler serving entry memory over REST and MCP (behaviour §2.8).
 * @example const handler = createMemoryHandler({ entries: new InMemoryEntryStore(), authenticate: (req) => ({ userId: 'u1' }) });
 */
export function createMemoryHandler(options) {
  if (options === null || typeof options !== 'object') throw misuse('options must be an object like { entries, authenticate }');
  const { entries, profiles, authenticate, enablement, config, basePath, mcpPath, agentMcpPath, now, newId, storeTimeoutMs, embedder, apiKeys, model } = options;
  // Rate, write and concurrency limits per principal, and the body deadline (./limits.js).
  const limits = createLimits(options.limits);
  // memcore/telemetry (optional): a server span per request and per MCP tool call, counted.
  const telemetry = telemetryOption('createMemoryHandler', options.telemetry);
  if (embedder !== undefined && embedder !== null && (typeof embedder !== 'object' || typeof embedder.embed !== 'function' || typeof embedder.model !== 'string')) {
    throw misuse('`embedder` must be an embedder like { model, embed({ texts, purpose, signal }) }');
  }
  if (model !== undefined && model !== null && typeof model !== 'function' && typeof model?.complete !== 'function') throw misuse('`model` must be a model: a function or an object with complete(request)');
  if (enablement !== undefined && enablement !== null && typeof enablement !== 'function') throw misuse('`enablement` must be a function (request, principal) => EnablementInputs | null');
  if (entries === null || (typeof entries !== 'object' && typeof entries !== 'function')) throw misuse('`entries` must be an entry store');
  if (apiKeys !== undefined && apiKeys !== null && (typeof apiKeys !== 'object' || ['create', 'list', 'revoke', 'deleteApiKeysOf'].some((m) => typeof apiKeys[m] !== 'function'))) {
    throw misuse('`apiKeys` must be the API keys of apiKeys({ store }) (it serves /admin/keys, and an erasure deletes the user\'s keys through it)');
  }
  if (typeof authenticate !== 'function') throw misuse('`authenticate` must be a function (request) => { userId, admin? } | null');
  if (profiles !== undefined && profiles !== null) {
    for (const name of ['getMyContextMemory', 'updateMyContextMemory']) {
      if (typeof profiles[name] !== 'function') throw misuse(`\`profiles\` must be a ContextMemory (it has no ${name})`);
    }
  }
  for (const [name, fn] of [['now', now], ['newId', newId]]) {
    if (fn !== undefined && fn !== null && typeof fn !== 'function') throw misuse(`\`${name}\` must be a function`);
  }
  parseUserMemoryConfig(config); // misconfiguration fails here, not on the first request
  const base = mountPath('basePath', basePath, '');
  const mcp = mountPath('mcpPath', mcpPath, '/mcp');
  // The agent's own endpoint (issue 23): the four tools bound to the principal.
  const agentMcp = mountPath('agentMcpPath', agentMcpPath, `${mcp}/agent`);
  // Erasure and export cover the profile too when `profiles` is a ContextMemory of this package.
  const scope = (e, p, tenantId = null) => {
    const memory = p instanceof ContextMemory ? p : undefined;
    return { entries: e, profiles: p, memory, ops: memoryOperations({ entries: e, memory, config, now, newId, storeTimeoutMs, embedder, apiKeys, tenantId }) };
  };
  const defaultScope = scope(entries, profiles);
  // A principal with a tenantId is served from the stores' views of that tenant (tenants.js): a
  // store without forTenant answers E_CONFIG (500), never the default tenant's data.
  const tenantScope = tenantViews((tenantId) => scope(
    forTenant(entries, tenantId, 'entries', 'createMemoryHandler'),
    profiles === undefined || profiles === null ? profiles : forTenant(profiles, tenantId, 'profiles', 'createMemoryHandler'),
    tenantId,
  ));
  const scopeOf = (who) => {
    if (who === null) throw new Error('memcore/server: a route used the stores before it checked the principal');
    return who.tenantId === undefined ? defaultScope : tenantScope(who.tenantId);
  };
  const opNames = Object.keys(defaultScope.ops);
  // `POST /admin/dream/{userId}`'s reports, newest first (this process's; GET /admin/dream).
  const dreamRuns = [];

  const serve = async function handleMemoryRequest(request) {
    let release = null;
    // The principal, admitted by the limits (its request token, a write token for a REST write, a
    // concurrency slot held until the answer is made).
    const admitted = async ({ write = false } = {}) => {
      const found = await principalOf(authenticate, request);
      release = limits.admit(found, { write });
      return found;
    };
    try {
      setBodyDeadline(request, limits.bodyTimeoutMs);
      let url;
      try {
        url = new URL(request.url);
      } catch {
        throw new HttpFailure(400, 'the request URL cannot be read');
      }
      let path = url.pathname;
      if (base) {
        if (path !== base && !path.startsWith(`${base}/`)) throw notFound();
        path = path.slice(base.length) || '/';
      }
      if (path === agentMcp || path === `${agentMcp}/`) {
        const principal = await admitted();
        const { agentMcpResponse } = await loadMcp('agent');
        const s = scopeOf(principal);
        return await agentMcpResponse(request, principal, { entries: s.entries, profiles: s.memory, config, now, newId, embedder, chargeWrite: () => limits.chargeWrite(principal), telemetry });
      }
      if (path === mcp || path === `${mcp}/`) {
        const principal = await admitted();
        const { mcpResponse } = await loadMcp();
        return await mcpResponse(request, principal, scopeOf(principal).ops, { chargeWrite: () => limits.chargeWrite(principal), telemetry });
      }
      const parts = segments(path);
      // The principal is read when a route needs it (a wrong method is 405 before 401); the stores
      // are the principal's tenant's, so every route reads them after the principal.
      let who = null;
      const principal = async () => (who ??= await admitted({ write: request.method !== 'GET' && request.method !== 'HEAD' }));
      const routes = {
        get entries() {
          return scopeOf(who).entries;
        },
        get profiles() {
          return scopeOf(who).profiles;
        },
        ops: Object.fromEntries(opNames.map((name) => [name, (...args) => scopeOf(who).ops[name](...args)])),
        enablement,
        apiKeys,
        config,
        now,
        model,
        embedder,
        dreamRuns,
      };
      if (startsWith(parts, MEMORIES)) return await memories(request, url, parts.slice(2), principal, routes);
      if (startsWith(parts, PROPERTIES) && parts.length === 3) return await properties(request, parts[2], principal, routes);
      if (parts.length === 2 && startsWith(parts, CONTEXT) && profiles) return await contextMemory(request, principal, routes);
      if ((parts.length === 3 || parts.length === 4) && startsWith(parts, GDPR)) return await gdpr(request, parts.slice(2), principal, routes);
      if (parts.length === 2 && startsWith(parts, AUDIT)) return await audit(request, url, principal, routes);
      if ((parts.length === 2 || parts.length === 3) && startsWith(parts, KEYS) && apiKeys) return await keys(request, url, parts[2], principal, routes);
      if (parts.length === 2 && startsWith(parts, USERS)) return await users(request, url, principal, routes);
      if (parts.length === 3 && startsWith(parts, PROFILES)) return await adminProfile(request, parts[2], principal, routes);
      if ((parts.length === 2 || parts.length === 3) && startsWith(parts, DREAM)) return await dreamRoute(request, url, parts[2], principal, routes);
      throw notFound();
    } catch (error) {
      return errorResponse(error);
    } finally {
      release?.();
    }
  };
  if (!telemetry) return serve;
  return function handleMemoryRequest(request) {
    let method = 'GET';
    let route = 'unknown';
    try {
      // OTel's rule for HTTP methods: the known ones as they are, any other as `_OTHER` (a client
      // must not grow the metric's label set).
      method = KNOWN_METHODS.has(request.method) ? request.method : '_OTHER';
      route = routeTemplate(new URL(request.url).pathname, base, [mcp, agentMcp]);
    } catch {
      // a request whose URL cannot be read: the handler answers it; the span says unknown
    }
    return telemetry.operation(`${method} ${route}`, { 'http.request.method': method, 'http.route': route }, () => serve(request), (error, response, span) => {
      const status = response?.status ?? 500;
      span?.setAttribute('http.response.status_code', status);
      if (status >= 500) span?.setStatus({ code: 2 });
      telemetry.record('requests', { method, route, status: String(status) });
      return status < 400 ? 'ok' : 'error';
    });
  };
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);

/**
 * The route template of a request path for spans and metrics: ids, user ids and keys replaced by
 * their parameter names (never shown); a path that is no route is `unknown`.
 */
export function routeTemplate(path, base = '', mcpPaths = []) {
  if (base && path !== base && !path.startsWith(`${base}/`)) return 'unknown';
  const rest = (base ? path.slice(base.length) : path).replace(/\/+$/, '') || '/';
  if (mcpPaths.includes(rest)) return `${base}${rest}`;
  const p = rest.split('/').filter(Boolean);
  const words = (...w) => w.every((word, i) => p[i] === word);
  let t = null;
  if (words('usermemorystore', 'memories')) {
    const r = p.slice(2);
    const userRoute = { 1: () => [], 2: () => (['visible', 'search', 'count', 'episodes'].includes(r[1]) ? [r[1]] : null), 3: () => (r[1] === 'key' ? ['key', '{key}'] : null) };
    if (r.length === 0) t = [];
    else if (r.length === 2 && r[0] === 'entry') t = ['entry', '{entryId}'];
    else if (r.length === 4 && r[1] === 'versions' && r[3] === 'restore') t = ['{userId}', 'versions', '{versionId}', 'restore'];
    else if (r.length === 4 && (r[1] === 'key' || r[1] === 'entry') && r[3] === 'history') t = ['{userId}', r[1], r[1] === 'key' ? '{key}' : '{entryId}', 'history'];
    else if (r.length === 2 && r[1] === 'learn') t = ['{userId}', 'learn'];
    else if (userRoute[r.length]) t = userRoute[r.length]() && ['{userId}', ...userRoute[r.length]()];
    if (t) t = ['usermemorystore', 'memories', ...t];
  } else if (words('propertiesstore', 'properties') && p.length === 3) t = ['propertiesstore', 'properties', '{userId}'];
  else if (words('contextmemory', 'me') && p.length === 2) t = p;
  else if (words('admin', 'gdpr') && (p.length === 3 || (p.length === 4 && ['export', 'restriction'].includes(p[3])))) t = ['admin', 'gdpr', '{userId}', ...p.slice(3)];
  else if (words('admin', 'audit') && p.length === 2) t = p;
  else if (words('admin', 'keys') && p.length <= 3) t = p.length === 2 ? p : ['admin', 'keys', '{keyId}'];
  else if (words('admin', 'users') && p.length === 2) t = p;
  else if (words('admin', 'profiles') && p.length === 3) t = ['admin', 'profiles', '{userId}'];
  else if (words('admin', 'dream') && p.length <= 3) t = p.length === 2 ? p : ['admin', 'dream', '{userId}'];
  return t ? `${base}/${t.join('/')}` : 'unknown';
}

function startsWith(parts, prefix) {
  return prefix.every((p, i) => parts[i] === p);
}

async function memories(request, url, rest, principal, routes) {
  const { ops } = routes;
  // PUT /usermemorystore/memories: upsert.
  if (rest.length === 0) {
    allow(request, ['PUT']);
    const who = await principal();
    requireScope(who, 'memory:write');
    const body = await readJson(request);
    if (body !== null && typeof body === 'object' && !Array.isArray(body) && typeof body.userId === 'string') requireAccess(who, body.userId);
    const outcome = await ops.upsert(body, 'rest', who);
    return restAnswer('upsert', outcome.outcome, outcome);
  }
  // DELETE /usermemorystore/memories/entry/{entryId}
  if (rest.length === 2 && rest[0] === 'entry') {
    allow(request, ['DELETE']);
    const who = await principal();
    requireScope(who, 'memory:write');
    const outcome = await ops.deleteEntry(rest[1], who);
    return restAnswer('deleteEntry', outcome.outcome, outcome);
  }
  const [userId, what, key] = rest;
  if (rest.length === 1) {
    allow(request, ['GET', 'DELETE']);
    const who = await principal();
    requireScope(who, request.method === 'DELETE' ? 'memory:write' : 'memory:read');
    requireAccess(who, userId);
    if (request.method === 'DELETE') return json({ deleted: await ops.deleteAll(userId, who) });
    const asOf = asOfParam(url);
    if (!url.searchParams.has('limit')) return json({ entries: await ops.list(userId, asOf) });
    // A page for operators: newest first, filtered by category, visibility, agent and writer.
    const limit = intParam(url, 'limit', 1, 1000, 50);
    const offset = intParam(url, 'offset', 0, Number.MAX_SAFE_INTEGER, 0);
    const q = url.searchParams;
    const writer = writerFilter(url);
    const filters = { category: q.get('category'), visibility: q.get('visibility'), agentId: q.get('agentId'), writtenBy: q.get('writtenBy') };
    // A store that pages itself (the SQL stores: `entryPage`) reads one page; any other, and a
    // past state (`asOf`), is read whole and paged here — the list is in the same recency order.
    if (asOf === undefined && typeof routes.entries?.entryPage === 'function') {
      return json(await routes.entries.entryPage({ userId, limit, offset, ...filters }));
    }
    const kept = (await ops.list(userId, asOf)).filter((e) => (filters.category === null || e.category === filters.category)
      && (filters.visibility === null || e.visibility === filters.visibility)
      && (filters.agentId === null || e.sourceAgentId === filters.agentId)
      && writer(e.writtenBy ?? null));
    return json({ entries: kept.slice(offset, offset + limit), total: kept.length });
  }
  if (rest.length === 2 && what === 'episodes') {
    allow(request, ['GET']);
    const who = await principal();
    requireScope(who, 'memory:read');
    requireAccess(who, userId);
    const q = url.searchParams;
    if (!q.has('q') && typeof routes.entries?.episodes === 'function') {
      // Without a query: the newest episodes (of one conversation), a page for operators.
      const limit = intParam(url, 'limit', 1, 1000, 50);
      const offset = intParam(url, 'offset', 0, Number.MAX_SAFE_INTEGER, 0);
      const found = await routes.entries.episodes({ userId, conversationId: q.get('conversationId') ?? null, notBefore: null });
      const list = (Array.isArray(found) ? found : []).map(({ id, conversationId, role, text, at }) => ({ id, conversationId, role, text, at }));
      list.sort((a, b) => (a.at > b.at ? -1 : a.at < b.at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      return json({ episodes: list.slice(offset, offset + limit), total: list.length });
    }
    if (!q.has('q')) throw new HttpFailure(400, 'the query parameter q is required', { violations: [{ field: 'q', message: 'q is required' }] });
    const options = {};
    for (const name of ['mode', 'conversationId', 'asOf']) if (q.has(name)) options[name] = q.get(name);
    if (q.has('limit')) {
      const limit = Number(q.get('limit'));
      if (!Number.isInteger(limit)) throw new HttpFailure(400, 'the query parameter limit must be an integer', { violations: [{ field: 'limit', message: 'limit must be an integer 1-1000' }] });
      options.limit = limit;
    }
    return json({ episodes: await ops.episodes(userId, q.get('q'), options) });
  }
  if (rest.length === 2 && ['visible', 'search', 'count'].includes(what)) {
    allow(request, ['GET']);
    const who = await principal();
    requireScope(who, 'memory:read');
    requireAccess(who, userId);
    const q = url.searchParams;
    const asOf = asOfParam(url);
    if (what === 'count') return json({ count: await ops.count(userId, asOf) });
    if (what === 'search') {
      if (!q.has('q')) throw new HttpFailure(400, 'the query parameter q is required', { violations: [{ field: 'q', message: 'q is required' }] });
      const options = {};
      if (q.has('mode')) options.mode = q.get('mode');
      if (q.has('limit')) {
        const limit = Number(q.get('limit'));
        if (!Number.isInteger(limit)) throw new HttpFailure(400, 'the query parameter limit must be an integer', { violations: [{ field: 'limit', message: 'limit must be an integer 1-1000' }] });
        options.limit = limit;
      }
      return json({ entries: await ops.search(userId, q.get('q'), { ...options, asOf }) });
    }
    const query = { userId, asOf };
    for (const name of ['agentId', 'groupId', 'order', 'limit']) if (q.has(name)) query[name] = q.get(name);
    const found = await ops.visible(query);
    return restAnswer('visible', found.violations ? 'violations' : 'found', found);
  }
  if (rest.length === 3 && what === 'key') {
    allow(request, ['GET']);
    const who = await principal();
    requireScope(who, 'memory:read');
    requireAccess(who, userId);
    const agentId = url.searchParams.get('agentId');
    const entry = await ops.byKey(userId, key, agentId, asOfParam(url));
    return restAnswer('byKey', entry ? 'found' : 'missing', { entry, key });
  }
  // POST /usermemorystore/memories/{userId}/versions/{versionId}/restore
  if (rest.length === 4 && what === 'versions' && rest[3] === 'restore') {
    allow(request, ['POST']);
    const who = await principal();
    requireScope(who, 'memory:write');
    requireAccess(who, userId);
    const outcome = await ops.restore(userId, key, who);
    return restAnswer('restore', outcome.outcome, outcome);
  }
  // POST /usermemorystore/memories/{userId}/learn: learning from one turn (behaviour §8.6).
  if (rest.length === 2 && what === 'learn') {
    allow(request, ['POST']);
    const who = await principal();
    requireScope(who, 'memory:write');
    requireAccess(who, userId);
    if (!routes.model) throw new HttpFailure(501, 'learning needs a model: the handler has no `model` (memcore serve: --model-url)', { code: 'E_NOT_SUPPORTED' });
    const body = await readJson(request);
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid([{ field: '', message: 'the body must be { conversationId, messages, agentId?, at? }' }]);
    const { conversationId, messages, at } = body;
    if (typeof conversationId !== 'string') throw invalid([{ field: 'conversationId', message: 'conversationId is required (a string)' }]);
    if (!Array.isArray(messages)) throw invalid([{ field: 'messages', message: 'messages is required: [{ role, content }]' }]);
    if (at !== undefined && typeof at !== 'string') throw invalid([{ field: 'at', message: 'at must be an RFC 3339 time' }]);
    // The agent is the key's when it names one (a caller cannot write as another agent), else the body's, else `rest`.
    const agentId = who.agentId ?? (typeof body.agentId === 'string' && body.agentId !== '' ? body.agentId : 'rest');
    const report = await learnFromTurn({
      store: routes.entries,
      model: routes.model,
      userId,
      agentId,
      ...(who.groupId ? { groupId: who.groupId } : {}),
      conversationId,
      messages,
      ...(at === undefined ? {} : { at }),
      ...(routes.config ? { config: routes.config } : {}),
      ...(routes.now ? { now: routes.now } : {}),
      ...(routes.embedder ? { embedder: routes.embedder } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
    });
    return json(report);
  }
  // GET /usermemorystore/memories/{userId}/key/{key}/history, …/{userId}/entry/{entryId}/history
  if (rest.length === 4 && (what === 'key' || what === 'entry') && rest[3] === 'history') {
    allow(request, ['GET']);
    const who = await principal();
    requireScope(who, 'memory:read');
    requireAccess(who, userId);
    return json(await ops.history(userId, what === 'key' ? { key } : { entryId: key }));
  }
  throw notFound();
}

/** The `asOf` query parameter of a read (behaviour §8.3), or undefined: the core checks the time. */
function asOfParam(url) {
  return url.searchParams.has('asOf') ? url.searchParams.get('asOf') : undefined;
}

/** The HTTP answer of a core outcome, from the table MCP answers by too (./outcomes.js). */
function restAnswer(kind, name, outcome) {
  const answer = answerOf(kind, name, outcome, 'rest');
  if (answer.error) {
    const { status, code, message, extra } = answer.error;
    throw new HttpFailure(status, message, { code, ...extra });
  }
  return json(answer.body, answer.status ?? 200);
}

/** The preserved legacy route over global entries (behaviour §2.7, §2.8). */
async function properties(request, userId, principal, routes) {
  allow(request, ['GET', 'PUT', 'DELETE']);
  const who = await principal();
  requireScope(who, request.method === 'GET' || request.method === 'HEAD' ? 'memory:read' : 'memory:write');
  requireAccess(who, userId);
  const { ops } = routes;
  if (request.method === 'GET' || request.method === 'HEAD') return json(await readProperties(routes.entries, userId));
  if (request.method === 'DELETE') return json({ deleted: await ops.deleteProperties(userId, who) });
  const body = await readJson(request);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw invalid([{ field: '', message: 'the body must be a JSON object of { key: value }' }]);
  }
  // Empty and `_gdpr_` keys: the core refuses the whole merge (E_ARGUMENT → 400).
  return json({ written: await ops.merge(userId, body, who) });
}

/** Settings → Context Memory (behaviour §1.10) for the principal itself. */
/** What the Settings page shows when memory is off, by `resolveEnablement` reason. */
const UNAVAILABLE = Object.freeze({
  'feature-flag-off': 'Context memory is not enabled for your organisation.',
  'space-disabled': 'Context memory is turned off for this space.',
  'web-search-enabled': WEB_SEARCH_TOOLTIP,
  'user-opted-out': 'You turned context memory off in your preferences. What is stored is kept; turn it back on to see and edit it.',
});

/**
 * behaviour §1.10 Settings: `GET` → `getMyContextMemory`; `PUT` (`{ body }` as JSON, or the body as
 * text/markdown or text/plain) → `updateMyContextMemory`, answered with the stored view and the
 * diagnostics. With an `enablement(request, principal)` option whose inputs `resolveEnablement`
 * turns off, both answer 403 `E_MEMORY_DISABLED` with `details.reason` (the Settings editor's
 * "unavailable" state).
 */
async function contextMemory(request, principal, routes) {
  allow(request, ['GET', 'PUT']);
  const who = await principal();
  requireScope(who, request.method === 'PUT' ? 'profile:write' : 'profile:read');
  const { enablement } = routes;
  const profiles = routes.profiles;
  if (enablement) {
    let inputs;
    try {
      inputs = await enablement(request, who);
    } catch (error) {
      throw new HttpFailure(500, `enablement failed: ${error?.message ?? error}`, { code: 'E_HOST' });
    }
    if (inputs !== null && inputs !== undefined) {
      const decision = resolveEnablement(inputs);
      if (!decision.enabled) {
        throw new HttpFailure(403, UNAVAILABLE[decision.reason] ?? `context memory is off (${decision.reason})`, { code: 'E_MEMORY_DISABLED', details: { reason: decision.reason } });
      }
    }
  }
  if (request.method === 'GET' || request.method === 'HEAD') return json(await profiles.getMyContextMemory(who.userId));
  const type = mediaType(request);
  let body;
  if (type === 'application/json') {
    const parsed = await readJson(request);
    if (parsed === null || typeof parsed !== 'object' || typeof parsed.body !== 'string') {
      throw invalid([{ field: 'body', message: 'body is required (a string)' }]);
    }
    body = parsed.body;
  } else if (type === 'text/plain' || type === 'text/markdown') {
    body = await readText(request);
  } else {
    throw new HttpFailure(415, 'send the profile body as text/markdown, text/plain or application/json { body }');
  }
  const saved = await profiles.updateMyContextMemory(who.userId, body);
  const view = await profiles.getMyContextMemory(who.userId);
  return json({ saved: true, ...view, diagnostics: saved.diagnostics ?? [], redactedSecrets: saved.redactedSecrets ?? 0 });
}

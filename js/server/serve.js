// `memcore serve` (behaviour §8.7): the memory service as a process, on one database — REST, the
// MCP endpoints (admin and agent), GraphQL (Settings → Context Memory), `GET /healthz` and
// `GET /metrics` (admin), API keys from the database, optional JWTs, limits on, one JSON log line
// per request, and a graceful drain on SIGTERM/SIGINT. Node only (node:http); the CLI
// (bin/memcore.js) parses the flags and opens the database, this module serves it.
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import { ContextMemory, version } from '../node.js';
import { contextMemoryRootValue, contextMemoryTypeDefs, createContextMemoryResolvers } from '../graphql.js';
import { createTelemetry } from '../telemetry/core.js';
import { apiKeys } from './api-keys.js';
import { createMemoryHandler, routeTemplate } from './handler.js';
import { errorResponse, failureResponse, HttpFailure, json, readJson } from './http.js';
import { toNodeListener } from './node-listener.js';

/** The limits `memcore serve` runs with unless told otherwise (per principal). */
export const SERVE_LIMITS = Object.freeze({ requestsPerMinute: 600, writesPerMinute: 120, maxConcurrent: 32 });
/** How long a drain waits for the requests in flight before it closes what is left. */
export const DEFAULT_DRAIN_MS = 30_000;

const PROMETHEUS = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * The operators' console's files (in the package's `console/`): no credential is needed to load
 * them — they hold no data; every call the page makes carries the operator's key — and each is
 * served with a Content-Security-Policy that lets the page load and talk to this origin only.
 */
export const CONSOLE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
/** The console's files, all of them (the smoke test measures their size together). */
export const CONSOLE_ASSETS = ['index.html', 'console.js', 'app.js', 'dom.js', 'views.js', 'admin-views.js', 'line-diff.js', 'console.css'];
const CONSOLE_TYPES = { html: 'text/html; charset=utf-8', js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };
const CONSOLE_FILES = Object.fromEntries([
  ['/console/', ['index.html', CONSOLE_TYPES.html]],
  ...CONSOLE_ASSETS.map((file) => [`/console/${file}`, [file, CONSOLE_TYPES[file.slice(file.lastIndexOf('.') + 1)]]]),
]);
const CONSOLE_HEADERS = { 'content-security-policy': CONSOLE_CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'cross-origin-opener-policy': 'same-origin', 'cache-control': 'no-cache' };

async function consoleAsset(request, pathname) {
  if (pathname === '/console') return new Response(null, { status: 308, headers: { location: '/console/', ...CONSOLE_HEADERS } });
  const file = CONSOLE_FILES[pathname];
  if (request.method !== 'GET' && request.method !== 'HEAD') return new Response('GET only\n', { status: 405, headers: { allow: 'GET, HEAD', ...CONSOLE_HEADERS } });
  if (!file) return new Response('not found\n', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8', ...CONSOLE_HEADERS } });
  let body;
  try {
    body = await readFile(new URL(`../console/${file[0]}`, import.meta.url));
  } catch {
    return new Response('the console is not in this package\n', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8', ...CONSOLE_HEADERS } });
  }
  return new Response(request.method === 'HEAD' ? null : body, { headers: { 'content-type': file[1], ...CONSOLE_HEADERS } });
}

/** True when `principal` may act as an administrator (the `admin` scope, or `admin: true` without scopes). */
function isAdmin(principal) {
  if (principal === null || typeof principal !== 'object') return false;
  return Array.isArray(principal.scopes) ? principal.scopes.includes('admin') : principal.admin === true;
}

/**
 * The service's request handler over an opened database (`openSqlite`/`openPostgres`): keys from
 * the database, then `jwt` (`bearerJwt`'s `authenticate`) when given. Resolves to `{ handler,
 * telemetry, keys, state }`; `state.draining` turns `/healthz` to 503.
 */
export async function createService(db, { jwt, embedder, model, limits = SERVE_LIMITS, kind = 'sqlite' } = {}) {
  const telemetry = createTelemetry();
  const keys = apiKeys({ store: db });
  const authenticate = async (request) => (await keys.authenticate(request)) ?? (jwt ? jwt(request) : null);
  const memory = new ContextMemory({ storage: db, entries: db, ...(model ? { model } : {}), ...(embedder ? { embedder } : {}), telemetry });
  const memoryHandler = createMemoryHandler({
    entries: db,
    profiles: memory,
    apiKeys: keys,
    authenticate,
    limits,
    telemetry,
    ...(embedder ? { embedder } : {}),
    ...(model ? { model } : {}),
  });
  const state = { draining: false };
  const graphql = graphqlRoute(db, memory, authenticate);
  const handler = async (request) => {
    const { pathname } = new URL(request.url);
    if (pathname === '/healthz') {
      if (request.method !== 'GET' && request.method !== 'HEAD') return failureResponse(new HttpFailure(405, 'GET /healthz', { headers: { allow: 'GET, HEAD' } }));
      return json({ ok: !state.draining, ...(state.draining ? { draining: true } : {}), version: version(), database: kind }, state.draining ? 503 : 200);
    }
    if (pathname === '/metrics') return metrics(request, authenticate, telemetry);
    if (pathname === '/graphql') return graphql(request);
    if (pathname === '/console' || pathname.startsWith('/console/')) return consoleAsset(request, pathname);
    return memoryHandler(request);
  };
  return { handler, telemetry, keys, memory, state };
}

async function principalOf(request, authenticate) {
  try {
    return await authenticate(request);
  } catch (error) {
    throw error instanceof HttpFailure ? error : new HttpFailure(401, String(error?.message ?? error), { headers: { 'www-authenticate': 'Bearer' } });
  }
}

/** `GET /metrics`: the Prometheus text of every request, tool call and store call, for admins. */
async function metrics(request, authenticate, telemetry) {
  try {
    if (request.method !== 'GET') throw new HttpFailure(405, 'GET /metrics', { headers: { allow: 'GET' } });
    const principal = await principalOf(request, authenticate);
    if (!principal) throw new HttpFailure(401, 'an admin API key or token is required', { headers: { 'www-authenticate': 'Bearer' } });
    if (!isAdmin(principal)) throw new HttpFailure(403, '/metrics is for administrators (scope admin)');
    return new Response(telemetry.metrics().prometheus(), { headers: { 'content-type': PROMETHEUS } });
  } catch (error) {
    return error instanceof HttpFailure ? failureResponse(error) : errorResponse(error);
  }
}

/**
 * `POST /graphql` `{ query, variables? }`: Settings → Context Memory (memcore/graphql) for the
 * authenticated user, with the optional peer `graphql`; without it 501.
 */
function graphqlRoute(db, memory, authenticate) {
  let loaded;
  const views = new Map();
  const memoryOf = (tenantId) => {
    if (tenantId === undefined || tenantId === null) return memory;
    if (!views.has(tenantId)) views.set(tenantId, new ContextMemory({ storage: db.forTenant(tenantId), entries: db.forTenant(tenantId) }));
    return views.get(tenantId);
  };
  return async (request) => {
    try {
      if (request.method !== 'POST') throw new HttpFailure(405, 'POST /graphql with { query, variables }', { headers: { allow: 'POST' } });
      loaded ??= import('graphql').then((g) => ({ g, schema: g.buildSchema(contextMemoryTypeDefs) })).catch((error) => {
        loaded = undefined;
        throw new HttpFailure(501, `GraphQL needs the optional peer dependency graphql (npm install graphql): ${error?.message ?? error}`, { code: 'E_GRAPHQL_UNAVAILABLE' });
      });
      const { g, schema } = await loaded;
      const principal = await principalOf(request, authenticate);
      if (!principal) throw new HttpFailure(401, 'an API key or token is required', { headers: { 'www-authenticate': 'Bearer' } });
      const body = await readJson(request);
      if (body === null || typeof body !== 'object' || typeof body.query !== 'string') throw new HttpFailure(400, 'the body must be { query, variables? }', { code: 'E_ARGUMENT' });
      const resolvers = createContextMemoryResolvers({ contextMemory: memoryOf(principal.tenantId), userIdFrom: () => principal.userId });
      const result = await g.graphql({ schema, source: body.query, variableValues: body.variables ?? undefined, rootValue: contextMemoryRootValue(resolvers), contextValue: {} });
      return json(result);
    } catch (error) {
      return error instanceof HttpFailure ? failureResponse(error) : errorResponse(error);
    }
  };
}

/**
 * Listen on `host:port` and serve until `stop()`: one JSON log line per request on `log`
 * (`{ level, event: 'http.request', method, route, status, ms }` — the route template, never an
 * id), the drain on `stop()` (healthz 503, no new connections, the requests in flight answered,
 * up to `drainMs`). Resolves to `{ url, server, stop() }`; rejects with Node's error (`EADDRINUSE`,
 * …) when it cannot listen.
 */
export async function listen(service, { host = '127.0.0.1', port = 8787, log = () => {}, drainMs = DEFAULT_DRAIN_MS } = {}) {
  let inFlight = 0;
  let idle = null;
  const logged = async (request) => {
    const started = performance.now();
    let status = 500;
    try {
      const response = await service.handler(request);
      status = response.status;
      return response;
    } finally {
      const url = new URL(request.url);
      log({ level: status >= 500 ? 'error' : 'info', event: 'http.request', method: request.method, route: routeOf(url.pathname), status, ms: Math.round((performance.now() - started) * 10) / 10 });
    }
  };
  const listener = toNodeListener(logged);
  // A request is in flight from its headers until its response is written out (or its connection
  // is gone): the drain waits for exactly that.
  const server = http.createServer((req, res) => {
    inFlight += 1;
    res.once('close', () => {
      inFlight -= 1;
      if (inFlight === 0 && idle) idle();
    });
    listener(req, res);
  });
  server.keepAliveTimeout = 5_000;
  await new Promise((resolve, reject) => {
    server.once('error', reject); // EADDRINUSE, EACCES, …: the caller says what it means
    server.listen(port, host, resolve);
  });
  const address = server.address();
  let stopping = null;
  const stop = () => {
    stopping ??= (async () => {
      service.state.draining = true;
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeIdleConnections();
      const answered = inFlight === 0 ? Promise.resolve(true) : new Promise((resolve) => {
        idle = () => resolve(true);
      });
      const timer = new Promise((resolve) => {
        const t = setTimeout(() => resolve(false), drainMs);
        t.unref?.();
      });
      const clean = await Promise.race([answered, timer]);
      server.closeAllConnections();
      await closed;
      return { clean, abandoned: clean ? 0 : inFlight };
    })();
    return stopping;
  };
  return { url: `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`, server, stop, inFlight: () => inFlight };
}

/** The route template of a path for the log: `/healthz`, `/metrics`, `/graphql`, `/console/…` or the handler's. */
function routeOf(pathname) {
  if (pathname === '/healthz' || pathname === '/metrics' || pathname === '/graphql') return pathname;
  if (pathname === '/console' || pathname.startsWith('/console/')) return '/console/';
  return routeTemplate(pathname, '', ['/mcp', '/mcp/agent']);
}

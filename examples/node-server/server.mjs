// memcore example: one Node process serving entry memory over REST, the MCP tools over Streamable
// HTTP and the profile settings (`/contextmemory/me`) on one port, from one database.
//
//   PORT                  port to listen on (default 8787; 0 picks a free one), on HOST (default 127.0.0.1)
//   MEMCORE_DB            the SQLite file (default ./memcore.db)
//   MEMCORE_DATABASE_URL  postgres://… — use PostgreSQL instead of SQLite
//   MEMCORE_ADMIN_TOKEN   a bearer token that authenticates as an administrator (unset: no admin)
//   MEMCORE_JWT_ISSUER, MEMCORE_JWT_AUDIENCE, MEMCORE_JWKS_URL
//                         accept JWTs of that issuer (bearerJwt; needs `jose`); turns the demo tokens off
//   MEMCORE_DEMO_AUTH     '1': the demo tokens below even with JWTs; '0': never (default: on without JWTs)
//
// Telemetry (memcore/telemetry): every request, MCP tool call and store call is counted, and
// GET /metrics answers the Prometheus text to the admin token (a scrape config's bearer token).
// When @opentelemetry/api is installed the spans and metrics also go to the tracer and meter
// providers your process registered (e.g. `node --import ./otel-setup.mjs server.mjs`).
//
// Authentication, in order: an API key (`mk_…`, issued by an admin at POST /admin/keys and kept
// hashed in the database), then a JWT when MEMCORE_JWT_* is set, then the admin token, then — only
// as a local demo — a bearer token that simply NAMES the user (`Bearer alice` is alice).
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { ContextMemory } from 'memcore';
import { apiKeys, createMemoryHandler, toNodeListener } from 'memcore/server';
import { createTelemetry } from 'memcore/telemetry';

const USER_ID = /^[A-Za-z0-9._@-]{1,128}$/;

/** Demo authentication (a stand-in): `Bearer <userId>`, or `Bearer <MEMCORE_ADMIN_TOKEN>` for an admin. */
export function demoAuthenticate({ adminToken, demo = true } = {}) {
  return (request) => {
    const header = request.headers.get('authorization') ?? '';
    if (!header.startsWith('Bearer ')) return null;
    const token = header.slice('Bearer '.length).trim();
    if (adminToken && token === adminToken) return { userId: 'admin', admin: true };
    return demo && USER_ID.test(token) ? { userId: token } : null;
  };
}

/**
 * The example's authentication: API keys from the database, then JWTs when `jwt` is given
 * (`{ issuer, audience, jwksUrl }`), then the admin token and the demo tokens.
 */
export async function authentication(db, { adminToken, jwt, demo = !jwt } = {}) {
  const keys = apiKeys({ store: db });
  let verifyJwt = null;
  if (jwt) {
    const { bearerJwt } = await import('memcore/server/jwt'); // needs jose (npm install jose)
    verifyJwt = bearerJwt({ issuer: jwt.issuer, audience: jwt.audience, jwks: jwt.jwksUrl });
  }
  const fallback = demoAuthenticate({ adminToken, demo });
  const bearerOf = (request) => (request.headers.get('authorization') ?? '').replace(/^Bearer\s+/i, '');
  return {
    keys,
    authenticate: async (request) => {
      const byKey = await keys.authenticate(request);
      if (byKey) return byKey;
      // A JWT has two dots; the admin and demo tokens have none.
      if (verifyJwt && bearerOf(request).split('.').length === 3) return verifyJwt(request);
      return fallback(request);
    },
  };
}

/** Open the database: PostgreSQL when `databaseUrl` is given, else the SQLite file `dbPath`. */
export async function openDatabase({ dbPath = './memcore.db', databaseUrl } = {}) {
  if (databaseUrl) {
    const { openPostgres } = await import('memcore/adapters/postgres');
    return openPostgres(databaseUrl);
  }
  const { openSqlite } = await import('memcore/adapters/sqlite');
  return openSqlite(dbPath);
}

/** The host's OpenTelemetry API when it is installed (an optional peer), else null. */
async function openTelemetryApi() {
  try {
    return await import('@opentelemetry/api');
  } catch {
    return null;
  }
}

/**
 * The handler over one database: the SQL store is the entry store, the ContextMemory's profile
 * storage and its `entries` (so erasure, export and the restriction flag cover both); `/metrics`
 * in front of it. `model` (optional) serves `POST …/{userId}/learn`; `embedder` (optional) gives
 * search by meaning and a vector for every write.
 */
export async function createApp(db, { adminToken, config, jwt, demo, model, embedder } = {}) {
  const telemetry = createTelemetry({ api: await openTelemetryApi() });
  const memory = new ContextMemory({ storage: db, entries: db, telemetry, ...(model ? { model } : {}), ...(embedder ? { embedder } : {}) });
  const { keys, authenticate } = await authentication(db, { adminToken, jwt, ...(demo === undefined ? {} : { demo }) });
  const memoryHandler = createMemoryHandler({
    entries: db,
    profiles: memory,
    apiKeys: keys, // /admin/keys
    authenticate,
    config,
    telemetry,
    ...(model ? { model } : {}),
    ...(embedder ? { embedder } : {}),
  });
  const handler = (request) => {
    if (new URL(request.url).pathname !== '/metrics') return memoryHandler(request);
    const authorized = adminToken && request.headers.get('authorization') === `Bearer ${adminToken}`;
    if (!authorized) return new Response('the admin token is required\n', { status: 401, headers: { 'www-authenticate': 'Bearer' } });
    return new Response(telemetry.metrics().prometheus(), { headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' } });
  };
  return { handler, memory, keys, telemetry };
}

/** Open the database and listen; resolves to `{ url, server, db, close() }`. */
export async function start({
  port = 8787,
  host = '127.0.0.1',
  dbPath,
  databaseUrl,
  adminToken,
  config,
  jwt,
  demo,
  model,
  embedder,
} = {}) {
  const db = await openDatabase({ dbPath, databaseUrl });
  const { handler } = await createApp(db, { adminToken, config, jwt, demo, model, embedder });
  const server = http.createServer(toNodeListener(handler));
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const { port: actual } = server.address();
  return {
    url: `http://${host}:${actual}`,
    server,
    db,
    close: async () => {
      await new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      });
      await db.close();
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const app = await start({
    port: Number(process.env.PORT ?? 8787),
    host: process.env.HOST ?? '127.0.0.1',
    dbPath: process.env.MEMCORE_DB ?? './memcore.db',
    databaseUrl: process.env.MEMCORE_DATABASE_URL || undefined,
    adminToken: process.env.MEMCORE_ADMIN_TOKEN || undefined,
    jwt: process.env.MEMCORE_JWT_ISSUER
      ? { issuer: process.env.MEMCORE_JWT_ISSUER, audience: process.env.MEMCORE_JWT_AUDIENCE, jwksUrl: process.env.MEMCORE_JWKS_URL }
      : undefined,
    demo: process.env.MEMCORE_DEMO_AUTH ? process.env.MEMCORE_DEMO_AUTH === '1' : undefined,
  });
  const store = process.env.MEMCORE_DATABASE_URL ? 'PostgreSQL (MEMCORE_DATABASE_URL)' : `SQLite ${process.env.MEMCORE_DB ?? './memcore.db'}`;
  // The test waits for this line.
  console.log(`memcore example listening on ${app.url} (${store}); REST /usermemorystore/memories, MCP /mcp, settings /contextmemory/me`);
  const stop = () => app.close().then(() => process.exit(0), () => process.exit(1));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

// memcore example: one Node process serving entry memory over REST, the MCP tools over Streamable
// HTTP and the profile settings (`/contextmemory/me`) on one port, from one database.
//
//   PORT                  port to listen on (default 8787; 0 picks a free one), on HOST (default 127.0.0.1)
//   MEMCORE_DB            the SQLite file (default ./memcore.db)
//   MEMCORE_DATABASE_URL  postgres://… — use PostgreSQL instead of SQLite
//   MEMCORE_ADMIN_TOKEN   a bearer token that authenticates as an administrator (unset: no admin)
//
// `authenticate` below is a STAND-IN for your real authentication: the bearer token simply names
// the user (`Authorization: Bearer alice` is alice). Replace it with a check of your sessions/JWTs.
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { ContextMemory } from 'memcore';
import { createMemoryHandler, toNodeListener } from 'memcore/server';

const USER_ID = /^[A-Za-z0-9._@-]{1,128}$/;

/** Demo authentication (a stand-in): `Bearer <userId>`, or `Bearer <MEMCORE_ADMIN_TOKEN>` for an admin. */
export function demoAuthenticate({ adminToken } = {}) {
  return (request) => {
    const header = request.headers.get('authorization') ?? '';
    if (!header.startsWith('Bearer ')) return null;
    const token = header.slice('Bearer '.length).trim();
    if (adminToken && token === adminToken) return { userId: 'admin', admin: true };
    return USER_ID.test(token) ? { userId: token } : null;
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

/**
 * The handler over one database: the SQL store is the entry store, the ContextMemory's profile
 * storage and its `entries` (so erasure, export and the restriction flag cover both).
 */
export function createApp(db, { adminToken, config } = {}) {
  const memory = new ContextMemory({ storage: db, entries: db });
  const handler = createMemoryHandler({
    entries: db,
    profiles: memory,
    authenticate: demoAuthenticate({ adminToken }),
    config,
  });
  return { handler, memory };
}

/** Open the database and listen; resolves to `{ url, server, db, close() }`. */
export async function start({
  port = 8787,
  host = '127.0.0.1',
  dbPath,
  databaseUrl,
  adminToken,
  config,
} = {}) {
  const db = await openDatabase({ dbPath, databaseUrl });
  const { handler } = createApp(db, { adminToken, config });
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
  });
  const store = process.env.MEMCORE_DATABASE_URL ? 'PostgreSQL (MEMCORE_DATABASE_URL)' : `SQLite ${process.env.MEMCORE_DB ?? './memcore.db'}`;
  // The test waits for this line.
  console.log(`memcore example listening on ${app.url} (${store}); REST /usermemorystore/memories, MCP /mcp, settings /contextmemory/me`);
  const stop = () => app.close().then(() => process.exit(0), () => process.exit(1));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

// memcore example: a Cloudflare Worker serving entry memory over REST, the MCP tools over
// Streamable HTTP and the profile settings (`/contextmemory/me`) from one D1 database.
//
// Authentication, in order: an API key (`Bearer mk_…`, issued by an administrator at
// POST /admin/keys, kept hashed in D1); the token equal to the ADMIN_TOKEN secret (`wrangler
// secret put ADMIN_TOKEN`), an administrator; and — unless the DEMO_AUTH variable is "0" — a
// STAND-IN where the bearer token simply names the user (`Bearer alice` is alice). Set
// DEMO_AUTH = "0" before deploying for real (or add bearerJwt from memcore/server/jwt).
import { ContextMemory } from 'memcore';
import { openD1 } from 'memcore/adapters/d1';
import { apiKeys, createMemoryHandler } from 'memcore/server';

const USER_ID = /^[A-Za-z0-9._@-]{1,128}$/;

function authenticate(env, keys) {
  return async (request) => {
    const byKey = await keys.authenticate(request);
    if (byKey) return byKey;
    const header = request.headers.get('authorization') ?? '';
    if (!header.startsWith('Bearer ')) return null;
    const token = header.slice('Bearer '.length).trim();
    if (env.ADMIN_TOKEN && token === env.ADMIN_TOKEN) return { userId: 'admin', admin: true };
    return env.DEMO_AUTH !== '0' && USER_ID.test(token) ? { userId: token } : null;
  };
}

// One open per isolate: the binding stays the same. Built on the first request (Workers allow no
// I/O at global scope); a failed open (D1 briefly unavailable) is retried on the next request.
let handler;

async function handlerFor(env) {
  handler ??= openD1(env.DB).then(
    (db) => {
      const keys = apiKeys({ store: db });
      return createMemoryHandler({
        entries: db,
        profiles: new ContextMemory({ storage: db, entries: db }),
        apiKeys: keys, // /admin/keys
        authenticate: authenticate(env, keys),
      });
    },
    (error) => {
      handler = undefined;
      throw error;
    },
  );
  return handler;
}

export default {
  async fetch(request, env) {
    try {
      return (await handlerFor(env))(request);
    } catch (error) {
      return Response.json({ error: { code: 'E_HOST', message: `the database could not be opened: ${error?.message ?? error}` } }, { status: 503 });
    }
  },
};

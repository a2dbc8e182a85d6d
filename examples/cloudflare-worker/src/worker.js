// memcore example: a Cloudflare Worker serving entry memory over REST, the MCP tools over
// Streamable HTTP and the profile settings (`/contextmemory/me`) from one D1 database.
//
// `authenticate` is a STAND-IN for your real authentication: the bearer token simply names the
// user (`Authorization: Bearer alice` is alice); the token equal to the ADMIN_TOKEN secret
// (`wrangler secret put ADMIN_TOKEN`) is an administrator. Replace it before deploying for real.
import { ContextMemory } from 'memcore';
import { openD1 } from 'memcore/adapters/d1';
import { createMemoryHandler } from 'memcore/server';

const USER_ID = /^[A-Za-z0-9._@-]{1,128}$/;

function authenticate(env) {
  return (request) => {
    const header = request.headers.get('authorization') ?? '';
    if (!header.startsWith('Bearer ')) return null;
    const token = header.slice('Bearer '.length).trim();
    if (env.ADMIN_TOKEN && token === env.ADMIN_TOKEN) return { userId: 'admin', admin: true };
    return USER_ID.test(token) ? { userId: token } : null;
  };
}

// One open per isolate: the binding stays the same. Built on the first request (Workers allow no
// I/O at global scope); a failed open (D1 briefly unavailable) is retried on the next request.
let handler;

async function handlerFor(env) {
  handler ??= openD1(env.DB).then(
    (db) =>
      createMemoryHandler({
        entries: db,
        profiles: new ContextMemory({ storage: db, entries: db }),
        authenticate: authenticate(env),
      }),
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

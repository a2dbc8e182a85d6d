// The Settings → Context Memory surface as a Fetch-API handler: `GET`/`PUT /contextmemory/me` over a
// `ContextMemory` (SPEC §1.10). A stand-in for `createMemoryHandler` (memcore/server) until that is
// merged: same shape `(Request) => Promise<Response>`, so serve.mjs can swap it in one line.
// The JSON contract is written down in the README ("The browser: Settings editor and playground").
import { MAX_EDIT_BODY_BYTES, MemcoreError, WEB_SEARCH_TOOLTIP, memoryView, resolveEnablement } from './memcore.mjs';

export const SETTINGS_PATH = '/contextmemory/me';

// A JSON request carrying a 1 MiB body can be up to ~6 bytes per byte once escaped (\uXXXX); read
// at most this much before refusing without parsing.
const MAX_REQUEST_BYTES = MAX_EDIT_BODY_BYTES * 6 + 1024;

/** Why memory is off, in words the user can act on (the web-search case is the admin tooltip). */
const UNAVAILABLE = {
  'feature-flag-off': 'Context memory is not enabled for your organisation.',
  'space-disabled': 'Context memory is turned off for this space.',
  'web-search-enabled': WEB_SEARCH_TOOLTIP,
  'user-opted-out': 'You turned context memory off in your preferences. What is stored is kept; turn it back on to see and edit it.',
};

const json = (status, value, headers = {}) =>
  new Response(JSON.stringify(value), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  });
const failure = (status, code, message, details) => json(status, { error: { code, message, ...(details ? { details } : {}) } });

/** Read a request body up to `limit` bytes; `null` when it is longer. */
async function readLimited(request, limit) {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) return null;
  const reader = request.body?.getReader();
  if (!reader) return '';
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/**
 * @param {object} options
 * @param {import('memcore').ContextMemory} options.memory
 * @param {(request: Request) => { userId: string } | null | Promise<{ userId: string } | null>} options.authenticate
 * @param {() => import('memcore').EnablementInputs | null} [options.enablement] inputs of
 *   `resolveEnablement` for this user; `null`/absent → enabled
 * @returns {(request: Request) => Promise<Response | null>} `null` for paths it does not serve
 */
export function createSettingsHandler({ memory, authenticate, enablement = () => null }) {
  return async (request) => {
    const { pathname } = new URL(request.url);
    if (pathname !== SETTINGS_PATH) return null;
    if (request.method !== 'GET' && request.method !== 'PUT') {
      return json(405, { error: { code: 'E_METHOD', message: `${request.method} is not allowed here` } }, { allow: 'GET, PUT' });
    }
    const principal = await authenticate(request);
    if (!principal) return failure(401, 'E_UNAUTHENTICATED', 'sign in to see your context memory');
    const inputs = enablement();
    if (inputs) {
      const decision = resolveEnablement(inputs);
      if (!decision.enabled) {
        return failure(403, 'E_MEMORY_DISABLED', UNAVAILABLE[decision.reason] ?? decision.reason, { reason: decision.reason });
      }
    }
    try {
      if (request.method === 'GET') return json(200, await memory.getMyContextMemory(principal.userId));
      if (!/^application\/json\b/i.test(request.headers.get('content-type') ?? '')) {
        return failure(415, 'E_ARGUMENT', 'send the body as JSON: { "body": "…" } with content-type application/json');
      }
      const raw = await readLimited(request, MAX_REQUEST_BYTES);
      if (raw === null) return failure(413, 'E_TOO_LARGE', `the request is larger than a ${MAX_EDIT_BODY_BYTES}-byte body can be`, { limit: MAX_EDIT_BODY_BYTES });
      let body;
      try {
        body = JSON.parse(raw)?.body;
      } catch {
        return failure(400, 'E_ARGUMENT', 'the request is not valid JSON');
      }
      if (typeof body !== 'string') return failure(400, 'E_ARGUMENT', '`body` must be a string');
      const { text, diagnostics } = await memory.updateMyContextMemory(principal.userId, body);
      return json(200, { ...memoryView(text), diagnostics });
    } catch (error) {
      if (error instanceof MemcoreError) {
        const status = { E_TOO_LARGE: 413, E_INVALID_USER_ID: 400, E_ARGUMENT: 400 }[error.code] ?? 500;
        // Storage details (paths, errno) stay in the server.
        return failure(status, error.code, error.message, status < 500 ? error.details : undefined);
      }
      return failure(500, 'E_INTERNAL', String(error?.message ?? error));
    }
  };
}

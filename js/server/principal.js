// The principal rules of memcore/server, one implementation for REST and MCP: the host's
// `authenticate(request)` names the principal `{ userId, admin? }` or null; a principal acts on
// its own memory, an admin on any user's.
import { HttpFailure } from './http.js';
import { FORBIDDEN_MESSAGE } from './outcomes.js';

/** The principal of a request: 401 when there is none, 500 when `authenticate` fails. */
export async function principalOf(authenticate, request) {
  let found;
  try {
    found = await authenticate(request);
  } catch (error) {
    throw new HttpFailure(500, `authenticate failed: ${describeError(error)}`, { code: 'E_HOST' });
  }
  if (found === null || found === undefined || found === false) {
    throw new HttpFailure(401, 'authentication required', { headers: { 'www-authenticate': 'Bearer' } });
  }
  let userId;
  let admin;
  let agentId;
  let groupId;
  try {
    ({ userId, admin, agentId, groupId } = found);
  } catch {
    userId = undefined;
  }
  const optional = (v) => v === undefined || v === null || (typeof v === 'string' && v.trim() !== '');
  if (typeof userId !== 'string' || userId.trim() === '' || !optional(agentId) || !optional(groupId)) {
    throw new HttpFailure(500, 'authenticate must return { userId: string, admin?: boolean, agentId?: string, groupId?: string } or null', { code: 'E_HOST' });
  }
  // The agent endpoint binds its tools to the principal's agent and group (never to an argument).
  return Object.freeze({ userId, admin: admin === true, ...(agentId ? { agentId } : {}), ...(groupId ? { groupId } : {}) });
}

/** Whether `principal` may act on `userId`'s memory. */
export function mayAct(principal, userId) {
  return principal.admin || principal.userId === userId;
}

/** 403 unless `principal` may act on `userId`'s memory. */
export function requireAccess(principal, userId) {
  if (!mayAct(principal, userId)) {
    throw new HttpFailure(403, FORBIDDEN_MESSAGE);
  }
}

/** 403 unless `principal` is an admin (SPEC §2.8: admin routes). */
export function requireAdmin(principal) {
  if (!principal.admin) throw new HttpFailure(403, 'this route is for administrators');
}

function describeError(error) {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'it threw';
  }
}

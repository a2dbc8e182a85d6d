// The principal rules of memcore/server, one implementation for REST and MCP: the host's
// `authenticate(request)` names the principal `{ tenantId?, userId, agentId?, groupId?, admin? }`
// or null; a principal acts on its own memory, an admin on any user's — always inside the
// principal's tenant (the handler serves it from the stores' `forTenant(tenantId)` views).
import { HttpFailure } from './http.js';
import { FORBIDDEN_MESSAGE } from './outcomes.js';
import { checkTenantId } from '../tenants.js';

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
  let tenantId;
  try {
    ({ userId, admin, agentId, groupId, tenantId } = found);
  } catch {
    userId = undefined;
  }
  const optional = (v) => v === undefined || v === null || (typeof v === 'string' && v.trim() !== '');
  if (typeof userId !== 'string' || userId.trim() === '' || !optional(agentId) || !optional(groupId) || !validTenant(tenantId)) {
    throw new HttpFailure(500, 'authenticate must return { tenantId?: string, userId: string, admin?: boolean, agentId?: string, groupId?: string } or null', { code: 'E_HOST' });
  }
  // The agent endpoint binds its tools to the principal's agent and group (never to an argument);
  // every route and tool reads and writes the principal's tenant only.
  return Object.freeze({
    ...(tenantId === undefined || tenantId === null ? {} : { tenantId }),
    userId, admin: admin === true, ...(agentId ? { agentId } : {}), ...(groupId ? { groupId } : {}),
  });
}

/** An absent tenant (the default tenant) or a valid tenant id (tenants.js). */
function validTenant(tenantId) {
  if (tenantId === undefined || tenantId === null) return true;
  try {
    checkTenantId(tenantId, 'authenticate');
    return true;
  } catch {
    return false;
  }
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

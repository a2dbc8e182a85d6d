// The principal rules of memcore/server, one implementation for REST and MCP: the host's
// `authenticate(request)` names the principal `{ tenantId?, userId, agentId?, groupId?, admin?,
// scopes? }` or null; a principal acts on its own memory, an admin on any user's — always inside
// the principal's tenant (the handler serves it from the stores' `forTenant(tenantId)` views) and
// within its scopes (./scopes.js).
import { HttpFailure } from './http.js';
import { FORBIDDEN_MESSAGE } from './outcomes.js';
import { FROM_CREDENTIAL, UNAUTHENTICATED } from './credentials.js';
import { checkUserId } from '../api/editing.js';
import { checkScopes, hasScope, missingScopeMessage } from './scopes.js';
import { checkTenantId } from '../tenants.js';

/** The principal of a request: 401 when there is none, 500 when `authenticate` fails. */
export async function principalOf(authenticate, request) {
  let found;
  try {
    found = await authenticate(request);
  } catch (error) {
    // bearerJwt and apiKeys refuse a bad credential as 401 with the reason (./credentials.js).
    if (isRefusal(error)) throw new HttpFailure(401, error.message, { headers: { ...error.headers } });
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
  let scopes;
  try {
    ({ userId, admin, agentId, groupId, tenantId, scopes } = found);
  } catch {
    userId = undefined;
  }
  const optional = (v) => v === undefined || v === null || (typeof v === 'string' && v.trim() !== '');
  let checkedScopes;
  try {
    checkedScopes = checkScopes(scopes);
  } catch {
    checkedScopes = null;
  }
  const fromToken = isMarked(found);
  // The one user-id rule of every write and of erasure (checkUserId), and the tenant rule: a
  // credential naming an id memcore refuses is refused (401); a host's `authenticate` answering
  // one is the host's error (500).
  if (typeof userId === 'string' && userId.trim() !== '' && (!validUser(userId) || !validTenant(tenantId)) && fromToken) {
    throw new HttpFailure(401, `invalid token: the token names a ${validUser(userId) ? 'tenant' : 'user'} id memcore refuses`, { headers: { 'www-authenticate': 'Bearer error="invalid_token"' } });
  }
  if (typeof userId !== 'string' || userId.trim() === '' || !validUser(userId) || !optional(agentId) || !optional(groupId) || !validTenant(tenantId) || checkedScopes === null) {
    throw new HttpFailure(500, 'authenticate must return { tenantId?: string, userId: string, admin?: boolean, agentId?: string, groupId?: string, scopes?: Scope[] } or null, with a user id memcore accepts (checkUserId) and a tenant id of at most 128 bytes', { code: 'E_HOST' });
  }
  // The agent endpoint binds its tools to the principal's agent and group (never to an argument);
  // every route and tool reads and writes the principal's tenant only.
  return Object.freeze({
    ...(tenantId === undefined || tenantId === null ? {} : { tenantId }),
    userId,
    // With scopes, only the `admin` scope makes an administrator (the flag alone does not).
    admin: checkedScopes === undefined ? admin === true : checkedScopes.includes('admin'),
    ...(agentId ? { agentId } : {}), ...(groupId ? { groupId } : {}),
    ...(checkedScopes === undefined ? {} : { scopes: checkedScopes }),
  });
}

/** A credential refused by bearerJwt or apiKeys (never a host's own thrown value's getters). */
function isRefusal(error) {
  try {
    return error instanceof Error && error[UNAUTHENTICATED] === true && typeof error.message === 'string';
  } catch {
    return false;
  }
}

/** Whether a credential (bearerJwt, apiKeys) named the principal (./credentials.js). */
function isMarked(found) {
  try {
    return found !== null && typeof found === 'object' && found[FROM_CREDENTIAL] === true;
  } catch {
    return false;
  }
}

/** A user id memcore accepts (the core's rule). */
function validUser(userId) {
  try {
    checkUserId(userId);
    return true;
  } catch {
    return false;
  }
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

/** 403 naming the scope unless `principal` holds it (./scopes.js). */
export function requireScope(principal, scope) {
  if (!hasScope(principal, scope)) throw new HttpFailure(403, missingScopeMessage(scope), { missingScope: scope });
}

/** 403 unless `principal` is an admin (behaviour §2.8: admin routes). */
export function requireAdmin(principal) {
  if (principal.admin) return;
  // A scoped principal is told the scope it lacks; a host-trusted one that it is no administrator.
  if (!hasScope(principal, 'admin')) throw new HttpFailure(403, missingScopeMessage('admin'), { missingScope: 'admin' });
  throw new HttpFailure(403, 'this route is for administrators');
}

function describeError(error) {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'it threw';
  }
}

// memcore/server/jwt — bearerJwt: an `authenticate` for createMemoryHandler that verifies a JWT
// bearer token with jose (an optional peer dependency: only this entry point imports it, so a host
// or a bundle without JWTs never needs it). Only signed tokens of the allowed algorithms pass;
// issuer and audience are required; the principal comes from the verified claims. Imports neither
// the core nor memcore/server: a refusal is marked (./credentials.js) and answered 401 by the handler.
import { bearerToken, fromCredential, invalidToken } from './credentials.js';
import { jwtVerifier } from './jwt-verify.js';
import { SCOPES } from './scopes.js';
import { MemcoreError } from '../errors.js';

function misuse(message) {
  return new MemcoreError('E_ARGUMENT', `bearerJwt: ${message}`, { function: 'bearerJwt' });
}

/** The asymmetric algorithms allowed by default with `jwks` or a public key. */
export const ASYMMETRIC_ALGORITHMS = Object.freeze(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519']);
/** The algorithms allowed by default with a shared secret (`key` as bytes). */
export const HMAC_ALGORITHMS = Object.freeze(['HS256', 'HS384', 'HS512']);

const nonEmpty = (v) => typeof v === 'string' && v.trim() !== '';
const stringOrList = (v) => nonEmpty(v) || (Array.isArray(v) && v.length > 0 && v.every(nonEmpty));

/**
 * The principal of verified claims unless the host maps them itself: `sub` is the user,
 * `tenant_id` the tenant, `agent_id` and `group_id` the agent and group, and the memcore scopes
 * among `scope` (space-separated, RFC 9068) or `scp` (a list). A token with neither claim has no
 * scope: it can do nothing.
 */
export function defaultJwtPrincipal(payload) {
  if (!nonEmpty(payload.sub)) return null;
  const raw = typeof payload.scope === 'string' ? payload.scope.split(/\s+/) : Array.isArray(payload.scp) ? payload.scp : typeof payload.scp === 'string' ? payload.scp.split(/\s+/) : [];
  const scopes = [...new Set(raw.filter((s) => SCOPES.includes(s)))];
  const principal = { userId: payload.sub, scopes };
  for (const [claim, field] of [['tenant_id', 'tenantId'], ['agent_id', 'agentId'], ['group_id', 'groupId']]) {
    if (nonEmpty(payload[claim])) principal[field] = payload[claim];
  }
  return principal;
}

/**
 * An `authenticate(request)` for createMemoryHandler (memcore/server) that accepts `Authorization: Bearer <JWT>`
 * signed by the issuer: no header (or another scheme) is no principal (401); a token that fails
 * (expired, not yet valid, wrong issuer or audience, bad signature, unknown key, an algorithm not
 * allowed — `alg: none` never is) is 401 with the reason, never a principal.
 * @example const authenticate = bearerJwt({ issuer: 'https://auth.example.com/', audience: 'memcore', jwks: 'https://auth.example.com/.well-known/jwks.json' });
 */
export function bearerJwt(options) {
  if (options === null || typeof options !== 'object') throw misuse('options must be an object like { issuer, audience, jwks }');
  const { issuer, audience, jwks, key, algorithms, toPrincipal = defaultJwtPrincipal, clockToleranceSeconds = 0, now, jwksCooldownMs = 30_000, jwksCacheMaxAgeMs = 600_000, jwksTimeoutMs = 5_000 } = options;
  if (!stringOrList(issuer)) throw misuse('`issuer` must be the expected `iss` (a string or a list of strings)');
  if (!stringOrList(audience)) throw misuse('`audience` must be the expected `aud` (a string or a list of strings)');
  if ((jwks === undefined) === (key === undefined)) throw misuse('give exactly one of `jwks` (a URL or a JWKS object) and `key`');
  if (jwks !== undefined && !(nonEmpty(jwks) || jwks instanceof URL || (jwks !== null && typeof jwks === 'object' && Array.isArray(jwks.keys)))) {
    throw misuse('`jwks` must be the JWKS URL or a JWKS object { keys: [...] }');
  }
  if (key !== undefined && (key === null || (typeof key !== 'object' && typeof key !== 'function'))) {
    throw misuse('`key` must be a CryptoKey, a KeyObject, a JWK object or the shared secret as a Uint8Array');
  }
  if (algorithms !== undefined && !(Array.isArray(algorithms) && algorithms.length > 0 && algorithms.every(nonEmpty) && !algorithms.some((a) => a.toLowerCase() === 'none'))) {
    throw misuse('`algorithms` must be a non-empty list of JWS algorithms (never "none")');
  }
  if (typeof toPrincipal !== 'function') throw misuse('`toPrincipal` must be a function (payload, request) => principal | null');
  if (now !== undefined && typeof now !== 'function') throw misuse('`now` must be a function returning the time (a Date, milliseconds or an ISO string)');
  for (const [name, value] of [['clockToleranceSeconds', clockToleranceSeconds], ['jwksCooldownMs', jwksCooldownMs], ['jwksCacheMaxAgeMs', jwksCacheMaxAgeMs], ['jwksTimeoutMs', jwksTimeoutMs]]) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw misuse(`\`${name}\` must be a non-negative number`);
  }
  const allowed = algorithms ?? (key instanceof Uint8Array ? HMAC_ALGORITHMS : ASYMMETRIC_ALGORITHMS);
  const settings = { issuer, audience, jwks, key, algorithms: [...allowed], clockToleranceSeconds, jwksCooldownMs, jwksCacheMaxAgeMs, jwksTimeoutMs };
  const verify = jwtVerifier(settings);
  return async function authenticateJwt(request) {
    const token = bearerToken(request);
    if (token === null) return null;
    let payload;
    try {
      payload = await verify(token, now ? currentDate(now) : undefined);
    } catch (error) {
      if (error?.memcoreJwtReason) throw invalidToken(error.memcoreJwtReason);
      throw error;
    }
    const principal = await toPrincipal(payload, request);
    if (principal === null || principal === undefined) throw invalidToken('the token names no user');
    // A user or tenant id the claims give that memcore refuses is the token's fault: 401.
    return fromCredential(principal);
  };
}

function currentDate(now) {
  const value = now();
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) throw new Error('bearerJwt: `now` returned no valid time');
  return date;
}

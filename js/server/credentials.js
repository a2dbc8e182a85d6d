// What memcore/server's authenticators share: the bearer token of a request and the refusal of a
// bad credential (401 with its reason). No import: memcore/server/jwt uses it without the core.

/**
 * The mark of a refused credential: principalOf answers 401 with the message and headers. A
 * registered symbol, so the same across copies of the module (memcore/server and
 * memcore/server/jwt are separate entry points).
 */
export const UNAUTHENTICATED = Symbol.for('memcore.server.unauthenticated');

/** The token of `Authorization: Bearer <token>`, or null. */
export function bearerToken(request) {
  const header = request.headers.get('authorization');
  if (header === null) return null;
  const match = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header);
  return match ? match[1] : null;
}

/** A refused credential: 401 `invalid token: <reason>` with `WWW-Authenticate` (RFC 6750). */
export function invalidToken(reason) {
  const error = new Error(`invalid token: ${reason}`);
  error.status = 401;
  error.code = 'E_UNAUTHENTICATED';
  error.headers = { 'www-authenticate': `Bearer error="invalid_token", error_description="${reason.replace(/["\\]/g, '')}"` };
  error[UNAUTHENTICATED] = true;
  return error;
}

/**
 * The mark of a principal a credential named (bearerJwt, apiKeys): when its user or tenant id
 * breaks memcore's rules, principalOf refuses the credential (401), because the token is what is
 * wrong — not the host, as with a bad id from the host's own `authenticate` (500 `E_HOST`).
 */
export const FROM_CREDENTIAL = Symbol.for('memcore.server.fromCredential');

/** `principal` (an object) marked as named by a credential: a copy, so a frozen one works too. */
export function fromCredential(principal) {
  if (principal === null || typeof principal !== 'object') return principal;
  const copy = { ...principal };
  Object.defineProperty(copy, FROM_CREDENTIAL, { value: true });
  return copy;
}

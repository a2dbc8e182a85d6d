// Typings of memcore/server/jwt: bearerJwt, an `authenticate` for createMemoryHandler on jose.
import type { TimeInput } from '../index.js';
import type { Authenticate, Principal } from '../server.js';

/** The options of `bearerJwt`. Exactly one of `jwks` and `key`. */
export interface BearerJwtOptions {
  /** The expected `iss` (one or a list). */
  issuer: string | readonly string[];
  /** The expected `aud` (one or a list). */
  audience: string | readonly string[];
  /** The issuer's JWKS: its URL (fetched, cached, refetched for an unknown `kid` — key rotation) or a JWKS object. */
  jwks?: string | URL | { keys: readonly object[] };
  /** A key instead: a CryptoKey, a Node KeyObject, a public JWK object, or an HMAC secret as bytes. */
  key?: CryptoKey | Uint8Array | object;
  /** The allowed JWS algorithms (default: the asymmetric ones, or HS256/384/512 for a secret); never `'none'`. */
  algorithms?: readonly string[];
  /** The principal of verified claims (default `defaultJwtPrincipal`); null → 401. */
  toPrincipal?: (payload: JwtPayload, request: Request) => Principal | null | undefined | Promise<Principal | null | undefined>;
  /** Leeway for `exp`/`nbf`, in seconds (default 0). */
  clockToleranceSeconds?: number;
  /** The clock tokens are checked against (default: the system clock). */
  now?: () => TimeInput;
  /** The least time between two JWKS fetches, ms (default 30 000). */
  jwksCooldownMs?: number;
  /** How long fetched keys are trusted without a refetch, ms (default 600 000). */
  jwksCacheMaxAgeMs?: number;
  /** The deadline of a JWKS fetch, ms (default 5 000). */
  jwksTimeoutMs?: number;
}

/** The claims of a verified token. */
export interface JwtPayload {
  iss?: string;
  sub?: string;
  aud?: string | string[];
  exp?: number;
  nbf?: number;
  iat?: number;
  scope?: string;
  scp?: string | string[];
  [claim: string]: unknown;
}

/**
 * An `authenticate` verifying `Authorization: Bearer <JWT>` with jose (an optional peer
 * dependency: `npm install jose`; only this entry point imports it). A bad token is 401 `invalid token: <reason>`.
 * @example
 * const handler = createMemoryHandler({ entries, authenticate: bearerJwt({ issuer: 'https://auth.example.com/', audience: 'memcore', jwks: 'https://auth.example.com/.well-known/jwks.json' }) });
 */
export function bearerJwt(options: BearerJwtOptions): Authenticate;

/** The default claim mapping of `bearerJwt`: `sub`, `tenant_id`, `agent_id`, `group_id`, and the memcore scopes of `scope`/`scp`. */
export function defaultJwtPrincipal(payload: JwtPayload): Principal | null;


// The jose half of bearerJwt (./jwt.js). Every failure of a token is
// thrown with `memcoreJwtReason` (what 401 says); a failure of the key source (the JWKS cannot be
// fetched) is thrown as it is (500: the host's problem, not the client's).
import { createLocalJWKSet, createRemoteJWKSet, importJWK, jwtVerify } from 'jose';

const REASONS = {
  ERR_JWT_EXPIRED: 'the token has expired',
  ERR_JOSE_ALG_NOT_ALLOWED: 'the token\'s algorithm is not allowed',
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: 'the signature does not verify',
  ERR_JWKS_NO_MATCHING_KEY: 'no key of the issuer matches the token',
  ERR_JWKS_MULTIPLE_MATCHING_KEYS: 'several keys of the issuer match the token',
  ERR_JWS_INVALID: 'the token is malformed',
  ERR_JWT_INVALID: 'the token is malformed',
  ERR_JOSE_NOT_SUPPORTED: 'the token\'s algorithm is not supported',
};

const CLAIMS = { iss: 'the issuer is not the expected one', aud: 'the audience is not the expected one', nbf: 'the token is not valid yet', iat: 'the token\'s issue time is invalid', exp: 'the token\'s expiry is invalid', sub: 'the token names no user' };

/** A `(token, currentDate?) => payload` verifying with the settings bearerJwt checked. */
export function jwtVerifier({ issuer, audience, jwks, key, algorithms, clockToleranceSeconds, jwksCooldownMs, jwksCacheMaxAgeMs, jwksTimeoutMs }) {
  let source;
  if (jwks !== undefined) {
    source = typeof jwks === 'string' || jwks instanceof URL
      ? createRemoteJWKSet(new URL(jwks), { cooldownDuration: jwksCooldownMs, cacheMaxAge: jwksCacheMaxAgeMs, timeoutDuration: jwksTimeoutMs })
      : createLocalJWKSet(jwks);
  } else if (isJwk(key)) {
    const imported = importJWK(key, key.alg ?? algorithms[0]);
    imported.catch(() => {});
    source = async () => imported;
  } else {
    source = key;
  }
  return async (token, currentDate) => {
    try {
      const { payload } = await jwtVerify(token, source, { issuer, audience, algorithms, clockTolerance: clockToleranceSeconds, ...(currentDate ? { currentDate } : {}) });
      return payload;
    } catch (error) {
      const reason = REASONS[error?.code] ?? (error?.code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' ? CLAIMS[error.claim] ?? 'a claim does not validate' : undefined);
      if (reason === undefined) throw error;
      const failure = new Error(reason);
      failure.memcoreJwtReason = reason;
      throw failure;
    }
  };
}

function isJwk(key) {
  return key !== null && typeof key === 'object' && typeof key.kty === 'string' && !(key instanceof Uint8Array);
}

// The limits of memcore/server (issue 24 part 3, behaviour §8.5): per-principal token buckets for
// requests and for writes (429 with Retry-After), a bound on one principal's concurrent requests,
// and the handler's own deadline for reading a request body. No memory rule lives here.
import { DEFAULT_BODY_TIMEOUT_MS, HttpFailure } from './http.js';
import { SCOPES } from './scopes.js';
import { MemcoreError } from '../errors.js';

export { DEFAULT_BODY_TIMEOUT_MS };
/** One principal's concurrent requests when `limits.maxConcurrent` is not given. */
export const DEFAULT_MAX_CONCURRENT = 32;
/** How many principals' buckets are kept (least recently seen dropped first: a dropped bucket is full). */
export const MAX_TRACKED_PRINCIPALS = 10_000;

const RATE_FIELDS = ['requestsPerMinute', 'writesPerMinute'];
const FIELDS = [...RATE_FIELDS, 'burst', 'byScope', 'maxConcurrent', 'bodyTimeoutMs', 'now', 'maxTrackedPrincipals'];

function misuse(message) {
  return new MemcoreError('E_ARGUMENT', `createMemoryHandler: limits.${message}`, { function: 'createMemoryHandler', argument: 'limits' });
}

function positive(value, name, { integer = false, max = Number.MAX_SAFE_INTEGER } = {}) {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > max || (integer && !Number.isInteger(value))) {
    throw misuse(`${name} must be a ${integer ? 'positive integer' : 'positive number'}${max < Number.MAX_SAFE_INTEGER ? ` up to ${max}` : ''}`);
  }
  return value;
}

function rates(value, where) {
  const out = {};
  for (const field of RATE_FIELDS) {
    const v = positive(value[field], `${where}${field}`);
    if (v !== undefined) out[field] = v;
  }
  return out;
}

/**
 * The handler's limits from its `limits` option: `{ requestsPerMinute?, writesPerMinute?, burst?,
 * byScope?, maxConcurrent?, bodyTimeoutMs?, now?, maxTrackedPrincipals? }` — checked at once.
 */
export function createLimits(options) {
  if (options !== undefined && options !== null && (typeof options !== 'object' || Array.isArray(options))) {
    throw new MemcoreError('E_ARGUMENT', 'createMemoryHandler: `limits` must be an object like { requestsPerMinute, writesPerMinute, maxConcurrent, bodyTimeoutMs }', { function: 'createMemoryHandler', argument: 'limits' });
  }
  const o = options ?? {};
  for (const key of Object.keys(o)) if (!FIELDS.includes(key)) throw misuse(`${key} is not a limit (${FIELDS.join(', ')})`);
  const base = rates(o, '');
  const burst = positive(o.burst, 'burst');
  const byScope = {};
  if (o.byScope !== undefined && o.byScope !== null) {
    if (typeof o.byScope !== 'object' || Array.isArray(o.byScope)) throw misuse('byScope must be an object like { admin: { requestsPerMinute } }');
    for (const [scope, value] of Object.entries(o.byScope)) {
      if (!SCOPES.includes(scope)) throw misuse(`byScope.${scope} is not a scope (${SCOPES.join(', ')})`);
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw misuse(`byScope.${scope} must be an object like { requestsPerMinute, writesPerMinute }`);
      for (const key of Object.keys(value)) if (!RATE_FIELDS.includes(key)) throw misuse(`byScope.${scope}.${key} is not a rate (${RATE_FIELDS.join(', ')})`);
      byScope[scope] = rates(value, `byScope.${scope}.`);
    }
  }
  const maxConcurrent = positive(o.maxConcurrent, 'maxConcurrent', { integer: true }) ?? DEFAULT_MAX_CONCURRENT;
  const bodyTimeoutMs = positive(o.bodyTimeoutMs, 'bodyTimeoutMs', { max: 3_600_000 }) ?? DEFAULT_BODY_TIMEOUT_MS;
  const maxTracked = positive(o.maxTrackedPrincipals, 'maxTrackedPrincipals', { integer: true }) ?? MAX_TRACKED_PRINCIPALS;
  if (o.now !== undefined && o.now !== null && typeof o.now !== 'function') throw misuse('now must be a function returning the time (a Date, milliseconds or an ISO string)');
  const clock = o.now ? () => millisecondsOf(o.now()) : () => Date.now();
  const buckets = new Map(); // principal key → { requests, writes, inFlight }

  /** A principal's rates: the most generous of its scopes' overrides where higher than the defaults. */
  const ratesOf = (principal) => {
    const out = { ...base };
    // An unscoped principal holds every scope but `admin`, which only an administrator holds.
    const held = principal.scopes ?? (principal.admin ? SCOPES : SCOPES.filter((scope) => scope !== 'admin'));
    for (const field of RATE_FIELDS) {
      for (const scope of held) {
        const v = byScope[scope]?.[field];
        if (v !== undefined && (out[field] === undefined || v > out[field])) out[field] = v;
      }
    }
    return out;
  };

  const stateOf = (principal) => {
    const key = `${principal.tenantId ?? ''}\u001f${principal.userId}`;
    let state = buckets.get(key);
    if (state) {
      buckets.delete(key); // re-inserted: the Map's order is the recency
    } else {
      state = { requests: null, writes: null, inFlight: 0 };
      while (buckets.size >= maxTracked) {
        // Drop the least recently seen principal that has nothing in flight.
        let dropped = false;
        for (const [k, s] of buckets) {
          if (s.inFlight === 0) {
            buckets.delete(k);
            dropped = true;
            break;
          }
        }
        if (!dropped) break;
      }
    }
    buckets.set(key, state);
    return state;
  };

  /** Take one token of `kind` or throw 429 with the wait. */
  const take = (state, kind, perMinute, now, label) => {
    if (perMinute === undefined) return;
    const capacity = burst ?? perMinute;
    const rate = perMinute / 60_000; // tokens per ms
    let bucket = state[kind];
    if (bucket === null || bucket.perMinute !== perMinute) bucket = state[kind] = { tokens: capacity, at: now, perMinute };
    const elapsed = Math.max(0, now - bucket.at);
    bucket.tokens = Math.min(capacity, bucket.tokens + elapsed * rate);
    bucket.at = Math.max(bucket.at, now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return;
    }
    const retryAfterSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / rate / 1000));
    throw rateLimited(`too many ${label}: at most ${perMinute} per minute`, retryAfterSeconds);
  };

  return Object.freeze({
    bodyTimeoutMs,
    /**
     * Admit a request of `principal`: its request token (and a write token when `write`), and a
     * concurrency slot. Answers `release()`; throws 429 without holding anything.
     */
    admit(principal, { write = false } = {}) {
      const state = stateOf(principal);
      if (state.inFlight >= maxConcurrent) throw rateLimited(`too many concurrent requests: at most ${maxConcurrent} at a time`, 1);
      const limits = ratesOf(principal);
      const now = clock();
      take(state, 'requests', limits.requestsPerMinute, now, 'requests');
      if (write) take(state, 'writes', limits.writesPerMinute, now, 'writes');
      state.inFlight += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        state.inFlight -= 1;
      };
    },
    /** One more write of an admitted principal (an MCP tool that writes): throws 429 when over. */
    chargeWrite(principal) {
      take(stateOf(principal), 'writes', ratesOf(principal).writesPerMinute, clock(), 'writes');
    },
  });
}

/** The longest `Retry-After` the server answers, in seconds (one hour; a tiny configured rate would ask for more). */
export const MAX_RETRY_AFTER_SECONDS = 3600;

/** 429 `E_RATE_LIMITED` with `Retry-After` in whole seconds (1 to `MAX_RETRY_AFTER_SECONDS`). */
export function rateLimited(message, retryAfterSeconds) {
  const seconds = Number.isFinite(retryAfterSeconds) ? Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil(retryAfterSeconds))) : MAX_RETRY_AFTER_SECONDS;
  return new HttpFailure(429, message, { code: 'E_RATE_LIMITED', retryAfterSeconds: seconds, headers: { 'retry-after': String(seconds) } });
}

function millisecondsOf(value) {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(ms)) throw new HttpFailure(500, 'limits.now returned no valid time', { code: 'E_HOST' });
  return ms;
}

// The HTTP side shared by the OpenAI-compatible adapters (chat completions and embeddings): option
// validation, the endpoint URL, one POST with its deadline, caller signal, redirect rules and
// streamed size cap, HTTP errors with retry hints, and the redaction every message and detail
// passes through. Internal to the package (no export path). No `node:` imports: every runtime
// loads it.
import { MemcoreError } from '../errors.js';

const BODY_EXCERPT = 500;
const ERROR_BODY_BYTES = 64 * 1024;
const MAX_REDIRECTS = 3;

/**
 * Validate the options every OpenAI-compatible adapter shares and return its config. `spec` names
 * the adapter in messages: `{ fn, example, modelExample, timeoutMs, maxResponseBytes, more }`;
 * `more(options, fail)` checks the adapter's own options (after `maxResponseBytes`, before
 * `headers`) and returns the fields to add to the config; `fail(path, message)` makes the
 * `E_CONFIG` error with the known secrets redacted.
 */
export function validateHttpOptions(options, spec) {
  const fn = spec.fn;
  if (options === null || typeof options !== 'object') {
    throw configError('options', `${fn} needs options like ${spec.example}`);
  }
  const {
    baseURL,
    apiKey,
    model,
    timeoutMs = spec.timeoutMs,
    maxResponseBytes = spec.maxResponseBytes,
    headers = {},
    fetch: customFetch,
  } = options;
  const key = typeof apiKey === 'string' ? apiKey : null;
  const headerSecrets = headers !== null && typeof headers === 'object' ? safeHeaders(headers) : {};
  let secrets = secretsOf({ apiKey: key, headers: headerSecrets });
  if (typeof baseURL !== 'string' || baseURL.length === 0) {
    throw configError('baseURL', `${fn}: baseURL is required, e.g. "https://api.openai.com/v1"`);
  }
  let parsed;
  try {
    parsed = new URL(baseURL);
  } catch {
    // Do not echo a string that may hold credentials the URL parser could not even locate.
    const shown = /[@?#]/.test(baseURL) ? '' : ` ${JSON.stringify(baseURL)}`;
    throw configError('baseURL', `${fn}: baseURL${shown} is not an absolute URL; use e.g. "https://api.openai.com/v1"`, secrets);
  }
  secrets = secretsOf({ apiKey: key, url: parsed, headers: headerSecrets });
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw configError('baseURL', `${fn}: baseURL must start with http:// or https://`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    const masked = `${parsed.protocol}//***@${parsed.host}${parsed.pathname}${parsed.search}${parsed.hash}`;
    throw configError(
      'baseURL',
      `${fn}: baseURL ${masked} contains credentials; remove them and pass the key as apiKey (sent as authorization: Bearer)`,
      secrets,
    );
  }
  if (apiKey !== undefined && apiKey !== null && typeof apiKey !== 'string') {
    throw configError('apiKey', `${fn}: apiKey must be a string (or absent for endpoints without auth)`);
  }
  if (typeof model !== 'string' || model.trim().length === 0) {
    throw configError('model', `${fn}: model is required, e.g. "${spec.modelExample}"`);
  }
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw configError('timeoutMs', `${fn}: timeoutMs must be a positive number of milliseconds`);
  }
  if (!Number.isSafeInteger(maxResponseBytes) || maxResponseBytes <= 0) {
    throw configError('maxResponseBytes', `${fn}: maxResponseBytes must be a positive integer number of bytes (default ${spec.maxResponseBytes})`);
  }
  const extra = spec.more ? spec.more(options, (path, message) => configError(path, message, secrets)) : {};
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) {
    throw configError('headers', `${fn}: headers must be an object of header name → string value`);
  }
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') throw configError(`headers.${name}`, `${fn}: header ${name} must be a string`, secrets);
  }
  const fetchFn = customFetch ?? globalThis.fetch;
  if (typeof fetchFn !== 'function') {
    throw configError('fetch', `${fn}: no fetch in this runtime; pass { fetch } explicitly`);
  }
  return {
    baseURL,
    apiKey: key,
    secrets,
    model,
    timeoutMs,
    maxResponseBytes,
    ...extra,
    headers: lowerCaseKeys(headers),
    // Called unbound: some runtimes reject `fetch` invoked with a foreign `this`.
    fetch: (...args) => fetchFn(...args),
  };
}

/** `${baseURL}/${path}` on the path: the query kept (Azure's `?api-version=`), a fragment dropped. */
export function endpointURL(baseURL, path) {
  const url = new URL(baseURL);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${path}`;
  url.hash = '';
  return url.href;
}

/**
 * POST `payload` (JSON text) to `url` with the config's headers and key, and read the answer.
 * Resolves `{ target, status, text }` for a 2xx answer within `maxResponseBytes`; rejects
 * `E_HOST` for everything else. `noun` names the call in messages ("model request to …");
 * `badRequestHint` is the hint of a 4xx other than 401/403/404/429.
 */
export async function postJSON(config, { url, payload, signal = null, noun, badRequestHint }) {
  const secrets = config.secrets;
  const origin = new URL(url).origin;
  const fail = (message, details) => hostError(message, details, secrets);
  if (signal?.aborted) throw cancelledError(noun, secrets);

  const headers = { ...config.headers, 'content-type': 'application/json' };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;

  // One controller per call, aborted by whichever comes first: our timeout or the caller's
  // signal. Wired by hand (AbortSignal.any is missing on Node 20.0–20.2 and some edge runtimes),
  // which also tells us which one fired. Every read is raced against `aborted` so that a custom
  // fetch ignoring `signal` cannot keep the call alive.
  const controller = new AbortController();
  let abortedBy = null;
  let rejectAborted;
  const aborted = new Promise((_, reject) => (rejectAborted = reject));
  aborted.catch(() => {});
  const abort = (why) => {
    if (abortedBy) return;
    abortedBy = why;
    controller.abort();
    rejectAborted(new Error(why));
  };
  const race = (promise) => Promise.race([promise, aborted]);
  const abortError = () => (abortedBy === 'timeout' ? timeoutError(noun, config.timeoutMs, secrets) : cancelledError(noun, secrets));
  const onCallerAbort = () => abort('cancelled');
  signal?.addEventListener('abort', onCallerAbort, { once: true });
  const timer = setTimeout(() => abort('timeout'), config.timeoutMs);

  try {
    let target = url;
    let response;
    for (let hops = 0; ; hops++) {
      let pending;
      try {
        pending = config.fetch(target, { method: 'POST', headers, body: payload, redirect: 'manual', signal: controller.signal });
        response = await race(pending);
      } catch (error) {
        if (abortedBy) {
          // A fetch that ignored the signal may still answer: release that response.
          Promise.resolve(pending).then(discard, () => {});
          throw abortError();
        }
        throw fail(`${noun} request to ${target} failed before a response (${describe(error)}); check baseURL and the network, then retry`, {
          status: null,
          transient: true,
        });
      }
      const next = redirectTarget(response, target, origin, noun, fail);
      if (next === null) break;
      discard(response);
      if (hops >= MAX_REDIRECTS) {
        throw fail(`${noun} request to ${url} failed: too many redirects (more than ${MAX_REDIRECTS}); set baseURL to the final URL`, {
          status: response.status,
          transient: false,
        });
      }
      target = next;
    }

    const status = response.status;
    let read;
    try {
      read = await readText(response, response.ok ? config.maxResponseBytes : ERROR_BODY_BYTES, race);
    } catch (error) {
      if (abortedBy) throw abortError();
      throw fail(`reading the ${noun} response from ${target} failed (${describe(error)}); retry`, { status, transient: true });
    }
    if (!response.ok) throw httpError(target, response, read.text, noun, badRequestHint, secrets);
    if (read.overflow) {
      throw fail(
        `${noun} response from ${target} is larger than maxResponseBytes (${config.maxResponseBytes} bytes); check the endpoint, or raise maxResponseBytes`,
        { status, transient: false, limitBytes: config.maxResponseBytes },
      );
    }
    return { target, status, text: read.text };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener?.('abort', onCallerAbort);
  }
}

/** The answer text as JSON, or `E_HOST` (with a redacted excerpt) when it is not JSON. */
export function parseJSONAnswer(url, status, raw, noun, secrets) {
  try {
    return JSON.parse(raw);
  } catch {
    throw hostError(
      `${noun} response from ${url} is not JSON; check that baseURL points at an OpenAI-compatible API`,
      { status, transient: false, body: excerpt(raw, secrets) },
      secrets,
    );
  }
}

/** Whether `signal` is an AbortSignal-like object (what a request's `signal` must be when given). */
export function isSignal(signal) {
  return typeof signal === 'object' && typeof signal.aborted === 'boolean' && typeof signal.addEventListener === 'function';
}

// The next URL to POST to, or null when `response` is not a redirect. Throws for every redirect
// the adapter refuses to follow.
function redirectTarget(response, current, origin, noun, fail) {
  if (response.type === 'opaqueredirect') {
    // Browsers hide manual redirects: no status, no location.
    discard(response);
    throw fail(`${noun} request to ${current} failed: the endpoint redirected; set baseURL to the final URL`, {
      status: null,
      transient: false,
    });
  }
  const status = response.status;
  if (status < 300 || status > 399) return null;
  const location = response.headers?.get?.('location');
  if (!location) return null; // reported as an HTTP error
  let next;
  try {
    next = new URL(location, current);
  } catch {
    discard(response);
    throw fail(`${noun} request to ${current} answered HTTP ${status} with an invalid location; set baseURL to the final URL`, {
      status,
      transient: false,
    });
  }
  if (next.origin !== origin) {
    // Never followed: the request body (a prompt, texts to embed) is not sent to another origin.
    discard(response);
    const other = next.origin === 'null' ? next.protocol : next.origin;
    throw fail(`refusing a cross-origin redirect from ${origin} to ${other}; set baseURL to the endpoint you mean to use`, {
      status,
      transient: false,
      redirect: other,
    });
  }
  if (status !== 307 && status !== 308) {
    discard(response);
    throw fail(
      `${noun} request to ${current} answered HTTP ${status} (a redirect that turns the POST into a GET) to ${next.origin}${next.pathname}; set baseURL to the final URL`,
      { status, transient: false },
    );
  }
  return next.href;
}

// Read the body as UTF-8, at most `limit` bytes (decompressed: what the stream yields). Returns
// `{ text, overflow }`; on overflow the stream is cancelled and `text` holds the first `limit` bytes.
async function readText(response, limit, race) {
  const decoder = new TextDecoder('utf-8');
  const stream = response.body;
  if (stream && typeof stream.getReader === 'function') {
    const reader = stream.getReader();
    let received = 0;
    let text = '';
    let finished = false;
    try {
      for (;;) {
        const { done, value } = await race(reader.read());
        if (done) {
          finished = true;
          return { text: text + decoder.decode(), overflow: false };
        }
        const chunk = value instanceof Uint8Array ? value : new Uint8Array(value);
        if (received + chunk.byteLength > limit) {
          text += decoder.decode(chunk.subarray(0, limit - received), { stream: true });
          return { text, overflow: true };
        }
        received += chunk.byteLength;
        text += decoder.decode(chunk, { stream: true });
      }
    } finally {
      if (!finished) reader.cancel().catch(() => {});
    }
  }
  // No body stream (some custom fetch implementations): the whole body at once.
  const buffer = new Uint8Array(await race(response.arrayBuffer()));
  if (buffer.byteLength > limit) return { text: decoder.decode(buffer.subarray(0, limit), { stream: true }), overflow: true };
  return { text: decoder.decode(buffer), overflow: false };
}

// Release a response we will not read (redirects), so the connection is not held.
function discard(response) {
  try {
    response?.body?.cancel?.().catch(() => {});
  } catch {
    // a locked or foreign body: nothing to release
  }
}


function httpError(url, response, body, noun, badRequestHint, secrets) {
  const status = response.status;
  const transient = status === 429 || status >= 500;
  const hint =
    status === 401 || status === 403
      ? 'check the API key'
      : status === 404
        ? 'check baseURL and the model name'
        : status === 429
          ? 'rate limited; retry later'
          : status >= 500
            ? 'the provider failed; retry later'
            : status >= 300 && status < 400
              ? 'an unexpected redirect status; set baseURL to the final URL'
              : badRequestHint;
  return hostError(
    `${noun} request to ${url} failed with HTTP ${status}; ${hint}`,
    { status, transient, body: excerpt(body, secrets), retryAfterMs: parseRetryAfter(response.headers?.get?.('retry-after')) },
    secrets,
  );
}

const DAYS = 'mon|tue|wed|thu|fri|sat|sun';
const LONG_DAYS = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday';
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH = MONTHS.join('|');
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
const IMF_FIXDATE = new RegExp(`^(?:${DAYS}), (\\d{2}) (${MONTH}) (\\d{4}) ${TIME} GMT$`, 'i');
const RFC850_DATE = new RegExp(`^(?:${LONG_DAYS}), (\\d{2})-(${MONTH})-(\\d{2}) ${TIME} GMT$`, 'i');
const ASCTIME_DATE = new RegExp(`^(?:${DAYS}) (${MONTH}) ( \\d|\\d{2}) ${TIME} (\\d{4})$`, 'i');

/**
 * The longest wait `details.retryAfterMs` reports (one hour): an endpoint's `retry-after` of days
 * or centuries would otherwise park a host that honours it; a longer one is reported as this.
 */
export const MAX_RETRY_AFTER_MS = 3_600_000;

/**
 * `retry-after` → milliseconds to wait (at most `MAX_RETRY_AFTER_MS`), or `null` (absent or
 * unparsable): delta-seconds, or an HTTP-date (IMF-fixdate, RFC 850, asctime; RFC 9110 §10.2.3)
 * → max(0, date − now). Parsed by hand: `Date.parse` accepts almost anything ("1" is a date in V8)
 * and differs between engines.
 */
function parseRetryAfter(value, now = Date.now()) {
  const ms = retryAfterMs(value, now);
  return ms === null ? null : Math.min(ms, MAX_RETRY_AFTER_MS);
}

function retryAfterMs(value, now) {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    // Any number of seconds is a wait: a huge one is clamped by the caller, never dropped.
    const ms = Number(text) * 1000;
    return Number.isFinite(ms) ? ms : MAX_RETRY_AFTER_MS;
  }
  let parts;
  let m;
  if ((m = IMF_FIXDATE.exec(text))) {
    parts = { day: m[1], month: m[2], year: Number(m[3]), time: m.slice(4, 7) };
  } else if ((m = RFC850_DATE.exec(text))) {
    // Two-digit years: more than 50 years in the future means the past century (RFC 9110).
    let year = 2000 + Number(m[3]);
    if (year > new Date(now).getUTCFullYear() + 50) year -= 100;
    parts = { day: m[1], month: m[2], year, time: m.slice(4, 7) };
  } else if ((m = ASCTIME_DATE.exec(text))) {
    parts = { day: m[2].trim(), month: m[1], year: Number(m[6]), time: m.slice(3, 6) };
  } else {
    return null;
  }
  const [hour, minute, second] = parts.time.map(Number);
  const month = MONTHS.indexOf(parts.month.toLowerCase());
  const day = Number(parts.day);
  const date = new Date(Date.UTC(parts.year, month, day, hour, minute, second));
  // Reject impossible dates (31 Feb, 25:00) instead of letting Date roll them over.
  if (date.getUTCDate() !== day || date.getUTCHours() !== hour || date.getUTCMinutes() !== minute || date.getUTCSeconds() !== second) {
    return null;
  }
  return Math.max(0, date.getTime() - now);
}

function timeoutError(noun, timeoutMs, secrets) {
  return hostError(`${noun} request timed out after ${timeoutMs} ms; retry, or raise timeoutMs`, { transient: true, status: null }, secrets);
}

function cancelledError(noun, secrets) {
  return hostError(
    `${noun} request was cancelled (request.signal was aborted); nothing more will be read from the endpoint`,
    { status: null, transient: true, cancelled: true },
    secrets,
  );
}

/** `MemcoreError('E_HOST')` with the message and every string detail redacted. */
export function hostError(message, details, secrets) {
  return new MemcoreError('E_HOST', redact(message, secrets), redactDetails(details, secrets));
}

function configError(path, message, secrets = NO_SECRETS) {
  return new MemcoreError('E_CONFIG', redact(message, secrets), { path: redact(path, secrets) });
}

/** The first 500 characters of a response body, redacted. */
export function excerpt(body, secrets) {
  return redact(body, secrets).slice(0, BODY_EXCERPT);
}

function describe(error) {
  const cause = error?.cause;
  const code = cause?.code ?? error?.code;
  return [error?.message ?? String(error), code].filter(Boolean).join(': ');
}

// Every message and detail the adapter produces passes here. Providers sometimes echo the key in
// error bodies, gateways put a key or a signature in the query string, and network errors may
// quote a URL with `user:pass@` in it. What is redacted (docs/internals/decisions.md, "OpenAI adapter"):
// - the known secrets — the apiKey, the value of a secret-looking header (authorization, api-key,
//   …) and each query value of baseURL of 4 characters or more — wherever they appear as a whole
//   token (not inside a longer word: a key `k1` leaves `k12` alone); one of 16 characters or more
//   anywhere, since no word contains it by chance; raw and percent-encoded;
// - the value of every query parameter of every URL in the text (names kept), `Bearer <token>`,
//   and URL userinfo.
const MARK = '[REDACTED]';
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]*@/gi;
const URL_QUERY = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s?#"'<>]*\?)([^\s#"'<>]*)/gi;
// RFC 6750's token68 characters, so the punctuation after a token survives.
const BEARER = /\b(bearer\s+)[A-Za-z0-9._~+/-]+=*/gi;
const TOKEN_CHAR = /[\p{L}\p{N}_-]/u;
const SECRET_HEADER = /auth|key|token|secret|signature|password|cookie/i;
const ANYWHERE = 16;
const MIN_QUERY_SECRET = 4;
const NO_SECRETS = [];

/** The secrets to redact from errors: `[{ text, anywhere }]`, raw and percent-encoded forms. */
function secretsOf({ apiKey = null, url = null, headers = {} } = {}) {
  const values = [];
  if (apiKey) values.push(apiKey);
  for (const [name, value] of Object.entries(headers)) {
    if (!SECRET_HEADER.test(name) || typeof value !== 'string') continue;
    values.push(value.trim());
    const scheme = /^[a-z]+\s+(\S+)$/i.exec(value.trim());
    if (scheme) values.push(scheme[1]);
  }
  if (url) {
    for (const pair of url.search.replace(/^\?/, '').split('&')) {
      const raw = pair.slice(pair.indexOf('=') + 1);
      // A value this short ("1", "on") is no secret worth mangling every number for: it is
      // still redacted wherever a URL shows it.
      if (!pair.includes('=') || raw.length < MIN_QUERY_SECRET) continue;
      values.push(raw);
      try {
        values.push(decodeURIComponent(raw.replace(/\+/g, ' ')));
      } catch {
        // not percent-decodable: the raw form is enough
      }
    }
  }
  const secrets = new Map();
  for (const value of values) {
    for (const text of [value, encodeURIComponent(value)]) {
      if (text && !secrets.has(text)) secrets.set(text, { text, pattern: secretPattern(text) });
    }
  }
  // Longest first, so a secret that contains another is replaced whole.
  return [...secrets.values()].sort((a, b) => b.text.length - a.text.length);
}

// A whole-token match: not preceded or followed by a letter, digit, `_` or `-` (a percent escape
// such as `%3D` before it counts as a boundary), unless the secret is long enough to match anywhere.
function secretPattern(text) {
  const escaped = text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  if (text.length >= ANYWHERE) return new RegExp(escaped, 'gu');
  const before = TOKEN_CHAR.test(text[0]) ? '(?<=^|[^\\p{L}\\p{N}_-]|%[0-9A-Fa-f]{2})' : '';
  const after = TOKEN_CHAR.test(text[text.length - 1]) ? '(?![\\p{L}\\p{N}_-])' : '';
  return new RegExp(`${before}${escaped}${after}`, 'gu');
}

function redact(text, secrets) {
  if (typeof text !== 'string') return text;
  let out = text;
  for (const { pattern } of secrets) out = out.replace(pattern, MARK);
  return out
    .replace(USERINFO, '$1***@')
    .replace(URL_QUERY, (_, head, query) => head + query.split('&').map((p) => (p.includes('=') ? `${p.slice(0, p.indexOf('='))}=${MARK}` : p)).join('&'))
    .replace(BEARER, `$1${MARK}`);
}

function redactDetails(details, secrets) {
  const out = {};
  for (const [name, value] of Object.entries(details)) out[name] = redact(value, secrets);
  return out;
}

// The string-valued headers, read once (a getter that throws is reported by the check below).
function safeHeaders(headers) {
  const out = {};
  try {
    for (const [name, value] of Object.entries(headers)) if (typeof value === 'string') out[name] = value;
  } catch {
    // reported as a bad header by validate
  }
  return out;
}

function lowerCaseKeys(headers) {
  const out = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

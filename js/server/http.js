// HTTP plumbing of memcore/server: JSON answers with a stable error code, a size-limited body
// reader, path segments decoded and checked. No memory rule lives here.
import { redactSecrets } from '../api.js';
import { statusOfCode } from './outcomes.js';

/** The largest request body, in bytes (behaviour §2.8): larger → 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The stable codes of the handler's own error answers (the core's `E_…` codes — `E_TOO_LARGE`,
 * `E_HOST`, … — pass through unchanged).
 */
export const HTTP_ERROR_CODES = Object.freeze({
  400: 'E_BAD_REQUEST',
  401: 'E_UNAUTHENTICATED',
  403: 'E_FORBIDDEN',
  404: 'E_NOT_FOUND',
  405: 'E_METHOD_NOT_ALLOWED',
  408: 'E_BODY_TIMEOUT',
  413: 'E_TOO_LARGE',
  415: 'E_UNSUPPORTED_MEDIA_TYPE',
  429: 'E_RATE_LIMITED',
  501: 'E_MCP_UNAVAILABLE',
});

/** A failure the handler answers as it is: status, stable code, message, extra fields. */
export class HttpFailure extends Error {
  constructor(status, message, { code = HTTP_ERROR_CODES[status] ?? 'E_INTERNAL', headers, ...extra } = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
    this.extra = extra;
  }
}

export function json(value, status = 200, headers = {}) {
  return new Response(JSON.stringify(value), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  });
}

/** `{ error: { code, message, … } }` with the failure's status and headers. */
export function failureResponse(failure) {
  return json({ error: { code: failure.code, message: failure.message, ...failure.extra } }, failure.status, failure.headers ?? {});
}

/**
 * The message of a thrown value as an answer may carry it (REST's 5xx, MCP's tool errors): a
 * host's message may quote what it refused (a row, a URL with a key), so it is redacted as logs
 * are (issue 19); `fallback` when it has none. A getter that throws throws to the caller.
 */
export function thrownMessage(error, fallback) {
  return typeof error?.message === 'string' ? redactSecrets(error.message) : fallback;
}

/** What the core or a host threw, as an answer: the core's size limit is 413, the rest 500. */
export function errorResponse(error) {
  if (error instanceof HttpFailure) return failureResponse(error);
  let code = 'E_INTERNAL';
  let message = 'the request failed';
  let details;
  try {
    if (typeof error?.code === 'string' && /^E_[A-Z_]+$/.test(error.code)) code = error.code;
    message = thrownMessage(error, message);
    if (error?.details && typeof error.details === 'object') details = JSON.parse(JSON.stringify(error.details));
  } catch {
    // a hostile thrown value: the defaults stand
  }
  return failureResponse(new HttpFailure(statusOfCode(code), message, details ? { code, details } : { code }));
}

/** The media type of a request, lower-cased, without parameters ('' when absent). */
export function mediaType(request) {
  return (request.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
}

/** The deadline for reading a request body unless the handler's `limits.bodyTimeoutMs` says otherwise, in ms. */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;

// The body deadline of each request the handler serves (its `limits.bodyTimeoutMs`).
const bodyDeadlines = new WeakMap();

/** Read `request`'s body within `ms` (the handler sets it for every request it serves). */
export function setBodyDeadline(request, ms) {
  bodyDeadlines.set(request, ms);
}

/**
 * The body as text, refusing more than MAX_BODY_BYTES (413) before and while reading it, and a
 * body that does not arrive within the deadline (408 `E_BODY_TIMEOUT`: a slow or stalled client
 * cannot hold a request for Node's default 300 s); the reader is cancelled either way.
 */
export async function readText(request) {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > MAX_BODY_BYTES) {
    throw tooLarge();
  }
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks = [];
  let size = 0;
  const ms = bodyDeadlines.get(request) ?? DEFAULT_BODY_TIMEOUT_MS;
  const timedOut = new HttpFailure(408, `the request body did not arrive within ${ms} ms`, { details: { timeoutMs: ms } });
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(timedOut), ms);
  });
  deadline.catch(() => {}); // raced below; never an unhandled rejection
  const abandon = async () => {
    try {
      await reader.cancel();
    } catch {
      // the stream is abandoned either way
    }
  };
  try {
    for (;;) {
      let chunk;
      try {
        chunk = await Promise.race([reader.read(), deadline]);
      } catch (error) {
        if (error === timedOut) {
          abandon();
          throw timedOut;
        }
        throw error;
      }
      const { done, value } = chunk;
      if (done) break;
      size += value.byteLength;
      if (size > MAX_BODY_BYTES) {
        await abandon();
        throw tooLarge();
      }
      chunks.push(value);
    }
  } finally {
    clearTimeout(timer);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new HttpFailure(400, 'the request body is not valid UTF-8');
  }
}

function tooLarge() {
  return new HttpFailure(413, `the request body is larger than ${MAX_BODY_BYTES} bytes`, { details: { limit: MAX_BODY_BYTES } });
}

/** A JSON body (content type application/json or +json): 415 otherwise, 400 when it is not JSON. */
export async function readJson(request) {
  const type = mediaType(request);
  if (type !== 'application/json' && !type.endsWith('+json')) {
    throw new HttpFailure(415, 'the request body must be JSON (Content-Type: application/json)');
  }
  const body = await readText(request);
  try {
    return JSON.parse(body);
  } catch (error) {
    // Not the parser's message: V8 quotes the body in it, and a body may hold a secret.
    const at = /position (\d+)/.exec(String(error?.message))?.[1];
    throw new HttpFailure(400, `the request body is not valid JSON${at === undefined ? '' : ` (at position ${at})`}`);
  }
}

/**
 * A path's segments, percent-decoded. A segment that decodes to something that could leave its
 * place — containing `/`, `\`, NUL or another control character, or `.` / `..` — is refused
 * (400), so `..%2F` and `%00` never reach a store or a storage path.
 */
export function segments(path) {
  const parts = path.split('/').filter((s, i, all) => s !== '' || (i > 0 && i < all.length - 1));
  return parts.map((raw) => {
    let part;
    try {
      part = decodeURIComponent(raw);
    } catch {
      throw new HttpFailure(400, `the path segment '${raw}' is not valid percent-encoding`);
    }
    // eslint-disable-next-line no-control-regex
    if (part === '' || part === '.' || part === '..' || /[/\\\u0000-\u001f\u007f]/.test(part)) {
      throw new HttpFailure(400, `the path segment '${raw}' is not allowed`);
    }
    return part;
  });
}

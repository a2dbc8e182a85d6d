// The routing helpers the handler's route modules share (handler.js, admin.js): method checks,
// the 404 and 400 answers, integer query parameters and the entries page's writer filter.
import { HttpFailure } from './http.js';

export function notFound() {
  return new HttpFailure(404, 'no such route');
}

/** 405 with `Allow` unless the method is one of `allowed`. */
export function allow(request, allowed) {
  if (allowed.includes(request.method)) return;
  const list = allowed.includes('GET') ? [...allowed, 'HEAD'] : allowed;
  if (request.method === 'HEAD' && allowed.includes('GET')) return;
  throw new HttpFailure(405, `${request.method} is not allowed here`, { headers: { allow: list.join(', ') } });
}

export function invalid(violations, message = 'the request breaks the write rules') {
  return new HttpFailure(400, message, { violations });
}

/** A whole-number query parameter within [min, max] (`fallback` when absent), else 400 naming it. */
export function intParam(url, name, min, max, fallback) {
  const q = url.searchParams;
  if (!q.has(name)) return fallback;
  const n = Number(q.get(name));
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new HttpFailure(400, `the query parameter ${name} must be an integer from ${min} to ${max}`, { violations: [{ field: name, message: `${name} must be an integer ${min}-${max}` }] });
  return n;
}

/** The values of the entries page's `writtenBy` filter: a writer kind, or one of these. */
export const WRITER_FILTERS = ['learned', 'written', 'agent', 'rest', 'mcp', 'dream', 'migration', 'unknown'];

/**
 * The `writtenBy` query parameter as a test of an entry's `writtenBy` (`null`: not known):
 * `learned` (learned from a turn), `written` (any other known writer), one writer kind, or
 * `unknown` (written before schema 11, writer no longer in the audit log); absent: every entry.
 */
export function writerFilter(url) {
  const q = url.searchParams;
  if (!q.has('writtenBy')) return () => true;
  const wanted = q.get('writtenBy');
  if (!WRITER_FILTERS.includes(wanted)) throw new HttpFailure(400, `the query parameter writtenBy must be one of ${WRITER_FILTERS.join(', ')}`, { violations: [{ field: 'writtenBy', message: `writtenBy must be one of ${WRITER_FILTERS.join(', ')}` }] });
  if (wanted === 'written') return (kind) => kind !== null && kind !== 'learned';
  if (wanted === 'unknown') return (kind) => kind === null;
  return (kind) => kind === wanted;
}

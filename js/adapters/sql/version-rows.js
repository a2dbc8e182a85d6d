// Versions ⇄ rows for the SQL adapters (docs/storage.md, "History"): the argument checks of
// `appendVersions` and `versions`, and the statements of an append. A version is stored as the
// JSON text the core sent (`body`), with the columns the adapter filters and prunes by. No
// runtime-specific imports: the D1 adapter runs in workerd.
import { MemcoreError } from '../../errors.js';
import { checkText } from './entry-rows.js';

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function argument(fn, name, message) {
  return new MemcoreError('E_ARGUMENT', message, { function: fn, argument: name });
}

function text(value, fn, name, nul) {
  if (typeof value !== 'string' || value.length === 0) throw argument(fn, name, `${fn}: ${name} must be a non-empty string`);
  checkText(value, fn, name, nul);
  return value;
}

/** A key: any string the database stores (a legacy entry's key may be empty). */
function keyText(value, fn, name, nul) {
  if (typeof value !== 'string') throw argument(fn, name, `${fn}: ${name} must be a string`);
  checkText(value, fn, name, nul);
  return value;
}

function instant(value, fn, name) {
  if (typeof value !== 'string' || !INSTANT.test(value)) {
    throw argument(fn, name, `${fn}: ${name} must be a millisecond UTC instant like 2026-01-01T00:00:00.000Z`);
  }
  return value;
}

/**
 * `appendVersions(versions, retention)`'s arguments, checked: the rows to insert (`{ id, userId,
 * entryId, key, validUntil, body }`) and the retention (`{ userId, maxVersionsPerEntry,
 * notBefore }`). Every version must be the retention's user's.
 */
export function checkAppend(versions, retention, fn, { nul }) {
  if (retention === null || typeof retention !== 'object' || Array.isArray(retention)) {
    throw argument(fn, 'retention', `${fn}: retention must be { userId, maxVersionsPerEntry, notBefore }`);
  }
  const userId = text(retention.userId, fn, 'retention.userId', nul);
  const max = retention.maxVersionsPerEntry;
  if (!Number.isSafeInteger(max) || max < 1) throw argument(fn, 'retention.maxVersionsPerEntry', `${fn}: retention.maxVersionsPerEntry must be a positive integer`);
  const notBefore = instant(retention.notBefore, fn, 'retention.notBefore');
  if (!Array.isArray(versions)) throw argument(fn, 'versions', `${fn}: versions must be an array`);
  const rows = versions.map((v, i) => {
    const at = `versions[${i}]`;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw argument(fn, at, `${fn}: ${at} must be a version object`);
    if (v.userId !== userId) throw argument(fn, `${at}.userId`, `${fn}: ${at}.userId must be retention.userId`);
    let body;
    try {
      body = JSON.stringify(v);
    } catch {
      throw argument(fn, at, `${fn}: ${at} is not JSON`);
    }
    checkText(body, fn, at, nul);
    return {
      id: text(v.id, fn, `${at}.id`, nul),
      userId,
      entryId: text(v.entryId, fn, `${at}.entryId`, nul),
      key: keyText(v.key, fn, `${at}.key`, nul),
      validUntil: instant(v.validUntil, fn, `${at}.validUntil`),
      body,
    };
  });
  return { rows, userId, max, notBefore };
}

/**
 * The statements of an append, in one transaction: the inserts (an id already stored is
 * skipped), each versioned entry cut to its newest `max`, the user's expired versions dropped.
 */
export function appendStatements(SQL, { rows, userId, max, notBefore }) {
  const statements = rows.map((r) => [SQL.appendVersion, [r.id, r.userId, r.entryId, r.key, r.validUntil, r.body]]);
  for (const entryId of new Set(rows.map((r) => r.entryId))) statements.push([SQL.keepNewestVersions, [entryId, userId, entryId, max]]);
  statements.push([SQL.dropExpiredVersions, [userId, notBefore]]);
  return statements;
}

/** `versions(query)`'s query, checked: `{ userId, entryId?, key? }` (at most one of the two). */
export function checkVersionQuery(query, fn) {
  if (query === null || typeof query !== 'object' || Array.isArray(query)) {
    throw argument(fn, 'query', `${fn}: query must be { userId, entryId? } or { userId, key? }`);
  }
  if (typeof query.userId !== 'string') throw argument(fn, 'query.userId', `${fn}: query.userId must be a string`);
  for (const name of ['entryId', 'key']) {
    if (query[name] !== undefined && query[name] !== null && typeof query[name] !== 'string') {
      throw argument(fn, `query.${name}`, `${fn}: query.${name} must be a string`);
    }
  }
  return { userId: query.userId, entryId: query.entryId ?? null, key: query.key ?? null };
}

// Versions ⇄ rows for the SQL adapters (docs/reference/storage.md, "History"): the argument checks of
// `appendHistory`, `versions`, `auditLog` and `eraseHistory`, and the statements of an append. A version is stored as the
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
 * `appendHistory(append)`'s argument, checked: `{ userId, versions, audit, maxVersionsPerEntry,
 * notBefore }` → the version rows (`{ id, userId, entryId, key, validUntil, body }`), the audit
 * rows (`{ at, userId, operation, body }`) and the retention. Every version and record must be
 * the append's user's.
 */
export function checkAppend(append, fn, { nul }) {
  if (append === null || typeof append !== 'object' || Array.isArray(append)) {
    throw argument(fn, 'append', `${fn}: append must be { userId, versions, audit, maxVersionsPerEntry, notBefore }`);
  }
  const userId = text(append.userId, fn, 'append.userId', nul);
  const max = append.maxVersionsPerEntry;
  if (!Number.isSafeInteger(max) || max < 1) throw argument(fn, 'append.maxVersionsPerEntry', `${fn}: append.maxVersionsPerEntry must be a positive integer`);
  const notBefore = instant(append.notBefore, fn, 'append.notBefore');
  const list = (name) => {
    const value = append[name] ?? [];
    if (!Array.isArray(value)) throw argument(fn, `append.${name}`, `${fn}: append.${name} must be an array`);
    return value;
  };
  const body = (v, at) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw argument(fn, at, `${fn}: ${at} must be an object`);
    if (v.userId !== userId) throw argument(fn, `${at}.userId`, `${fn}: ${at}.userId must be append.userId`);
    let json;
    try {
      json = JSON.stringify(v);
    } catch {
      throw argument(fn, at, `${fn}: ${at} is not JSON`);
    }
    checkText(json, fn, at, nul);
    return json;
  };
  const versions = list('versions').map((v, i) => {
    const at = `append.versions[${i}]`;
    const json = body(v, at);
    return {
      id: text(v.id, fn, `${at}.id`, nul),
      userId,
      entryId: text(v.entryId, fn, `${at}.entryId`, nul),
      key: keyText(v.key, fn, `${at}.key`, nul),
      validUntil: instant(v.validUntil, fn, `${at}.validUntil`),
      body: json,
    };
  });
  const audit = list('audit').map((r, i) => {
    const at = `append.audit[${i}]`;
    const json = body(r, at);
    return { at: instant(r.at, fn, `${at}.at`), userId, operation: text(r.operation, fn, `${at}.operation`, nul), body: json };
  });
  return { versions, audit, userId, max, notBefore };
}

/**
 * The statements of an append, in one transaction: the version inserts (an id already stored is
 * skipped), the audit inserts, each versioned entry cut to its newest `max`, the user's expired
 * versions and audit records dropped (an erasure's record stays).
 */
export function appendStatements(SQL, { versions, audit, userId, max, notBefore }) {
  const statements = versions.map((r) => [SQL.appendVersion, [r.id, r.userId, r.entryId, r.key, r.validUntil, r.body]]);
  for (const r of audit) statements.push([SQL.appendAudit, [r.at, r.userId, r.operation, r.body]]);
  for (const entryId of new Set(versions.map((r) => r.entryId))) statements.push([SQL.keepNewestVersions, [entryId, userId, entryId, max]]);
  statements.push([SQL.dropExpiredVersions, [userId, notBefore]], [SQL.dropExpiredAudit, [userId, notBefore]]);
  return statements;
}

/** `auditLog(query)`'s query, checked: `{ userId?, since?, afterSeq?, limit }`. */
export function checkAuditQuery(query, fn) {
  if (query === null || typeof query !== 'object' || Array.isArray(query)) {
    throw argument(fn, 'query', `${fn}: query must be { userId?, since?, afterSeq?, limit }`);
  }
  if (query.userId !== undefined && query.userId !== null && typeof query.userId !== 'string') throw argument(fn, 'query.userId', `${fn}: query.userId must be a string`);
  const since = query.since === undefined || query.since === null ? '' : instant(query.since, fn, 'query.since');
  const afterSeq = query.afterSeq ?? 0;
  if (!Number.isSafeInteger(afterSeq) || afterSeq < 0) throw argument(fn, 'query.afterSeq', `${fn}: query.afterSeq must be a non-negative integer`);
  if (!Number.isSafeInteger(query.limit) || query.limit < 1) throw argument(fn, 'query.limit', `${fn}: query.limit must be a positive integer`);
  return { userId: query.userId ?? null, since, afterSeq, limit: query.limit };
}

/** An audit record of a row: the stored record with the row's `seq`. */
export function auditRecord(row) {
  return { seq: Number(row.seq), ...JSON.parse(row.body) };
}

/**
 * `eraseHistory`'s third argument, checked: `{ pseudonym, versions: [{ replaces, version }] }` →
 * `{ pseudonym, versions: [{ replaces, row }] }` (each `row` as `checkAppend` makes them). Absent
 * (a caller of the two-argument form): nothing renamed.
 */
export function checkRenames(renames, fn, { nul }) {
  if (renames === undefined || renames === null) return { pseudonym: null, versions: [] };
  if (typeof renames !== 'object' || Array.isArray(renames)) throw argument(fn, 'renames', `${fn}: renames must be { pseudonym, versions }`);
  const pseudonym = text(renames.pseudonym, fn, 'renames.pseudonym', nul);
  const list = renames.versions ?? [];
  if (!Array.isArray(list)) throw argument(fn, 'renames.versions', `${fn}: renames.versions must be an array`);
  const versions = list.map((r, i) => {
    const at = `renames.versions[${i}]`;
    if (r === null || typeof r !== 'object') throw argument(fn, at, `${fn}: ${at} must be { replaces, version }`);
    const v = r.version;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw argument(fn, `${at}.version`, `${fn}: ${at}.version must be an object`);
    let json;
    try {
      json = JSON.stringify(v);
    } catch {
      throw argument(fn, `${at}.version`, `${fn}: ${at}.version is not JSON`);
    }
    checkText(json, fn, `${at}.version`, nul);
    return {
      replaces: text(r.replaces, fn, `${at}.replaces`, nul),
      row: {
        id: text(v.id, fn, `${at}.version.id`, nul),
        userId: text(v.userId, fn, `${at}.version.userId`, nul),
        entryId: text(v.entryId, fn, `${at}.version.entryId`, nul),
        key: keyText(v.key, fn, `${at}.version.key`, nul),
        validUntil: instant(v.validUntil, fn, `${at}.version.validUntil`),
        body: json,
      },
    };
  });
  return { pseudonym, versions };
}

/** `eraseHistory(userId, record)`'s record, checked: the erasure's own audit row (under its own `userId`). */
export function checkErasure(userId, record, fn, { nul }) {
  text(userId, fn, 'userId', nul);
  if (record === null || typeof record !== 'object' || Array.isArray(record)) {
    throw argument(fn, 'record', `${fn}: record must be the erasure's audit record`);
  }
  const json = JSON.stringify(record);
  checkText(json, fn, 'record', nul);
  return { at: instant(record.at, fn, 'record.at'), userId: text(record.userId, fn, 'record.userId', nul), operation: text(record.operation, fn, 'record.operation', nul), body: json };
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

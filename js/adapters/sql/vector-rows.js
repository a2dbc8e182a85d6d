// Vectors ⇄ rows for the SQL adapters (docs/reference/storage.md, "Vectors"): the argument checks of
// `vectors`, `putVectors` and `unembedded`, and the bytes a driver answers as a plain Uint8Array.
// No runtime-specific imports: the D1 adapter runs in workerd.
import { argument, badString, checkString, checkText, unstorable } from './entry-rows.js';

/** The longest vector a store accepts, in bytes (one byte a dimension). */
export const MAX_VECTOR_BYTES = 8192;

// `instanceof` fails across realms (a Worker, a vm context); the tag does not.
const isUint8Array = (v) => ArrayBuffer.isView(v) && Object.prototype.toString.call(v) === '[object Uint8Array]';

/** A model id: a non-empty string the database stores as is (`nul`: whether it may hold U+0000). */
export function checkModel(model, fn, name, nul) {
  if (typeof model !== 'string' || model.length === 0) throw argument(fn, name, `${fn}: ${name} must be a non-empty string (the embedding model id)`);
  checkText(model, fn, name, nul);
  return model;
}

/**
 * The rows of `putVectors`, checked (an error names `rows[i].field`): `[{ row, json }]`, with
 * `json` the value serialised as `upsert` serialises it, or `null` for a row that can name no
 * stored entry (an id, key or value the database cannot hold) and is skipped.
 */
export function checkVectorRows(rows, fn, { nul, valueSurrogates }) {
  if (!Array.isArray(rows)) throw argument(fn, 'rows', `${fn}: rows must be an array like [{ id, key, value, model, vector }]`);
  return rows.map((row, i) => {
    const at = `rows[${i}]`;
    if (row === null || typeof row !== 'object' || Array.isArray(row)) throw argument(fn, at, `${fn}: ${at} must be an object like { id, key, value, model, vector }`);
    checkString(row.id, fn, `${at}.id`);
    checkString(row.key, fn, `${at}.key`);
    checkModel(row.model, fn, `${at}.model`, nul);
    const { vector } = row;
    if (!isUint8Array(vector)) throw argument(fn, `${at}.vector`, `${fn}: ${at}.vector must be a Uint8Array (the vector bytes, one i8 a dimension)`);
    if (vector.length < 1 || vector.length > MAX_VECTOR_BYTES) {
      throw argument(fn, `${at}.vector`, `${fn}: ${at}.vector must hold 1 to ${MAX_VECTOR_BYTES} bytes, not ${vector.length}`);
    }
    let json;
    try {
      json = JSON.stringify(row.value);
    } catch (error) {
      throw argument(fn, `${at}.value`, `${fn}: ${at}.value must be JSON (${error.message})`);
    }
    if (json === undefined) throw argument(fn, `${at}.value`, `${fn}: ${at}.value must be a JSON value`);
    const storable = !unstorable(row.id, nul) && !unstorable(row.key, nul) && badString(row.value, nul, valueSurrogates) === null;
    return { row, json: storable ? json : null };
  });
}

/** `{ model, userId?, after?, limit }` of `unembedded`, checked; absent `userId`/`after` are `null`. */
export function checkUnembeddedQuery(query, fn, nul) {
  if (query === null || typeof query !== 'object' || Array.isArray(query)) throw argument(fn, 'query', `${fn}: pass an object like { model, userId?, after?, limit }`);
  const model = checkModel(query.model, fn, 'query.model', nul);
  const optional = (name) => {
    const v = query[name];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string') throw argument(fn, `query.${name}`, `${fn}: query.${name} must be a string or absent`);
    return v;
  };
  const userId = optional('userId');
  const after = optional('after');
  // `after` is compared, not looked up: text the driver would rewrite would move the page.
  if (after !== null) checkText(after, fn, 'query.after', nul);
  if (!Number.isSafeInteger(query.limit) || query.limit < 0) throw argument(fn, 'query.limit', `${fn}: query.limit must be a non-negative integer`);
  return { model, userId, after, limit: query.limit };
}

/**
 * A stored vector as a plain Uint8Array, whatever the driver answers (better-sqlite3 and pg: a
 * Buffer; D1: an ArrayBuffer or an array of numbers); `null` for anything else (not bytes).
 */
export function vectorBytes(stored) {
  if (stored instanceof ArrayBuffer) return new Uint8Array(stored.slice(0));
  if (ArrayBuffer.isView(stored)) {
    const { buffer, byteOffset, byteLength } = stored;
    // A Buffer that owns its memory is viewed; one inside a shared pool (pg's small Buffers) copied.
    if (byteOffset === 0 && byteLength === buffer.byteLength) return new Uint8Array(buffer);
    return new Uint8Array(buffer.slice(byteOffset, byteOffset + byteLength));
  }
  if (Array.isArray(stored) && stored.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) return Uint8Array.from(stored);
  return null;
}

/**
 * Whether two JSON values are equal as JSON (object keys in any order): a stored value whose
 * text `JSON.stringify` of the entry the core answers does not reproduce (keys in another order).
 */
export function sameJson(a, b) {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
}

/** Whether a JSON value holds an object of two or more keys (whose text depends on key order). */
export function keyOrderMatters(value) {
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (!Array.isArray(v) && Object.keys(v).length > 1) return true;
    stack.push(...Object.values(v));
  }
  return false;
}

// Hex digit values by char code (both cases), 255 for anything else.
const HEX = new Uint8Array(128).fill(255);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[65 + i] = HEX[97 + i] = 10 + i;

/**
 * The bytes of SQLite's `hex(blob)` text (what the D1 dialect selects: D1 answers a BLOB as an
 * array of numbers, six times slower to read than its hex); `null` when it is not hex.
 */
export function hexBytes(text) {
  if (typeof text !== 'string' || text.length % 2 !== 0) return null;
  const out = new Uint8Array(text.length >> 1);
  for (let i = 0, j = 0; i < out.length; i++, j += 2) {
    const hi = HEX[text.charCodeAt(j)] ?? 255;
    const lo = HEX[text.charCodeAt(j + 1)] ?? 255;
    if (hi === 255 || lo === 255) return null;
    out[i] = (hi << 4) | lo;
  }
  return out;
}

// Arguments: everything that can only be checked on JS values, inside `try` (a text is a string,
// a structured value can be written as JSON, a callback is a function).
import { MemcoreError } from '../errors.js';
import { initialised } from './instance.js';

/** The longest text or JSON argument, in UTF-16 code units (64 Mi). */
export const MAX_TEXT_LENGTH = 64 * 1024 * 1024;

function describe(value) {
  if (value === null) return 'null';
  const type = typeof value;
  if (type === 'undefined') return 'undefined';
  if (type !== 'object') return `a ${type}`;
  try {
    return Array.isArray(value) ? 'an array' : 'an object';
  } catch {
    return 'a revoked proxy';
  }
}

export function argumentError(fn, argument, message) {
  initialised();
  return new MemcoreError('E_ARGUMENT', `${fn}: argument \`${argument}\` ${message}`, { function: fn, argument });
}

function tooLarge(fn, argument, length) {
  return new MemcoreError(
    'E_TOO_LARGE',
    `${fn}: argument \`${argument}\` is ${length} characters long; at most ${MAX_TEXT_LENGTH} are accepted`,
    { function: fn, argument, length, limit: MAX_TEXT_LENGTH },
  );
}

/** A required string argument. */
export function text(fn, argument, value) {
  initialised();
  if (typeof value !== 'string') throw argumentError(fn, argument, `must be a string, got ${describe(value)}`);
  if (value.length > MAX_TEXT_LENGTH) throw tooLarge(fn, argument, value.length);
  return value;
}

/** An optional string argument: `undefined`/`null` → `undefined`. */
export function optionalText(fn, argument, value) {
  initialised();
  return value === undefined || value === null ? undefined : text(fn, argument, value);
}

// What JSON.stringify would silently drop or change (a function or symbol, NaN and ±Infinity, an
// invalid Date, BigInt throws anyway) is refused instead. Checked by a walk before a plain JSON.stringify: a
// replacer function costs a call from C++ into JS per value (measured 16 µs against 11 µs for a
// 6 KB profile). The walk reads what JSON.stringify reads — own enumerable keys, `toJSON`
// results — and tracks the objects on its path, so a cycle is reported, not walked forever.
export function check(value, key, path) {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'undefined':
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`it holds a non-finite number (${value}) at ${JSON.stringify(key)}`);
      return;
    case 'bigint':
      throw new TypeError(`it holds a BigInt at ${JSON.stringify(key)}`);
    case 'function':
      throw new TypeError(`it holds a function at ${JSON.stringify(key)}`);
    case 'symbol':
      throw new TypeError(`it holds a symbol at ${JSON.stringify(key)}`);
    default:
      break;
  }
  if (value === null) return;
  // An invalid Date writes as `null` (toJSON): `asOf: new Date(NaN)` would silently mean "now".
  if (value instanceof Date && Number.isNaN(value.getTime())) throw new TypeError(`it holds an invalid Date at ${JSON.stringify(key)}`);
  if (typeof value.toJSON === 'function') {
    check(value.toJSON(key), key, path);
    return;
  }
  if (path.has(value)) throw new TypeError('Converting circular structure to JSON');
  if (path.size > 256) throw new RangeError('too deep');
  path.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) check(value[i], String(i), path);
  } else {
    for (const k of Object.keys(value)) check(value[k], k, path);
  }
  path.delete(value);
}

/**
 * A structured argument as JSON text (`undefined` stays `undefined`: absent). Refused with
 * E_ARGUMENT: cycles, values whose getters or `toJSON` throw (Proxies included), BigInt,
 * functions, symbols, NaN and ±Infinity; deeper than 128 levels is refused by the core.
 */
export function json(fn, argument, value) {
  initialised();
  if (value === undefined) return undefined;
  let out;
  try {
    check(value, '', new Set());
    out = JSON.stringify(value);
  } catch (error) {
    throw argumentError(fn, argument, `cannot be read as JSON data: ${reason(error)}`);
  }
  if (out !== undefined && out.length > MAX_TEXT_LENGTH) throw tooLarge(fn, argument, out.length);
  return out;
}

/** Why JSON.stringify failed, in words (it never runs user code here). */
export function reason(error) {
  if (error instanceof RangeError) return 'it is nested too deeply';
  let message = '';
  try {
    message = String(error?.message ?? error);
  } catch {}
  if (/circular|cyclic/i.test(message)) return 'it contains a cycle';
  if (error instanceof TypeError && message.startsWith('it holds')) return message;
  return `reading it threw (${message.slice(0, 200)})`;
}

/** Read named properties of an options object (getters run here, inside `try`). */
export function fields(fn, argument, value, names) {
  initialised();
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' && typeof value !== 'function') {
    throw argumentError(fn, argument, `must be an object, got ${describe(value)}`);
  }
  const out = {};
  try {
    for (const name of names) out[name] = value[name];
  } catch (error) {
    throw argumentError(fn, argument, `could not be read: ${reason(error)}`);
  }
  return out;
}

/** The options object without the named callback fields, as JSON (`undefined` when absent). */
export function jsonWithout(fn, argument, value, callbackNames) {
  initialised();
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || describe(value) !== 'an object') {
    throw argumentError(fn, argument, `must be an object, got ${describe(value)}`);
  }
  let data;
  try {
    data = { ...value };
  } catch (error) {
    throw argumentError(fn, argument, `could not be read: ${reason(error)}`);
  }
  for (const name of callbackNames) delete data[name];
  return json(fn, argument, data);
}

/** An optional callback: `undefined`/`null` → `undefined`, a function, else E_ARGUMENT. */
export function callback(fn, argument, value) {
  initialised();
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'function') throw argumentError(fn, argument, `must be a function, got ${describe(value)}`);
  return value;
}

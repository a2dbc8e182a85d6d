// Tokens (behaviour §1.4)
import { argumentError, invoke, loadTable, reason, text, whenTables } from '../wire.js';
import { MemcoreError } from '../errors.js';
import { DEFAULT_ENCODING } from '../constants.js';
import { tokenizer } from './arguments.js';

function bytesOf(fn, value) {
  try {
    if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    if (value instanceof ArrayBuffer) return new Uint8Array(value);
  } catch {
    // a Proxy or another object that cannot be read as bytes
  }
  throw argumentError(fn, 'bytes', 'must be a Uint8Array or ArrayBuffer with a tokenizer table');
}

export function loadTokenizer(bytes) {
  return loadTable(bytesOf('loadTokenizer', bytes));
}
/**
 * Wait until the tables of `encodings` (default: the default encoding) are loaded. Tables load on
 * first use; where the runtime cannot read them synchronously (browsers, edge runtimes) call this
 * before counting synchronously. Async functions load what they need themselves.
 * @example await ready(); countTokens('hi');
 */
export async function ready(encodings) {
  let names;
  try {
    // Read inside `try`: a revoked Proxy throws from Array.isArray, a hostile array from its items.
    const many = encodings !== undefined && Array.isArray(encodings);
    const list = encodings === undefined ? [DEFAULT_ENCODING] : many ? Array.from(encodings) : [encodings];
    names = list.map((e, i) => text('ready', many ? `encodings[${i}]` : 'encoding', e));
  } catch (error) {
    if (error instanceof MemcoreError) throw error;
    throw argumentError('ready', 'encodings', `must be an encoding name or an array of them (${reason(error)})`);
  }
  await whenTables('ready', names);
}

export function hasTokenizer(encoding) {
  const e = text('hasTokenizer', 'encoding', encoding);
  return invoke((g) => g.hasTokenizer(e));
}
export function countTokens(input, options) {
  const t = text('countTokens', 'text', input);
  const [o, counter] = tokenizer('countTokens', 'options', options);
  return invoke((g) => g.countTokens(t, o, counter));
}
export function encodeTokens(input, options) {
  const t = text('encodeTokens', 'text', input);
  const [o, counter] = tokenizer('encodeTokens', 'options', options);
  if (counter) throw argumentError('encodeTokens', 'options.countTokens', 'must be absent: token ids need a built-in table');
  return Array.from(invoke((g) => g.encodeTokens(t, o)));
}

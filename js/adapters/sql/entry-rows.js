// Entries ⇄ rows for the SQL adapters (docs/storage.md): argument checks, the derived columns
// (`updated_sort`, `reserved`, `search_text`) and the row → entry mapping. No runtime-specific
// imports: the D1 adapter runs in workerd.
import { MemcoreError } from '../../errors.js';

/** The entry columns in insert order; the adapters bind `entryParams` in this order. */
export const ENTRY_COLUMNS = [
  'id', 'user_id', 'key', 'value', 'category', 'visibility', 'source_agent_id', 'group_ids',
  'source_conversation_id', 'conflicted', 'access_count', 'created_at', 'updated_at',
  'updated_sort', 'reserved', 'search_text',
];

// Rust's `char::is_whitespace` (the White_Space property), which `str::trim` uses. JS `trim` differs:
// it also strips U+FEFF and keeps U+0085, so it would disagree with the core about `_gdpr_` keys.
const RUST_LEADING_WHITESPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u;

/** The core's reserved-key rule: `key.trim().starts_with("_gdpr_")` with Rust's trim. */
export function isReservedKey(key) {
  return key.replace(RUST_LEADING_WHITESPACE, '').startsWith('_gdpr_');
}

// RFC 3339 as chrono's `parse_from_rfc3339` reads it: `T`, `t` or a space between date and time,
// a fraction of any length (nanoseconds kept), `Z`/`z` or ±HH:MM, second 60 as a leap second.
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
const EPOCH_SHIFT = 1e12; // makes every year 0000–9999 ± a day positive

/**
 * A text whose byte order is the core's recency order on `updatedAt` (src/entries/recall.rs):
 * valid instants as `1` + seconds since the epoch (shifted, 13 digits) + nanoseconds (10 digits,
 * a leap second adds 1e9), so `Z` and `+00:00` spellings of one instant are equal; a timestamp
 * that does not parse as `0` + the raw text, so it sorts before every valid one (older), and two
 * such compare by raw text — exactly as the core orders them.
 */
export function updatedSort(ts) {
  const m = RFC3339.exec(ts);
  if (!m) return `0${ts}`;
  const [, y, mo, d, h, mi, s, frac = '', z, sign, oh, om] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const second = Number(s);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  if (!monthDays || day < 1 || day > monthDays || Number(h) > 23 || Number(mi) > 59 || second > 60) return `0${ts}`;
  if (!z && (Number(oh) > 23 || Number(om) > 59)) return `0${ts}`;
  const offset = z ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om) * 60);
  const seconds = civilDays(year, month, day) * 86400 + Number(h) * 3600 + Number(mi) * 60 + Math.min(second, 59) - offset;
  const nanos = Number((frac + '000000000').slice(0, 9)) + (second === 60 ? 1e9 : 0);
  return `1${String(seconds + EPOCH_SHIFT).padStart(13, '0')}${String(nanos).padStart(10, '0')}`;
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm, as the core).
function civilDays(year, month, day) {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

// ─── The search prefilter's text (docs/storage.md, "search_text") ──────────────────────────────
//
// The core matches a folded term (`searchTerms`: split on non-alphanumerics, Rust's
// `to_lowercase`) as a substring of the folded key or value text (strings raw, other values as
// compact JSON). The adapters cannot fold like Rust (Unicode tables and JSON number formatting
// differ between engines), so they store a text that keeps only what they can know exactly, its
// *skeleton*, and look up the skeleton of each term in it:
// - ASCII characters, lowercased (Rust lowercases exactly A–Z in ASCII);
// - every maximal run of other characters becomes NON_ASCII_MARK — except that KELVIN SIGN folds
//   to `k` and U+0130 to `i` + U+0307, the only characters outside ASCII whose lowercase holds an
//   ASCII letter or digit (tests/js/sql-search-text.test.mjs checks every code point against the
//   core);
// - in a non-string value, every JSON number becomes NUMBER_MARK (how the core prints a number is
//   its own call), and a term that could lie inside a number (only digits and `e`) also accepts
//   NUMBER_MARK.
// A substring of the core's folded text has its skeleton inside the text's skeleton (a run cut
// by the substring's ends still maps to one mark), so the prefilter never drops a match; it may
// return more (the core re-applies its matching to everything it gets).

/** What a run of non-ASCII characters leaves in a skeleton: three characters, so a trigram index holds it. */
export const NON_ASCII_MARK = '\u0002\u0002\u0002';

/**
 * What a JSON number leaves in the skeleton of a non-string value: only characters a number may
 * print as (so no other term finds it by accident), and alphanumeric ones, so pg_trgm indexes it.
 */
export const NUMBER_MARK = '\u00030e0\u0003';

// Deeper values are not walked: their rows get no search_text (always candidates).
const MAX_SKELETON_DEPTH = 64;

/** The skeleton of a text: ASCII lowercased, runs of other characters as NON_ASCII_MARK (see above). */
export function skeleton(text) {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(text)) return text.toLowerCase();
  let out = '';
  let inRun = false;
  for (const ch of text) {
    const c = ch.codePointAt(0);
    const ascii = c < 0x80 ? ch.toLowerCase() : c === 0x212a ? 'k' : c === 0x130 ? 'i' : '';
    if (ascii) {
      out += ascii;
      inRun = false;
    }
    // Every other character, and the U+0307 that follows U+0130's `i`, is outside ASCII.
    if (!ascii || c === 0x130) {
      if (!inRun) out += NON_ASCII_MARK;
      inRun = true;
    }
  }
  return out;
}

// Compact JSON of a parsed value with each number as NUMBER_MARK; null when too deep.
function valueSkeleton(value, depth = 0) {
  if (depth > MAX_SKELETON_DEPTH) return null;
  if (typeof value === 'number') return NUMBER_MARK;
  if (typeof value === 'string') return value.isWellFormed() ? skeleton(JSON.stringify(value)) : null;
  if (value === null || typeof value === 'boolean') return String(value);
  const parts = [];
  for (const [k, v] of Array.isArray(value) ? value.map((v) => [null, v]) : Object.entries(value)) {
    const inner = valueSkeleton(v, depth + 1);
    if (inner === null) return null;
    if (k !== null && !k.isWellFormed()) return null;
    parts.push(k === null ? inner : `${skeleton(JSON.stringify(k))}:${inner}`);
  }
  return Array.isArray(value) ? `[${parts.join(',')}]` : `{${parts.join(',')}}`;
}

/**
 * The `search_text` of an entry: skeleton(key) + U+0001 + the skeleton of its value (a string's
 * own, or the compact JSON with numbers as NUMBER_MARK for other values; `json` is the stored JSON
 * text), or `null` — "always a candidate" — when the value holds a lone surrogate (its folding is
 * the core's call) or nests deeper than 64 levels.
 */
export function searchText(key, value, json = JSON.stringify(value)) {
  const text = typeof value === 'string' ? (value.isWellFormed() ? skeleton(value) : null) : valueSkeleton(JSON.parse(json));
  return text === null ? null : `${skeleton(key)}\u0001${text}`;
}

/** Terms a search statement tests; more only narrow the match, so dropping them keeps a superset. */
export const MAX_SEARCH_TERMS = 8;

/**
 * The shortest pattern a trigram index (FTS5 `trigram`, `pg_trgm`) can look up: a shorter one
 * holds no trigram, so it is tested with `instr`/`strpos` on the candidates the other terms give.
 */
export const TRIGRAM_LENGTH = 3;

/**
 * How the search prefilter tests the core's folded `terms` (from `searchTerms`): per distinct
 * term (at most MAX_SEARCH_TERMS) `{ pattern, number }` — a row is a candidate when its
 * search_text contains `pattern` (the term's skeleton) or, when `number`, NUMBER_MARK. `long`
 * terms (a pattern of TRIGRAM_LENGTH characters or more) go through the index; `short` ones are
 * tested on its candidates, or on each of the user's rows when there is no long term. Rows whose
 * search_text is NULL are candidates of every query.
 */
export function searchPlan(terms) {
  const tests = [...new Set(terms)].slice(0, MAX_SEARCH_TERMS).map((t) => ({ pattern: skeleton(t), number: /^[0-9e]+$/.test(t) }));
  return { long: tests.filter((t) => t.pattern.length >= TRIGRAM_LENGTH), short: tests.filter((t) => t.pattern.length < TRIGRAM_LENGTH) };
}

/**
 * What an adapter can store losslessly. `nul: false` (PostgreSQL: `text` and `jsonb` reject
 * U+0000) refuses NUL in every string; lone surrogates are refused everywhere in text columns,
 * because drivers encode them as U+FFFD, and on PostgreSQL in values too (`jsonb` rejects them).
 */
export function checkEntry(entry, fn, { nul, valueSurrogates }) {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
    throw argument(fn, 'entry', `${fn}: entry must be an object like { id, userId, key, value, … }`);
  }
  for (const field of ['id', 'userId', 'key', 'visibility', 'createdAt', 'updatedAt']) {
    if (typeof entry[field] !== 'string' || (entry[field].length === 0 && ['id', 'userId', 'visibility'].includes(field))) {
      throw argument(fn, `entry.${field}`, `${fn}: entry.${field} must be a${['id', 'userId', 'visibility'].includes(field) ? ' non-empty' : ''} string`);
    }
    checkText(entry[field], fn, `entry.${field}`, nul);
  }
  // As the core's own store: an absent category is 'fact'.
  if (entry.category !== undefined && entry.category !== null && typeof entry.category !== 'string') {
    throw argument(fn, 'entry.category', `${fn}: entry.category must be a string`);
  }
  if (typeof entry.category === 'string') checkText(entry.category, fn, 'entry.category', nul);
  for (const field of ['sourceAgentId', 'sourceConversationId']) {
    const v = entry[field];
    if (v !== undefined && v !== null && typeof v !== 'string') throw argument(fn, `entry.${field}`, `${fn}: entry.${field} must be a string or null`);
    if (typeof v === 'string') checkText(v, fn, `entry.${field}`, nul);
  }
  const groups = entry.groupIds ?? [];
  if (!Array.isArray(groups) || groups.some((g) => typeof g !== 'string')) {
    throw argument(fn, 'entry.groupIds', `${fn}: entry.groupIds must be an array of strings`);
  }
  for (const g of groups) checkText(g, fn, 'entry.groupIds', nul);
  const count = entry.accessCount ?? 0;
  if (!Number.isSafeInteger(count) || count < 0) throw argument(fn, 'entry.accessCount', `${fn}: entry.accessCount must be a non-negative integer`);
  if (entry.conflicted !== undefined && entry.conflicted !== null && typeof entry.conflicted !== 'boolean') {
    throw argument(fn, 'entry.conflicted', `${fn}: entry.conflicted must be a boolean`);
  }
  let json;
  try {
    json = JSON.stringify(entry.value);
  } catch (error) {
    throw argument(fn, 'entry.value', `${fn}: entry.value must be JSON (${error.message})`);
  }
  if (json === undefined) throw argument(fn, 'entry.value', `${fn}: entry.value must be a JSON value`);
  // JSON.stringify escapes NUL and lone surrogates, so the JSON text itself is always storable;
  // stores that decode it (PostgreSQL jsonb) check the strings themselves.
  if (!nul || !valueSurrogates) {
    const bad = badString(entry.value, nul, valueSurrogates);
    if (bad === 'nul') {
      throw argument(fn, 'entry.value', `${fn}: entry.value contains U+0000 (NUL), which PostgreSQL jsonb cannot store; remove it or use the SQLite adapter`, 'nul');
    }
    if (bad === 'lone-surrogate') {
      throw argument(fn, 'entry.value', `${fn}: entry.value contains a lone UTF-16 surrogate, which PostgreSQL jsonb cannot store; send well-formed Unicode`, 'lone-surrogate');
    }
  }
  return json;
}

/** The first problem of any string (or object key) inside a JSON value: 'nul', 'lone-surrogate' or null. */
function badString(value, nul, surrogates) {
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    const texts = typeof v === 'string' ? [v] : v && typeof v === 'object' ? (Array.isArray(v) ? [] : Object.keys(v)) : [];
    for (const t of texts) {
      if (!nul && t.includes('\0')) return 'nul';
      if (!surrogates && !t.isWellFormed()) return 'lone-surrogate';
    }
    if (v && typeof v === 'object') stack.push(...Object.values(v));
  }
  return null;
}

/** A text column value: well-formed Unicode, and no NUL where the database rejects it. */
export function checkText(text, fn, name, nul) {
  if (!text.isWellFormed()) {
    throw argument(fn, name, `${fn}: ${name} contains a lone UTF-16 surrogate; the database driver would replace it with U+FFFD, so it is refused — send well-formed Unicode`, 'lone-surrogate');
  }
  if (!nul && text.includes('\0')) {
    throw argument(fn, name, `${fn}: ${name} contains U+0000 (NUL), which PostgreSQL text cannot store; remove it`, 'nul');
  }
}

/** Bind values in `ENTRY_COLUMNS` order; booleans as `bool(…)` (SQLite: 0/1, PostgreSQL: boolean). */
export function entryParams(entry, json, bool) {
  return [
    entry.id, entry.userId, entry.key, json, entry.category ?? 'fact', entry.visibility,
    entry.sourceAgentId ?? null, JSON.stringify(entry.groupIds ?? []), entry.sourceConversationId ?? null,
    bool(entry.conflicted === true), entry.accessCount ?? 0, entry.createdAt, entry.updatedAt,
    updatedSort(entry.updatedAt), bool(isReservedKey(entry.key)), searchText(entry.key, entry.value, json),
  ];
}

/** A stored row as the core's entry; `value`/`group_ids` are JSON text (SQLite, D1) or already parsed (pg's jsonb). */
export function rowEntry(row, parsed = false) {
  return {
    id: row.id,
    userId: row.user_id,
    key: row.key,
    value: parsed ? row.value : JSON.parse(row.value),
    category: row.category,
    visibility: row.visibility,
    sourceAgentId: row.source_agent_id ?? null,
    groupIds: parsed ? row.group_ids : JSON.parse(row.group_ids),
    sourceConversationId: row.source_conversation_id ?? null,
    conflicted: row.conflicted === true || row.conflicted === 1,
    accessCount: Number(row.access_count),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** `ids` for `incrementAccess`/`insertWithinCap`: an array of strings. */
export function checkIds(ids, fn, name = 'ids') {
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) {
    throw argument(fn, name, `${fn}: ${name} must be an array of entry ids (strings)`);
  }
  return ids;
}

/** A user id, entry id or key argument: a string. */
export function checkString(value, fn, name) {
  if (typeof value !== 'string') throw argument(fn, name, `${fn}: ${name} must be a string`);
  return value;
}

/** `{ userId, agentId, groupId, order, limit }` of `recall`, and `{ userId, agentId, limit }` of `oldestOwn`. */
export function checkQuery(query, fn, { order }) {
  if (query === null || typeof query !== 'object') throw argument(fn, 'query', `${fn}: pass an object like { userId, agentId, limit }`);
  checkString(query.userId, fn, 'query.userId');
  checkString(query.agentId, fn, 'query.agentId');
  if (!Number.isSafeInteger(query.limit) || query.limit < 0) throw argument(fn, 'query.limit', `${fn}: query.limit must be a non-negative integer`);
  if (order) {
    if (query.groupId !== undefined && query.groupId !== null && typeof query.groupId !== 'string') {
      throw argument(fn, 'query.groupId', `${fn}: query.groupId must be a string or null`);
    }
    if (query.order !== 'most_recent' && query.order !== 'most_accessed') {
      throw argument(fn, 'query.order', `${fn}: query.order must be 'most_recent' or 'most_accessed'`);
    }
  }
  return query;
}

/** `{ maxEntries, evict }` of `insertWithinCap`. */
export function checkCap(cap, fn) {
  if (cap === null || typeof cap !== 'object') throw argument(fn, 'cap', `${fn}: pass { maxEntries, evict }`);
  if (!Number.isSafeInteger(cap.maxEntries) || cap.maxEntries < 0) throw argument(fn, 'cap.maxEntries', `${fn}: cap.maxEntries must be a non-negative integer`);
  return { maxEntries: cap.maxEntries, evict: checkIds(cap.evict ?? [], fn, 'cap.evict') };
}

/**
 * The entries of `insertAll`: an array, each checked as `checkEntry` does (an error names
 * `entries[i].field`); answers each entry's row params in `ENTRY_COLUMNS` order.
 */
export function checkEntries(entries, fn, limits, bool) {
  if (!Array.isArray(entries)) throw argument(fn, 'entries', `${fn}: entries must be an array of entries`);
  return entries.map((entry, i) => {
    try {
      return entryParams(entry, checkEntry(entry, fn, limits), bool);
    } catch (error) {
      if (error instanceof MemcoreError && error.code === 'E_ARGUMENT' && typeof error.details?.argument === 'string') {
        error.details.argument = error.details.argument.replace(/^entry/, `entries[${i}]`);
      }
      throw error;
    }
  });
}

/** `insertAll` met an id already stored (nothing was written). */
export function idExists(fn, id, cause) {
  return new MemcoreError('E_HOST', `${fn}: an entry with the id ${JSON.stringify(id)} is already stored; nothing was written`, {
    function: fn, reason: 'id-exists', id, transient: false, cause: String(cause?.message ?? cause),
  });
}

/** The identity-collision error: an upsert whose identity belongs to another entry id. */
export function identityConflict(fn, entry, cause) {
  const identity = entry.visibility === 'global' ? `(userId, key) = (${JSON.stringify(entry.userId)}, ${JSON.stringify(entry.key)})` : `(userId, key, sourceAgentId) = (${JSON.stringify(entry.userId)}, ${JSON.stringify(entry.key)}, ${JSON.stringify(entry.sourceAgentId ?? null)})`;
  return new MemcoreError('E_HOST', `${fn}: another entry already has the identity ${identity} of ${entry.visibility} entry ${JSON.stringify(entry.id)}; update that entry instead (identity is unique per SPEC §2.4)`, {
    function: fn, reason: 'identity-conflict', id: entry.id, transient: false, cause: String(cause?.message ?? cause),
  });
}

function argument(fn, name, message, reason) {
  return new MemcoreError('E_ARGUMENT', message, { function: fn, argument: name, ...(reason ? { reason } : {}) });
}

/**
 * Whether a lookup argument can name nothing stored: text the adapter refuses to store (a lone
 * surrogate; NUL where `nul` is false) matches no row, and binding it would let the driver
 * rewrite it (U+FFFD) or fail. Lookups with such an argument answer "nothing".
 */
export function unstorable(text, nul) {
  return !text.isWellFormed() || (!nul && text.includes('\0'));
}

// Entries ⇄ rows for the SQL adapters (docs/reference/storage.md): argument checks (what a database can
// store), the derived columns (`updated_sort`, `reserved`, `search_text`, from the core) and the
// row → entry mapping. No runtime-specific imports: the D1 adapter runs in workerd.
import { indexColumns } from '../sql-core.js';
import { MemcoreError } from '../../errors.js';

/** The entry columns in insert order; the adapters bind `entryParams` in this order. */
export const ENTRY_COLUMNS = [
  'id', 'user_id', 'key', 'value', 'category', 'visibility', 'source_agent_id', 'group_ids',
  'source_conversation_id', 'conflicted', 'access_count', 'created_at', 'updated_at',
  'updated_sort', 'reserved', 'search_text', 'written_by',
];

/**
 * Tenants (docs/reference/storage.md, "Tenants"): a store scoped to tenant `t` keeps every row's user id,
 * entry id, version id and profile path as `t` + U+001F + the value, and answers values without
 * the prefix; the default (unscoped) store keeps them as they are. No value a caller passes may hold
 * U+001F, so no id of one tenant can name a row of another.
 */
export const TENANT_SEPARATOR = '\u001f';

/** The kinds of writer an entry's `writtenBy` names (the audit log's actor kinds). */
export const WRITER_KINDS = ['agent', 'dream', 'rest', 'mcp', 'migration', 'learned'];

/** The `writtenBy` filters of `entryPage`: a writer kind, `written` (any known kind but learned) or `unknown`. */
export const WRITER_FILTERS = ['learned', 'written', 'agent', 'rest', 'mcp', 'dream', 'migration', 'unknown'];

/**
 * `entryPage`'s filters as SQL tests over `memcore_entries` with `?` placeholders (the PostgreSQL
 * dialect numbers them) and their params, in order. `undefined`/`null` filters nothing.
 */
export function entryPageFilter({ category, visibility, agentId, writtenBy }) {
  const tests = [];
  const params = [];
  for (const [column, value] of [['category', category], ['visibility', visibility], ['source_agent_id', agentId]]) {
    if (value === undefined || value === null) continue;
    tests.push(`${column} = ?`);
    params.push(value);
  }
  if (writtenBy === 'written') tests.push("written_by IS NOT NULL AND written_by <> 'learned'");
  else if (writtenBy === 'unknown') tests.push('written_by IS NULL');
  else if (writtenBy !== undefined && writtenBy !== null) {
    tests.push('written_by = ?');
    params.push(writtenBy);
  }
  return { where: tests.map((t) => ` AND (${t})`).join(''), params };
}

/**
 * The first text after every text that starts with `scope`, a tenant prefix ending in U+001F
 * (storage.js, "Tenants"): the upper bound of the tenant's ids in byte order (SQLite's BINARY,
 * PostgreSQL's COLLATE "C").
 */
export function scopeEnd(scope) {
  return `${scope.slice(0, -1)}\u0020`;
}

// The derived columns and the search prefilter are the core's (`indexColumns`, `searchPrefilter`):
// its recency, reserved-key and search-folding rules, so no the behaviour reference rule is restated here.

// Entries per `indexColumns` call, and the longest value JSON sent: the call's argument stays far
// below the core's 64 Mi limit. A longer value gets no search_text (NULL: a candidate of every
// search, which the core matches itself).
const INDEX_BATCH = 500;
const MAX_INDEXED_JSON = 16 * 1024 * 1024;

/**
 * The derived columns (`updatedSort`, `reserved`, `searchText`) of each entry, from the core in
 * one call per batch; `jsons[i]` is the stored JSON text of `entries[i].value`.
 */
export function derivedColumns(entries, jsons) {
  const out = [];
  for (let from = 0; from < entries.length; from += INDEX_BATCH) {
    const batch = entries.slice(from, from + INDEX_BATCH).map((entry, i) => {
      const valueJson = jsons[from + i];
      return { key: entry.key, updatedAt: entry.updatedAt, valueJson: valueJson.length > MAX_INDEXED_JSON ? 'null' : valueJson };
    });
    const columns = indexColumns(batch);
    for (let i = 0; i < columns.length; i++) {
      if (jsons[from + i].length > MAX_INDEXED_JSON) columns[i].searchText = null;
      out.push(columns[i]);
    }
  }
  return out;
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
  if (entry.writtenBy !== undefined && entry.writtenBy !== null && !WRITER_KINDS.includes(entry.writtenBy)) {
    throw argument(fn, 'entry.writtenBy', `${fn}: entry.writtenBy must be one of ${WRITER_KINDS.join(', ')}, or null`);
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
export function badString(value, nul, surrogates) {
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

/**
 * Bind values in `ENTRY_COLUMNS` order; booleans as `bool(…)` (SQLite: 0/1, PostgreSQL: boolean);
 * `columns`: the entry's derived columns (`derivedColumns`), computed here when absent.
 */
export function entryParams(entry, json, bool, columns = derivedColumns([entry], [json])[0]) {
  return [
    entry.id, entry.userId, entry.key, json, entry.category ?? 'fact', entry.visibility,
    entry.sourceAgentId ?? null, JSON.stringify(entry.groupIds ?? []), entry.sourceConversationId ?? null,
    bool(entry.conflicted === true), entry.accessCount ?? 0, entry.createdAt, entry.updatedAt,
    columns.updatedSort, bool(columns.reserved), columns.searchText, entry.writtenBy ?? null,
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
    // Absent rather than null, as the core writes an entry whose writer is unknown.
    ...(row.written_by == null ? {} : { writtenBy: row.written_by }),
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
  const jsons = entries.map((entry, i) => {
    try {
      return checkEntry(entry, fn, limits);
    } catch (error) {
      if (error instanceof MemcoreError && error.code === 'E_ARGUMENT' && typeof error.details?.argument === 'string') {
        error.details.argument = error.details.argument.replace(/^entry/, `entries[${i}]`);
      }
      throw error;
    }
  });
  const columns = derivedColumns(entries, jsons);
  return entries.map((entry, i) => entryParams(entry, jsons[i], bool, columns[i]));
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
  return new MemcoreError('E_HOST', `${fn}: another entry already has the identity ${identity} of ${entry.visibility} entry ${JSON.stringify(entry.id)}; update that entry instead (identity is unique per behaviour §2.4)`, {
    function: fn, reason: 'identity-conflict', id: entry.id, transient: false, cause: String(cause?.message ?? cause),
  });
}

/** The `E_ARGUMENT` error of `fn`'s argument `name` (`details: { function, argument, reason? }`). */
export function argument(fn, name, message, reason) {
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

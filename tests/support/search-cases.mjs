// Search cases for the parameterised SQL suite (tests/js/sql-stores.test.mjs): generated entries
// whose texts hold short and long ASCII words, LIKE metacharacters, quotes, FTS5 query syntax
// (which the index must take as plain characters) and non-ASCII text (folded by the core only),
// the queries run over them, and a look inside the search index of a database.
import { prng as rng } from './prng.mjs';

const ASCII_WORDS = ['dog', 'cat', 'name', 'Rex', 'x2', 'ab', 'Porto', 'city', '100%', 'a_b', 'back\\slash', "it's", '"quoted"', 'star*', 'NEAR(dog cat)', 'AND', 'OR', 'a-b:c', '(paren)', 'caret^', 'k'];
const UNICODE_WORDS = ['café', 'Straße', '東京', '\u212Aelvin', 'İstanbul', 'ΟΔΟΣ'];

/**
 * Queries with terms of 1, 2, 3 and more characters, several terms (one with more than the 8 a
 * statement tests), SQL and FTS5 syntax, and non-ASCII terms (KELVIN SIGN folds to ASCII `k`).
 */
export const SEARCH_QUERIES = ['dog', 'd', 'do', 'og', 'x', '1', 'e', 'k', 'REX', 'dog x', 'do ca', 'dog name', 'name rex porto', 'porto city dog cat name rex x2 ab back',
  '100', '100%', '0%', '%', '_', 'a_b', 'a_', '_b', 'back\\slash', 'slash', '\\', "it's", "'", 's', '"quoted"', '"', 'uoted"', 'star*', '*', 'NEAR(dog cat)', 'NEAR', 'near dog',
  '(', '(paren)', 'AND', 'OR', 'and or', 'dog OR cat', 'dog AND cat', '-dog', 'a-b:c', 'b:c', ':', 'caret^', '^',
  'café', 'cafe', 'straße', 'strasse', '東京', '京', '東京 dog', 'kelvin', '\u212Aelvin', 'i̇stanbul', 'istanbul', 'οδος', 'ΟΔΟΣ', '12', '7', 'true', 'null', 'false', 'n', 'w true', '!!!'];

const nested = (leaf, depth) => Array.from({ length: depth }).reduce((inner) => ({ d: inner }), leaf);

/**
 * `count` entries (ids s0000…): mostly ASCII strings, some with a non-ASCII word in key or value,
 * some non-string values (numbers, objects, arrays, booleans, null), a few nested 70 deep (too
 * deep for a search_text); every fifth belongs to `other-user` or `u2`, the rest to `u1`.
 */
export function searchEntries(seed, count) {
  const r = rng(seed);
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const word = () => (r() < 0.12 ? pick(UNICODE_WORDS) : pick(ASCII_WORDS));
  const text = () => (r() < 0.2 ? 'Note: ' : '') + Array.from({ length: 1 + Math.floor(r() * 3) }, word).join(pick([' ', ' ', '-', '', '/']));
  const out = [];
  for (let i = 0; i < count; i++) {
    const value = r() < 0.85 ? (r() < 0.3 ? text().toUpperCase() : text())
      : pick([() => Math.floor(r() * 2000), () => ({ w: word(), n: i % 13 }), () => [word(), r() < 0.5, -1.5e-7], () => r() < 0.5, () => null, () => nested(word(), 70)])();
    out.push({
      id: `s${String(i).padStart(4, '0')}`, userId: i % 5 === 0 ? pick(['other-user', 'u2']) : 'u1', key: `${word()}_${i}`, value,
      category: 'fact', visibility: 'self', sourceAgentId: `a${i}`, groupIds: [], sourceConversationId: null, conflicted: false, accessCount: 0,
      createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z',
    });
  }
  return out;
}

/**
 * The search index of a database (`sql(text, params)` → rows; `dialect` 'sqlite' for SQLite and
 * D1, 'postgres'): `docs` = its documents (SQLite/D1: the FTS table, after FTS5's own integrity
 * check; PostgreSQL: memcore_search), `rows` = SQLite/D1's memcore_search_rows (PostgreSQL: the
 * same table again), `texts` = entries with a search_text, `stale` = index rows whose entry is
 * gone or has another text or user, and `matching(t)` = the entry ids whose indexed text holds
 * `t`. In sync: docs = rows = texts, stale = 0.
 */
export async function searchIndexState(sql, dialect) {
  if (dialect === 'postgres') {
    const [counts] = await sql(`SELECT (SELECT count(*) FROM memcore_search) AS docs, (SELECT count(*) FROM memcore_search) AS rows,
      (SELECT count(*) FROM memcore_entries WHERE search_text IS NOT NULL) AS texts,
      (SELECT count(*) FROM memcore_search s LEFT JOIN memcore_entries e ON e.id = s.entry_id
        WHERE e.id IS NULL OR e.search_text IS DISTINCT FROM s.search_text OR e.user_id <> s.user_id) AS stale`);
    return {
      ...Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, Number(v)])),
      matching: async (term) => (await sql('SELECT entry_id AS id FROM memcore_search WHERE strpos(search_text, $1) > 0 ORDER BY 1', [term])).map((row) => row.id),
    };
  }
  await sql("INSERT INTO memcore_search (memcore_search) VALUES ('integrity-check')");
  const [counts] = await sql(`SELECT (SELECT count(*) FROM memcore_search) AS docs, (SELECT count(*) FROM memcore_search_rows) AS rows,
    (SELECT count(*) FROM memcore_entries WHERE search_text IS NOT NULL) AS texts,
    (SELECT count(*) FROM memcore_search_rows r LEFT JOIN memcore_entries e ON e.id = r.entry_id WHERE e.search_text IS NULL) AS stale`);
  return {
    ...Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, Number(v)])),
    matching: async (term) => (await sql('SELECT r.entry_id AS id FROM memcore_search JOIN memcore_search_rows r ON r.doc = memcore_search.rowid WHERE memcore_search MATCH ? ORDER BY 1', [`"${term}"`])).map((row) => row.id),
  };
}

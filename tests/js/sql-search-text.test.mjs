// The SQL stores' search_text and search prefilter, as the core exports them (`indexColumns`,
// `searchPrefilter`), against the core's own matching: the skeleton keeps exactly the ASCII
// letters and digits of the core's folding, so whenever the core matches a query, the prefilter's
// condition holds on the row's search_text — checked for every Unicode code point and over
// generated entries and queries (fixed seed). No database here: tests/js/sql-stores.test.mjs
// checks that each backend evaluates that condition exactly; tests/sql_index_columns.rs pins the
// bytes existing databases hold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as m from 'memcore';
import { prng as rng } from '../support/prng.mjs';

const NON_ASCII_MARK = '\u0002\u0002\u0002';
const NUMBER_MARK = '\u00030e0\u0003';
const searchText = (key, value) => m.indexColumns([{ key, updatedAt: '', valueJson: JSON.stringify(value) }])[0].searchText;
// The skeleton of a text is the value part of a string value's search_text.
const skeleton = (text) => searchText('', text).slice(1);

const entry = (key, value = '') => ({
  id: 'x', userId: 'u', key, value, category: 'fact', visibility: 'global', sourceAgentId: null, groupIds: [], sourceConversationId: null,
  conflicted: false, accessCount: 0, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z',
});

/** The prefilter's condition (what the SQL statements test) on one search_text. */
function candidate(query, text) {
  const { long, short } = m.searchPrefilter(query);
  return text === null || [...long, ...short].every((t) => t.anyOf.some((pattern) => text.includes(pattern)));
}

test('outside ASCII, only KELVIN SIGN (→ k) and U+0130 (→ i + U+0307) fold to an ASCII letter or digit in the core — every code point checked', () => {
  const found = [];
  const text = (from, to) => {
    const parts = [];
    for (let c = from; c < to; c++) if (c < 0xd800 || c > 0xdfff) parts.push(String.fromCodePoint(c));
    return parts.join('');
  };
  // Bisect the ranges whose text the core finds the ASCII character in.
  const search = (ascii, from, to) => {
    if (!m.matchesQuery(ascii, entry(text(from, to)))) return;
    if (to - from === 1) found.push([from.toString(16), ascii]);
    else {
      const mid = Math.floor((from + to) / 2);
      search(ascii, from, mid);
      search(ascii, mid, to);
    }
  };
  for (const ascii of 'abcdefghijklmnopqrstuvwxyz0123456789') {
    for (let from = 0x80; from < 0x110000; from += 0x10000) search(ascii, from, Math.min(from + 0x10000, 0x110000));
  }
  assert.deepEqual(found.sort(), [['130', 'i'], ['212a', 'k']]);
  // Their exact shapes: K is `k`; İ is `i` followed by a non-ASCII character.
  assert.ok(m.matchesQuery('xky', entry('x\u212Ay')));
  assert.ok(m.matchesQuery('xi', entry('x\u0130y')) && !m.matchesQuery('iy', entry('x\u0130y')));
  assert.equal(skeleton('x\u212Ay\u0130z'), `xkyi${NON_ASCII_MARK}z`);
  assert.equal(skeleton('ÀB€'), NON_ASCII_MARK + 'b' + NON_ASCII_MARK);
  assert.equal(skeleton('Dog_NAME %'), 'dog_name %');
});

test('search_text: skeleton of key and value; numbers as NUMBER_MARK; NULL for lone surrogates and values nested deeper than 64', () => {
  assert.equal(searchText('Dog', 'Rex'), 'dog\u0001rex');
  assert.equal(searchText('Straße', 'Café au lait'), `stra${NON_ASCII_MARK}e\u0001caf${NON_ASCII_MARK} au lait`);
  assert.equal(searchText('k', { Size: 1.5e-7, tags: ['A', true, null], 'ü': -0 }), `k\u0001{"size":${NUMBER_MARK},"tags":["a",true,null],"${NON_ASCII_MARK}":${NUMBER_MARK}}`);
  assert.equal(searchText('k', 42), `k\u0001${NUMBER_MARK}`);
  assert.equal(searchText('k', 'line\nbreak'), 'k\u0001line\nbreak');
  assert.equal(searchText('k', ['line\nbreak\u0001']), 'k\u0001["line\\nbreak\\u0001"]');
  assert.equal(searchText('k', 'lone \ud800'), null);
  assert.equal(searchText('k', { 'x\udc00': 1 }), null);
  let deep = 'leaf';
  for (let i = 0; i < 64; i++) deep = [deep];
  assert.notEqual(searchText('k', deep), null);
  assert.equal(searchText('k', [deep]), null);
});

test('searchPrefilter: a term\'s skeleton is its pattern (long from 3 characters: a non-ASCII run counts 3); digits-and-e terms also accept NUMBER_MARK; at most 8 distinct terms; no terms, no tests', () => {
  const plan = m.searchPrefilter('dog do 東京 é 100 1e5 e x2 dog a b c d f');
  const number = (p) => ({ anyOf: [p, NUMBER_MARK] });
  assert.deepEqual(plan.long, [{ anyOf: ['dog'] }, { anyOf: [NON_ASCII_MARK] }, { anyOf: [NON_ASCII_MARK] }, number('100'), number('1e5')]);
  assert.deepEqual(plan.short, [{ anyOf: ['do'] }, number('e'), { anyOf: ['x2'] }]);
  assert.deepEqual(m.searchPrefilter(' -- '), { long: [], short: [] });
  assert.deepEqual(m.searchPrefilter('DOG'), m.searchPrefilter('dog'));
});

test('indexColumns: updatedSort orders as the core\'s recency (Z = +00:00, a leap second, fractions; an invalid timestamp is older), reserved is the _gdpr_ rule with Rust\'s trim', () => {
  const cols = (key, updatedAt) => m.indexColumns([{ key, updatedAt, valueJson: '"v"' }])[0];
  assert.equal(cols('k', '2026-01-01T00:00:00Z').updatedSort, cols('k', '2026-01-01T00:00:00+00:00').updatedSort);
  assert.equal(cols('k', '2026-01-01T00:00:00Z').updatedSort, '110017672256000000000000');
  assert.ok(cols('k', '2016-12-31T23:59:60Z').updatedSort > cols('k', '2016-12-31T23:59:59.999999999Z').updatedSort);
  assert.equal(cols('k', 'yesterday').updatedSort, '0yesterday');
  assert.deepEqual(['_gdpr_x', ' \u3000_gdpr_x', '\u0085_gdpr_x', '\ufeff_gdpr_x', 'x_gdpr_'].map((k) => cols(k, '').reserved), [true, true, true, false, false]);
  assert.throws(() => m.indexColumns([{ key: 'k', updatedAt: '' }]), (e) => e.code === 'E_ARGUMENT' && e.details.function === 'indexColumns');
});

// Text that folds in every way the core's matching knows: case, Unicode lowercasing with special
// cases (final sigma, İ, KELVIN SIGN, ANGSTROM SIGN, ẞ), combining marks, CJK, emoji, ligatures,
// fullwidth letters, controls, quotes and LIKE/FTS syntax.
const PIECES = ['Dog', 'cat', 'NAME', 'x2', '100', '1e5', 'ΟΔΟΣ', 'σ', 'İstanbul', 'I', 'ı', '\u212Aelvin', '\u212B', 'ẞ', 'Straße', 'cafe\u0301', 'café', '東京の', '猫',
  '😀', 'ﬁle', 'Ｆｕｌｌ', 'Ⅻ', '\u0000', '\t', '\n', '"', "'", '\\', '%', '_', '*', '(', ':', '-', 'NEAR', 'AND', ' ', ' ', '/', 'e', '0', 'ǅ', 'ᾈ', 'ŉ'];
const NUMBERS = [0, -0, 7, -12, 100, 1.5, 0.1, -2.5e-7, 1e21, 1e-7, 123456789012345680000, 2 ** 53 + 2, 5e-324, 1.7976931348623157e308];

function generated(seed, count) {
  const r = rng(seed);
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const text = () => Array.from({ length: 1 + Math.floor(r() * 5) }, () => pick(PIECES)).join('');
  const value = (depth = 0) => {
    const kind = depth > 2 ? Math.floor(r() * 3) : Math.floor(r() * 6);
    if (kind === 0) return text();
    if (kind === 1) return pick(NUMBERS);
    if (kind === 2) return pick([true, false, null]);
    if (kind === 3) return Array.from({ length: Math.floor(r() * 3) }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: 1 + Math.floor(r() * 2) }, () => [text(), value(depth + 1)]));
  };
  return Array.from({ length: count }, () => entry(text(), r() < 0.5 ? text() : value()));
}

test('whenever the core matches a query, the prefilter\'s condition holds on the row\'s search_text (2,000 generated entries × 40 queries each, seed 20261205)', () => {
  const r = rng(20261205);
  let matched = 0;
  let checked = 0;
  for (const e of generated(20261205, 2000)) {
    const text = searchText(e.key, e.value);
    const sources = [e.key, typeof e.value === 'string' ? e.value : JSON.stringify(e.value), ...NUMBERS.map(String), ...PIECES];
    for (let q = 0; q < 40; q++) {
      // Slices of the entry's own text (upper- and lowercased), and words from elsewhere.
      const source = sources[q % 3 === 2 ? 2 + Math.floor(r() * (sources.length - 2)) : q % 2];
      const at = Math.floor(r() * source.length);
      let query = source.slice(at, at + 1 + Math.floor(r() * 8));
      if (r() < 0.3) query = r() < 0.5 ? query.toUpperCase() : query.toLowerCase();
      if (r() < 0.2) query += ` ${pick(r, PIECES)}`;
      if (m.searchTerms(query).length === 0) continue;
      checked++;
      if (!m.matchesQuery(query, e)) continue;
      matched++;
      assert.ok(candidate(query, text), `query ${JSON.stringify(query)} matches ${JSON.stringify([e.key, e.value])} but not its search_text ${JSON.stringify(text)}`);
    }
  }
  assert.ok(matched > 20000 && checked > matched, `${matched} matches of ${checked} queries`);
});

function pick(r, xs) {
  return xs[Math.floor(r() * xs.length)];
}

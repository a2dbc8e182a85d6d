// Exact token counts through the package: the shared corpus (≥ 1,000 texts, both encodings),
// re-checked live against js-tiktoken, lone surrogates, host counters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import * as m from 'memcore';
import { vectors } from './vectors.mjs';

const corpus = vectors('tokens/corpus.json');
const oracle = { o200k_base: new Tiktoken(o200k), cl100k_base: new Tiktoken(cl100k) };
const isCode = (code) => (e) => e instanceof m.MemcoreError && e.code === code;

test('the corpus has at least 1,000 texts and both tables are loaded by the node entry', () => {
  assert.ok(corpus.cases.length >= 1000, `${corpus.cases.length} cases`);
  assert.equal(m.hasTokenizer('o200k_base'), true);
  assert.equal(m.hasTokenizer('cl100k_base'), true);
});

for (const encoding of ['o200k_base', 'cl100k_base']) {
  test(`${encoding}: zero mismatches against js-tiktoken on the corpus`, () => {
    const mismatches = [];
    for (const c of corpus.cases) {
      const live = oracle[encoding].encode(c.text, [], []);
      const ours = m.countTokens(c.text, { encoding });
      // The committed expectation and the live oracle agree, and so do we.
      if (ours !== live.length || ours !== c[encoding].count) mismatches.push({ text: c.text.slice(0, 60), ours, live: live.length });
      if (c[encoding].ids) assert.deepEqual(m.encodeTokens(c.text, { encoding }), c[encoding].ids);
    }
    assert.deepEqual(mismatches.slice(0, 5), []);
  });
}

test('the whole corpus joined into one text (new piece boundaries) matches js-tiktoken', () => {
  for (const sep of ['', '\n']) {
    const text = corpus.cases.map((c) => c.text).join(sep);
    for (const encoding of ['o200k_base', 'cl100k_base']) {
      assert.equal(m.countTokens(text, { encoding }), oracle[encoding].encode(text, [], []).length, `${encoding} sep=${JSON.stringify(sep)}`);
    }
  }
});

test('lone surrogates count as U+FFFD, like the oracle', () => {
  for (const c of corpus.jsOnly) {
    const text = String.fromCharCode(...c.utf16);
    for (const encoding of ['o200k_base', 'cl100k_base']) {
      assert.equal(m.countTokens(text, { encoding }), c[encoding].count, JSON.stringify(c.utf16));
      assert.equal(m.countTokens(text, { encoding }), oracle[encoding].encode(text, [], []).length);
    }
  }
});

test('special-token strings are plain text', () => {
  const text = 'before <|endoftext|> after <|fim_prefix|>';
  assert.equal(m.countTokens(text), oracle.o200k_base.encode(text, [], []).length);
  assert.ok(m.countTokens('<|endoftext|>') > 1);
});

test('options: default encoding is o200k_base; unknown encodings and bad options are E_ARGUMENT', () => {
  const text = 'Grüße aus Zürich 🇨🇭 — 12345678';
  assert.equal(m.countTokens(text), m.countTokens(text, { encoding: 'o200k_base' }));
  assert.notEqual(m.countTokens(text, { encoding: 'cl100k_base' }), undefined);
  assert.throws(() => m.countTokens(text, { encoding: 'p50k_base' }), isCode('E_ARGUMENT'));
  assert.throws(() => m.countTokens(text, 'o200k_base'), isCode('E_ARGUMENT'));
  assert.throws(() => m.countTokens(text, { countTokens: 'yes' }), isCode('E_ARGUMENT'));
});

test('a host countTokens replaces the tables; its failures are E_HOST', () => {
  assert.equal(m.countTokens('a b c', { countTokens: (t) => t.split(' ').length }), 3);
  assert.throws(() => m.countTokens('x', { countTokens: () => { throw new Error('boom'); } }), (e) => e.code === 'E_HOST' && /boom/.test(e.message));
  assert.throws(() => m.countTokens('x', { countTokens: async () => 1 }), (e) => e.code === 'E_HOST' && /synchronous/.test(e.message));
  for (const bad of [-1, 1.5, NaN, '3', null]) {
    assert.throws(() => m.countTokens('x', { countTokens: () => bad }), isCode('E_HOST'), String(bad));
  }
  assert.equal(m.countTokens('still works'), 2);
});

test('loadTokenizer refuses what is not a table, and keeps the loaded ones', () => {
  assert.throws(() => m.loadTokenizer(new Uint8Array([1, 2, 3])), isCode('E_ARGUMENT'));
  assert.throws(() => m.loadTokenizer('o200k_base'), isCode('E_ARGUMENT'));
  assert.equal(m.hasTokenizer('o200k_base'), true);
  assert.equal(m.countTokens('hello world'), 2);
});

test('a table file of another format version (a stale copy) is E_ARGUMENT naming the file to load; the loaded table stays', async () => {
  const { readFileSync } = await import('node:fs');
  const { createRequire } = await import('node:module');
  const file = createRequire(import.meta.url).resolve('memcore/package.json').replace(/package\.json$/, 'tokenizer/o200k_base.bin');
  const stale = new Uint8Array(readFileSync(file));
  new DataView(stale.buffer).setUint32(8, 1, true);
  assert.throws(() => m.loadTokenizer(stale), (e) => e.code === 'E_ARGUMENT' && /unsupported format version/.test(e.message) && /memcore\/tokenizer\/<encoding>\.bin/.test(e.message));
  assert.equal(m.countTokens('hello world'), 2);
});

test('the rank tables vendored for cargo test are the tables the package ships', async () => {
  const { readFileSync } = await import('node:fs');
  const { inflateSync } = await import('node:zlib');
  const { createRequire } = await import('node:module');
  const shipped = (name) => readFileSync(createRequire(import.meta.url).resolve(`memcore/package.json`).replace(/package\.json$/, `tokenizer/${name}.bin`));
  for (const name of ['o200k_base', 'cl100k_base']) {
    const vendored = inflateSync(readFileSync(new URL(`../data/tokenizer/${name}.bin.z`, import.meta.url)));
    assert.ok(vendored.equals(shipped(name)), `tests/data/tokenizer/${name}.bin.z differs from the built table: re-run node scripts/tokens/vendor-tables.mjs`);
  }
});

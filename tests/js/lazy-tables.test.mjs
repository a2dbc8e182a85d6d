// Tokenizer tables load on first use (issue 10): the Node entry loads nothing but the .wasm at
// import, and reads a table synchronously the first time something counts with its encoding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as m from 'memcore';
import { instance, forceTrap } from 'memcore/testing';

test('importing the package loads no table; parsing and entry tools never load one', async () => {
  assert.deepEqual(instance().tables, []);
  m.parseProfile('## Identity\n- a\n');
  m.renderProfile(m.parseProfile('## Identity\n- a\n'));
  const tools = m.createMemoryTools({ store: new m.InMemoryEntryStore(), userId: 'u', agentId: 'a' });
  await tools.call('rememberFact', { key: 'k', value: 'v', category: 'fact' });
  assert.deepEqual(instance().tables, []);
});

test('the first count loads its encoding only, synchronously; ready() resolves at once', async () => {
  assert.equal(m.countTokens('hello world'), 2);
  assert.deepEqual(instance().tables, ['o200k_base']);
  assert.equal(m.countTokens('hello world', { encoding: 'cl100k_base' }), 2);
  assert.deepEqual(instance().tables, ['o200k_base', 'cl100k_base']);
  await m.ready();
  await m.ready(['o200k_base', 'cl100k_base']);
  await assert.rejects(m.ready('gpt2'), { code: 'E_ARGUMENT' });
  await assert.rejects(m.ready(42), { code: 'E_ARGUMENT' });
  assert.equal(m.DEFAULT_ENCODING, 'o200k_base');
});

test('a replaced instance reloads the tables it had', () => {
  assert.throws(forceTrap, { code: 'E_INTERNAL' });
  assert.equal(m.countTokens('hello world', { encoding: 'cl100k_base' }), 2);
  assert.deepEqual(instance().tables.sort(), ['cl100k_base', 'o200k_base']);
});

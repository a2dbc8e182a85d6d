// `import 'memcore/tokenizer/<encoding>'` loads that table, also when it is imported before
// 'memcore' (the table module does not import the entry, so it is evaluated first; its request
// waits until the entry says how it reads tables). Its own process: nothing else imported first.
import 'memcore/tokenizer/cl100k_base';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as m from 'memcore';
import { instance } from 'memcore/testing';

test('a table module imported before the entry loads its table when the entry starts (Node: at import)', async () => {
  assert.deepEqual(instance().tables, ['cl100k_base']);
  assert.equal(m.countTokens('hello world', { encoding: 'cl100k_base' }), 2);
  await m.ready('cl100k_base');
  assert.deepEqual(instance().tables, ['cl100k_base']);
});

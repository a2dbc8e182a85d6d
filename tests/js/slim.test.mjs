// `memcore/slim`: nothing works before init; init validates its argument; after init everything
// works. (Its own file: node --test runs each file in its own process, so no other entry has
// initialised the shared instance.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as slim from 'memcore/slim';

const require = createRequire(import.meta.url);
const wasmPath = require.resolve('memcore/memcore.wasm');

test('every call before init throws (or rejects with) E_NOT_INITIALIZED', async () => {
  const notInit = (e) => e instanceof slim.MemcoreError && e.code === 'E_NOT_INITIALIZED';
  for (const [name, fn] of Object.entries(slim)) {
    if (typeof fn !== 'function' || ['init', 'initSync', 'MemcoreError'].includes(name)) continue;
    if (name === 'InMemoryEntryStore' || name === 'ContextMemory' || name === 'DreamMetrics') {
      assert.throws(() => new slim[name](), notInit, name);
      continue;
    }
    let result;
    try {
      result = fn('x');
    } catch (error) {
      assert.ok(notInit(error), name);
      continue;
    }
    assert.ok(result instanceof Promise, `${name} neither threw nor returned a Promise`);
    await assert.rejects(result, notInit, name);
  }
});

test('init refuses what is not a module, bytes, Response or URL', async () => {
  for (const bad of [undefined, null, 42, {}, [1, 2]]) {
    await assert.rejects(slim.init(bad), (e) => e.code === 'E_ARGUMENT' && e.details.argument === 'moduleOrBytes');
  }
  assert.throws(() => slim.initSync('memcore.wasm'), (e) => e.code === 'E_ARGUMENT');
});

test('init with the bytes, then calls work; init again is a no-op', async () => {
  await slim.init(readFileSync(wasmPath));
  assert.match(slim.version(), /^\d+\.\d+\.\d+$/);
  await slim.init(readFileSync(wasmPath));
  slim.initSync(new WebAssembly.Module(readFileSync(wasmPath)));
  assert.match(slim.version(), /^\d+\.\d+\.\d+$/);
});

test('slim without tables: budget functions fail with E_NO_TOKENIZER, a host counter works, tables load', async () => {
  await slim.init(readFileSync(wasmPath));
  assert.throws(() => slim.countTokens('hello'), (e) => e.code === 'E_NO_TOKENIZER');
  assert.equal(slim.countTokens('hello world', { countTokens: (t) => t.length }), 11);
  const table = readFileSync(join(dirname(wasmPath), '..', 'tokenizer', 'o200k_base.bin'));
  assert.equal(slim.loadTokenizer(table), 'o200k_base');
  assert.equal(slim.countTokens('hello world'), 2);
  assert.throws(() => slim.countTokens('hello', { encoding: 'cl100k_base' }), (e) => e.code === 'E_NO_TOKENIZER');
});

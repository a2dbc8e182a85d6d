// The entry store protocol is written once, in the core's table (src/entries/store/protocol.rs):
// the JS adapter's method names are generated from it (pkg/store-protocol.js, from
// coreConstants), every name has exactly one wire form in js/host.js, and the core's remote
// store calls no method the table does not name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { InMemoryEntryStore, createMemoryTools } from 'memcore';

const require = createRequire(import.meta.url);
const pkgDir = join(require.resolve('memcore/package.json'), '..');
const load = (file) => import(pathToFileURL(join(pkgDir, file)).href);
const root = new URL('../../', import.meta.url);

test('the JS method lists are the core table\'s, generated into the package', async () => {
  const raw = await load('wasm/memcore.js');
  const core = JSON.parse(raw.coreConstants()).entryStoreMethods;
  const generated = await load('store-protocol.js');
  assert.deepEqual([...generated.REQUIRED_STORE_METHODS], core.required);
  assert.deepEqual([...generated.OPTIONAL_STORE_METHODS], core.optional);
  assert.deepEqual(core.required, ['list', 'get', 'upsert', 'delete', 'incrementAccess']);
  const all = [...core.required, ...core.optional];
  assert.equal(new Set(all).size, all.length, 'each name once');
});

test('every method of the table has exactly one wire form in js/host.js', async () => {
  const { STORE_WIRE } = await load('host.js');
  const { REQUIRED_STORE_METHODS, OPTIONAL_STORE_METHODS } = await load('store-protocol.js');
  assert.deepEqual(Object.keys(STORE_WIRE).sort(), [...REQUIRED_STORE_METHODS, ...OPTIONAL_STORE_METHODS].sort());
  for (const [name, [kinds]] of Object.entries(STORE_WIRE)) assert.match(kinds, /^[tjJr]+$/, name);
});

test('the core\'s remote store calls only methods of the table', async () => {
  const { REQUIRED_STORE_METHODS, OPTIONAL_STORE_METHODS } = await load('store-protocol.js');
  const names = new Set([...REQUIRED_STORE_METHODS, ...OPTIONAL_STORE_METHODS]);
  const source = readFileSync(new URL('src/boundary/adapter/entry_store.rs', root), 'utf8');
  const called = [...source.matchAll(/\.(?:call|has)\(\s*"(\w+)"/g)].map((m) => m[1]);
  assert.ok(called.length >= 20, `found ${called.length} calls`);
  for (const name of called) assert.ok(names.has(name), `${name} is not in the protocol table`);
  const queried = [...source.matchAll(/self\.query\("(\w+)"/g)].map((m) => m[1]);
  for (const name of queried) assert.ok(names.has(name), `${name} is not in the protocol table`);
});

test('a host store with some optional methods: those run, the others fall back', async () => {
  const inner = new InMemoryEntryStore();
  const calls = [];
  const store = {
    list: (u) => (calls.push('list'), inner.list(u)),
    get: (id) => (calls.push('get'), inner.get(id)),
    upsert: (e) => (calls.push('upsert'), inner.upsert(e)),
    delete: (id) => (calls.push('delete'), inner.delete(id)),
    incrementAccess: (ids) => (calls.push('incrementAccess'), inner.incrementAccess(ids)),
    findByKey: (u, k) => (calls.push('findByKey'), inner.list(u).filter((e) => e.key === k)),
    countUser: () => (calls.push('countUser'), 0),
  };
  let n = 0;
  const tools = createMemoryTools({ store, userId: 'u1', agentId: 'a1', now: () => '2026-03-01T00:00:00Z', newId: () => `e${(n += 1)}` });
  assert.equal(await tools.call('rememberFact', { key: 'color', value: 'blue', category: 'preference' }), '✅ Remembered: color = blue [preference, self]');
  assert.ok(calls.includes('findByKey'), calls.join());
  assert.ok(calls.includes('upsert'));
  assert.equal(inner.list('u1')[0].value, 'blue');
});

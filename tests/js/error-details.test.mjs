// `details` is typed per error code (js/types/errors.d.ts, MemcoreErrorDetails): each code's
// errors, raised through the public API, carry only the fields its type declares.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import * as m from 'memcore';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import { forceTrap } from 'memcore/testing';

const require = createRequire(import.meta.url);
const pkgDir = join(require.resolve('memcore/package.json'), '..');

/** The declared fields of each code's details, read from the installed typings. */
function declared() {
  const source = readFileSync(join(pkgDir, 'types', 'errors.d.ts'), 'utf8');
  const body = source.slice(source.indexOf('export interface MemcoreErrorDetails {'));
  const block = body.slice(0, body.indexOf('\n}\n'));
  const out = {};
  for (const [, code, type] of block.matchAll(/^\s+(E_[A-Z_]+): ([^;]*?(?:\{[\s\S]*?\})?);$/gm)) {
    const fields = [...type.matchAll(/(\w+)\??:/g)].map((f) => f[1]);
    out[code] = { fields, open: /\[\w+: string\]: unknown/.test(type), none: type.trim() === 'undefined' };
  }
  return out;
}

const caught = async (run) => {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('it did not throw');
};

test('every code is declared, and each raised error carries only its code\'s fields', async () => {
  const types = declared();
  const codes = ['E_ARGUMENT', 'E_NOT_INITIALIZED', 'E_INVALID_USER_ID', 'E_TOO_LARGE', 'E_CONFIG', 'E_NO_TOKENIZER', 'E_HOST', 'E_VERSION_CONFLICT', 'E_CONFLICT', 'E_SECRET', 'E_INTERNAL'];
  assert.deepEqual(Object.keys(types).sort(), [...codes].sort());
  const failing = { list: () => { throw new Error('down'); }, get() {}, upsert() {}, delete() {}, incrementAccess() {} };
  const storage = new InMemoryProfileStorage();
  const { version } = await storage.write('user-memory/u1/memory.md', 'one');
  await storage.write('user-memory/u1/memory.md', 'two', { ifVersion: version });
  const store = new m.InMemoryEntryStore();
  const errors = [
    await caught(() => m.parseProfile(42)),
    await caught(() => m.memoryPath('a/b')),
    await caught(() => m.applyUserEdit(null, 'x'.repeat(1048577), { userId: 'u', now: '2026-01-01T00:00:00Z' })),
    await caught(() => m.searchUserMemories(store, 'u1', 'x', { config: { maxEntriesPerUser: -1 } })),
    await caught(() => m.listUserMemories(failing, 'u1')),
    await caught(() => storage.write('user-memory/u1/memory.md', 'three', { ifVersion: version })),
    await caught(() => m.mergeProperties(store, 'u1', { api_key: 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD' }, { now: () => '2026-01-01T00:00:00Z', newId: () => 'e1' })),
    await caught(() => forceTrap()),
  ];
  const seen = new Set();
  for (const error of errors) {
    assert.ok(error instanceof m.MemcoreError, String(error));
    const type = types[error.code];
    seen.add(error.code);
    if (type.none) {
      assert.equal(error.details, undefined, error.code);
      continue;
    }
    assert.ok(error.details && typeof error.details === 'object', `${error.code} has details`);
    if (type.open) continue;
    for (const field of Object.keys(error.details)) assert.ok(type.fields.includes(field), `${error.code}: ${field} is not declared (${type.fields})`);
  }
  assert.deepEqual([...seen].sort(), ['E_ARGUMENT', 'E_CONFIG', 'E_HOST', 'E_INTERNAL', 'E_INVALID_USER_ID', 'E_SECRET', 'E_TOO_LARGE', 'E_VERSION_CONFLICT']);
});

test('a limit has one rule: 1 to 1000, refused (never clamped) naming the field', async () => {
  const store = new m.InMemoryEntryStore();
  const argumentOf = async (run) => {
    const error = await caught(run);
    assert.equal(error.code, 'E_ARGUMENT', error.message);
    assert.match(error.message, /must be between 1 and 1000/);
    return error.details.argument;
  };
  for (const limit of [0, 1001, 5000]) {
    assert.equal(await argumentOf(() => m.searchUserMemories(store, 'u1', 'x', { limit })), 'options.limit');
    assert.equal(await argumentOf(() => m.searchUserMemories(store, 'u1', 'x', { mode: 'terms', limit })), 'options.limit');
    assert.equal(await argumentOf(() => m.relevantMemories({ store, userId: 'u1', agentId: 'a', query: 'x', maxTokens: 100, limit })), 'options.limit');
    assert.equal(await argumentOf(() => m.searchEpisodes(store, 'u1', 'x', { limit })), 'options.limit');
    const memory = new m.ContextMemory({ storage: new InMemoryProfileStorage(), entries: store, model: async () => 'NOOP' });
    const argument = await argumentOf(() => memory.load({ userId: 'u1', enabled: true, entries: { query: 'x', maxTokens: 100, agentId: 'a', limit } }));
    assert.match(argument, /entries\.limit$/);
  }
  assert.deepEqual(await m.searchUserMemories(store, 'u1', 'x', { limit: 1000 }), []);
});

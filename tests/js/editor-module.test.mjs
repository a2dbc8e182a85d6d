// memcore/editor outside a browser: the module as the package ships it (exports map, typings, CSS,
// sideEffects), importable with no DOM (server-side rendering), its mount refusing bad options with
// an E_ARGUMENT MemcoreError before touching anything, and contextMemoryCallbacks over a real ContextMemory.
// The element itself runs in Chromium: tests/packaging/browser.test.mjs (a Vite app, every state)
// and tests/smoke/editor.test.mjs (www/editor.html over scripts/serve.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ContextMemory, MAX_EDIT_BODY_BYTES, applyUserEdit } from 'memcore';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import * as editor from 'memcore/editor';

const require = createRequire(import.meta.url);
const pkgDir = join(require.resolve('memcore/package.json'), '..');
const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));

test('the package ships memcore/editor (ESM + typings) and memcore/editor.css, the CSS kept by bundlers', () => {
  assert.deepEqual(manifest.exports['./editor'], { types: './editor.d.ts', default: './editor.js' });
  assert.equal(manifest.exports['./editor.css'], './editor.css');
  for (const file of ['editor.js', 'editor.d.ts', 'editor.css']) assert.ok(existsSync(join(pkgDir, file)), file);
  assert.deepEqual(manifest.typesVersions['*'].editor, ['./editor.d.ts']);
  // A CSS import is a side effect: without this, webpack drops `import 'memcore/editor.css'`.
  assert.ok(manifest.sideEffects.includes('./editor.css'));
  assert.ok(!manifest.sideEffects.includes('./editor.js'), 'importing the editor does nothing by itself');
  const css = readFileSync(join(pkgDir, 'editor.css'), 'utf8');
  for (const rule of css.replace(/\/\*[\s\S]*?\*\//g, '').split('}').map((r) => r.trim()).filter((r) => r && !r.startsWith('@') && !/^(from|to)\b/.test(r))) {
    assert.match(rule, /^\.cm-|^\s*\.cm-|\.cm-editor/, `every rule is scoped: ${rule.slice(0, 60)}`);
  }
  // The module resolves the constants inside the package: a page's import map needs no entry for them.
  assert.match(readFileSync(join(pkgDir, 'editor.js'), 'utf8'), /from '\.\/constants\.js'/);
});

test('imports with no DOM (server-side rendering) and exports the states and the limit', () => {
  assert.equal(typeof globalThis.document, 'undefined');
  assert.deepEqual(editor.STATES, ['loading', 'empty', 'unavailable', 'error', 'ready', 'unsaved', 'saving', 'saved', 'save-error']);
  assert.equal(editor.MAX_BODY_BYTES, MAX_EDIT_BODY_BYTES);
  assert.deepEqual(Object.keys(editor).sort(), ['MAX_BODY_BYTES', 'STATES', 'contextMemoryCallbacks', 'mountContextMemoryEditor']);
});

test('mountContextMemoryEditor refuses bad arguments with a MemcoreError (E_ARGUMENT) before touching the root', () => {
  const touched = [];
  const root = new Proxy({ querySelector: () => null }, {
    get(target, key) {
      if (key !== 'querySelector') touched.push(key);
      return target[key];
    },
  });
  for (const bad of [undefined, null, 42, 'div', {}]) {
    assert.throws(() => editor.mountContextMemoryEditor(bad), { name: 'MemcoreError', code: 'E_ARGUMENT', message: 'mountContextMemoryEditor: root must be an element' }, String(bad));
  }
  assert.throws(() => editor.mountContextMemoryEditor(root, null), { name: 'MemcoreError', code: 'E_ARGUMENT', message: 'mountContextMemoryEditor: options must be an object' });
  const onlyOne = 'mountContextMemoryEditor: pass both load and save (functions), or neither to use the endpoint';
  assert.throws(() => editor.mountContextMemoryEditor(root, { load: async () => ({}) }), { name: 'MemcoreError', code: 'E_ARGUMENT', message: onlyOne });
  assert.throws(() => editor.mountContextMemoryEditor(root, { save: async () => ({}) }), { name: 'MemcoreError', code: 'E_ARGUMENT', message: onlyOne });
  assert.throws(() => editor.mountContextMemoryEditor(root, { load: 'x', save: async () => ({}) }), { name: 'MemcoreError', code: 'E_ARGUMENT', message: onlyOne });
  for (const timeoutMs of [0, -1, NaN, Infinity, '1000']) {
    assert.throws(() => editor.mountContextMemoryEditor(root, { timeoutMs }), { name: 'MemcoreError', code: 'E_ARGUMENT', message: 'mountContextMemoryEditor: timeoutMs must be a positive number of milliseconds' }, String(timeoutMs));
  }
  assert.throws(() => editor.mountContextMemoryEditor(root, { fetch: null }), { name: 'MemcoreError', code: 'E_ARGUMENT', message: 'mountContextMemoryEditor: no fetch in this environment; pass fetch, or load and save' });
  assert.deepEqual(touched, []);
});

test('contextMemoryCallbacks: load and save over a ContextMemory answer what GET and PUT /contextmemory/me answer', async () => {
  const memory = new ContextMemory({ storage: new InMemoryProfileStorage() });
  const { load, save } = editor.contextMemoryCallbacks(memory, 'user_123');
  assert.deepEqual(await load(), { exists: false, body: '', lastUpdated: null, turnCount: null });
  const body = '# User Memory\n\n## Identity\n- Analyst; token sk-Zq8vT2mPw9LkR4sY7bXcQ1 for the API.\n\n## Job\n- Validates models.\n';
  const answer = await save(body);
  const expected = applyUserEdit(null, body, { userId: 'user_123', now: 0 });
  assert.equal(answer.saved, true);
  assert.equal(answer.exists, true);
  assert.equal(answer.turnCount, 0);
  assert.equal(answer.redactedSecrets, 1);
  assert.deepEqual(answer.diagnostics, expected.diagnostics);
  assert.doesNotMatch(answer.body, /sk-Zq8v/);
  assert.deepEqual(await load(), { exists: true, body: answer.body, lastUpdated: answer.lastUpdated, turnCount: 0 });
  // The core's refusals come through as the errors the editor shows.
  await assert.rejects(save('x'.repeat(MAX_EDIT_BODY_BYTES + 1)), { code: 'E_TOO_LARGE' });
  assert.equal((await load()).body, answer.body, 'a refused save changes nothing');
});

test('contextMemoryCallbacks refuses what is not a ContextMemory or a user id', () => {
  const memory = new ContextMemory({ storage: new InMemoryProfileStorage() });
  for (const bad of [null, undefined, {}, { getMyContextMemory() {} }, 'memory']) {
    assert.throws(() => editor.contextMemoryCallbacks(bad, 'u1'), { name: 'MemcoreError', code: 'E_ARGUMENT', message: 'contextMemoryCallbacks: pass a ContextMemory (getMyContextMemory and updateMyContextMemory)' });
  }
  for (const bad of ['', null, 7, undefined]) {
    assert.throws(() => editor.contextMemoryCallbacks(memory, bad), { name: 'MemcoreError', code: 'E_ARGUMENT', message: 'contextMemoryCallbacks: userId must be a non-empty string' });
  }
});

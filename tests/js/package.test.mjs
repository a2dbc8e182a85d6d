// The package as a user installs it: imported by name, its exports map, its files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import * as memcore from 'memcore';

const require = createRequire(import.meta.url);
const pkgDir = join(require.resolve('memcore/package.json'), '..');
const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));

test('imports by name in Node ESM and reports its version', () => {
  assert.equal(memcore.version(), manifest.version);
});

test('the exports map names an entry for every runtime, and every file exists', () => {
  const root = manifest.exports['.'];
  for (const condition of ['types', 'workerd', 'edge-light', 'node', 'browser', 'default']) {
    assert.ok(root[condition], `condition ${condition}`);
    assert.ok(existsSync(join(pkgDir, root[condition])), root[condition]);
  }
  assert.ok(existsSync(join(pkgDir, manifest.exports['./slim'].default)));
  assert.ok(existsSync(join(pkgDir, manifest.exports['./slim'].types)));
  assert.equal(manifest.type, 'module');
  // Two cores in the package: the full one and the profile-only one (for memcore/slim), and no other .wasm.
  assert.equal(require.resolve('memcore/memcore.wasm'), join(pkgDir, 'wasm', 'memcore_bg.wasm'));
  assert.equal(require.resolve('memcore/memcore-profile.wasm'), join(pkgDir, 'wasm', 'memcore_profile_bg.wasm'));
  assert.deepEqual(readdirSync(join(pkgDir, 'wasm')).filter((f) => f.endsWith('.wasm')).sort(), ['memcore_bg.wasm', 'memcore_profile_bg.wasm']);
  // The binary assets are typed as wrangler imports them (a compiled module, a table's bytes).
  for (const subpath of ['./memcore.wasm', './memcore-profile.wasm', './tokenizer/o200k_base.bin', './tokenizer/cl100k_base.bin']) {
    const entry = manifest.exports[subpath];
    assert.ok(existsSync(join(pkgDir, entry.default)), subpath);
    assert.ok(existsSync(join(pkgDir, entry.types)), subpath);
  }
});

test('every runtime entry keeps its start-up in bundles, Bun matches `bun` before `node`, the glue names no file', () => {
  const root = manifest.exports['.'];
  const conditions = Object.keys(root);
  assert.ok(conditions.indexOf('bun') >= 0 && conditions.indexOf('bun') < conditions.indexOf('node'), conditions.join(' '));
  // An entry missing from sideEffects is tree-shaken to nothing (Bun's bundler did: E_NOT_INITIALIZED).
  for (const condition of conditions.filter((c) => c !== 'types')) {
    assert.ok(manifest.sideEffects.includes(root[condition]), `${root[condition]} in sideEffects`);
  }
  // The glue's own default `new URL('memcore_bg.wasm', import.meta.url)` made bundlers emit a second
  // copy of the .wasm (Next.js edge functions shipped it twice); the entries name it themselves.
  assert.doesNotMatch(readFileSync(join(pkgDir, 'wasm', 'memcore.js'), 'utf8'), /new URL\(/);
});

test('the typings declare every runtime export', () => {
  // index.d.ts re-exports every section file of types/ (checked by tests/js/shapes.test.mjs).
  const dts = readdirSync(join(pkgDir, 'types')).filter((f) => f.endsWith('.d.ts'))
    .map((f) => readFileSync(join(pkgDir, 'types', f), 'utf8')).join('\n');
  for (const name of Object.keys(memcore)) {
    assert.match(dts, new RegExp(`export (declare )?(function|class|const) ${name}\\b`), `typing for ${name}`);
  }
});

test('MemcoreError is an Error with a code and details', () => {
  const e = new memcore.MemcoreError('E_CONFIG', 'bad', { path: 'x' });
  assert.ok(e instanceof Error);
  assert.equal(e.name, 'MemcoreError');
  assert.equal(e.code, 'E_CONFIG');
  assert.deepEqual(e.details, { path: 'x' });
});

test('memcore/constants holds the root\'s constants and loads no wasm (it imports nothing)', async () => {
  const constants = await import('memcore/constants');
  assert.ok(Object.keys(constants).length >= 10);
  for (const [name, value] of Object.entries(constants)) assert.deepEqual(value, memcore[name], name);
  assert.doesNotMatch(readFileSync(join(pkgDir, 'constants.js'), 'utf8'), /\bimport\b/);
  assert.deepEqual(manifest.typesVersions['*'].constants, [manifest.exports['./constants'].types]);
  assert.ok(existsSync(join(pkgDir, manifest.exports['./constants'].types)));
});

test('the JS copies of the core constants equal the core', async () => {
  const { pathToFileURL } = await import('node:url');
  const raw = await import(pathToFileURL(join(pkgDir, 'wasm', 'memcore.js')).href);
  const core = JSON.parse(raw.coreConstants());
  assert.equal(memcore.WEB_SEARCH_TOOLTIP, core.webSearchTooltip);
  assert.deepEqual([...memcore.SECTION_HEADINGS], core.sectionHeadings);
  assert.equal(memcore.MAX_EDIT_BODY_BYTES, core.maxEditBodyBytes);
  assert.equal(memcore.UPDATING_NOTICE, core.updatingNotice);
  assert.equal(memcore.TRUNCATION_MARKER, core.truncationMarker);
  assert.deepEqual([memcore.MIN_MAX_TOKENS, memcore.MAX_MAX_TOKENS, memcore.DEFAULT_MAX_TOKENS], [core.minMaxTokens, core.maxMaxTokens, core.defaultMaxTokens]);
  assert.equal(memcore.EMPTY_PROFILE_BODY, memcore.profileBody(memcore.renderProfile(memcore.emptyProfile('u1', 0))));
});

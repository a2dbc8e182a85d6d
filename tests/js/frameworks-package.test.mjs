// The agent-framework and GraphQL subpaths as the package ships them: each in the exports map with
// its typings (also for TypeScript's node10 resolution), every export declared, each framework an
// optional peer dependency that the installed dev workspace satisfies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const pkgDir = join(require.resolve('memcore/package.json'), '..');
const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
const dev = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).devDependencies;

const SUBPATHS = { graphql: 'graphql', 'ai-sdk': 'ai', 'openai-agents': '@openai/agents', langchain: '@langchain/core' };

test('each subpath is exported with its typings, for exports-aware and node10 resolution, and declares every export', async () => {
  for (const subpath of Object.keys(SUBPATHS)) {
    const entry = manifest.exports[`./${subpath}`];
    assert.deepEqual(Object.keys(entry), ['types', 'default'], subpath);
    assert.ok(existsSync(join(pkgDir, entry.default)) && existsSync(join(pkgDir, entry.types)), subpath);
    assert.deepEqual(manifest.typesVersions['*'][subpath], [entry.types], subpath);
    const dts = readFileSync(join(pkgDir, entry.types), 'utf8');
    const module = await import(`memcore/${subpath}`);
    assert.ok(Object.keys(module).length > 0, subpath);
    for (const name of Object.keys(module)) {
      assert.match(dts, new RegExp(`export (declare )?(function|class|const) ${name}\\b`), `${subpath}: typing for ${name}`);
    }
  }
});

test('each framework is an optional peer dependency whose range the pinned dev version satisfies', () => {
  for (const peer of Object.values(SUBPATHS)) {
    assert.deepEqual(manifest.peerDependenciesMeta[peer], { optional: true }, peer);
    const range = manifest.peerDependencies[peer];
    assert.ok(range, peer);
    // The pinned version's major is one the range names (the ranges are unions of majors or a 0.x span).
    const [major, minor] = dev[peer].split('.').map(Number);
    const names = range.includes('||') ? range.split('||').map((r) => Number(/\^(\d+)/.exec(r)[1])).includes(major)
      : range.startsWith('^') ? Number(/\^(\d+)/.exec(range)[1]) === major
      : major === 0 && minor >= Number(/>=0\.(\d+)/.exec(range)[1]);
    assert.ok(names, `${peer} ${dev[peer]} within ${range}`);
  }
  // memcore itself depends on nothing at run time.
  assert.equal(manifest.dependencies, undefined);
});

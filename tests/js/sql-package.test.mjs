// The SQL adapters as the package publishes them: exports (sqlite/postgres Node only, d1 in every
// runtime), the SQL files in the tarball, optional peer dependencies, nothing Node-only in D1's
// module graph, and the embedded migrations equal to the shipped files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, normalize } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const pkgDir = join(require.resolve('memcore/package.json'), '..');
const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));

test('exports: sqlite and postgres only under node, d1 everywhere, each with types (also for node10)', () => {
  for (const name of ['sqlite', 'postgres']) {
    const entry = manifest.exports[`./adapters/${name}`];
    assert.deepEqual(Object.keys(entry).sort(), ['node', 'types'], name);
    assert.ok(existsSync(join(pkgDir, entry.node)) && existsSync(join(pkgDir, entry.types)), name);
  }
  const d1 = manifest.exports['./adapters/d1'];
  assert.deepEqual(Object.keys(d1).sort(), ['default', 'types']);
  assert.ok(existsSync(join(pkgDir, d1.default)) && existsSync(join(pkgDir, d1.types)));
  for (const name of ['sqlite', 'postgres', 'd1']) assert.ok(manifest.typesVersions['*'][`adapters/${name}`], name);
});

test('better-sqlite3 and pg are optional peer dependencies', () => {
  assert.equal(manifest.peerDependencies['better-sqlite3'], '^12.0.0');
  assert.ok(manifest.peerDependencies.pg);
  assert.deepEqual(manifest.peerDependenciesMeta['better-sqlite3'], { optional: true });
  assert.deepEqual(manifest.peerDependenciesMeta.pg, { optional: true });
  // Every peer (drivers, frameworks, the MCP SDK) is optional; memcore depends on nothing at run time.
  assert.deepEqual(Object.keys(manifest.peerDependenciesMeta).sort(), Object.keys(manifest.peerDependencies).sort());
  assert.ok(Object.values(manifest.peerDependenciesMeta).every((m) => m.optional === true));
  assert.equal(manifest.dependencies, undefined);
});

test('the migrations ship as SQL files and, embedded, as the text the adapters apply', async () => {
  const { SQLITE_MIGRATIONS, POSTGRES_MIGRATIONS } = await import(pathToFileURL(join(pkgDir, 'adapters/sql/migrations.js')).href);
  for (const [dialect, migrations] of [['sqlite', SQLITE_MIGRATIONS], ['postgres', POSTGRES_MIGRATIONS]]) {
    assert.ok(migrations.length >= 1);
    for (const m of migrations) {
      assert.equal(readFileSync(join(pkgDir, 'sql', dialect, `${m.name}.sql`), 'utf8'), m.sql, `${dialect}/${m.name}`);
      assert.ok(m.statements.every((s) => !/;[ \t]*$/m.test(s)), 'statements are split at every line-final semicolon');
    }
  }
  assert.deepEqual(SQLITE_MIGRATIONS.map((m) => m.version), POSTGRES_MIGRATIONS.map((m) => m.version));
});

test("D1's module graph imports nothing from node: (it runs in workerd)", () => {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    assert.doesNotMatch(text, /from ['"]node:|import\(['"]node:|require\(/, file);
    for (const [, spec] of text.matchAll(/(?:^|\n)(?:import|export)[^'"]*?from ['"]([^'"]+)['"]/g)) {
      if (spec.startsWith('.')) visit(normalize(join(dirname(file), spec)));
      else assert.equal(spec, 'memcore', `${file} imports ${spec}`);
    }
  };
  visit(join(pkgDir, manifest.exports['./adapters/d1'].default));
  assert.ok(seen.size >= 6, [...seen].join(', '));
});

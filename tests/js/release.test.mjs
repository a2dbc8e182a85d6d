// Releases people can install: CHANGELOG.md in Keep a Changelog form with a dated entry for the
// version, `make release` (scripts/release.sh) writing the tarball, its SHA-256 and the entry, and
// npm's own publish check of the package: no auto-corrections, the files a user needs and none of
// ours (tests, fixtures, source maps, Rust sources), within a size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { releaseEntry } from '../../scripts/release-notes.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const version = /^version = "([^"]+)"/m.exec(readFileSync(join(ROOT, 'Cargo.toml'), 'utf8'))[1];
const changelog = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8');

test('CHANGELOG.md keeps the Keep a Changelog form and has a dated entry for the version', () => {
  const headings = changelog.split('\n').filter((line) => line.startsWith('## '));
  assert.equal(changelog.split('\n')[0], '# Changelog');
  assert.equal(headings[0], '## [Unreleased]', 'Unreleased comes first');
  const versions = headings.slice(1).map((h) => {
    const m = /^## \[(\d+)\.(\d+)\.(\d+)\] - (\d{4}-\d{2}-\d{2})$/.exec(h);
    assert.ok(m, `a version heading reads "## [x.y.z] - YYYY-MM-DD": ${h}`);
    return m.slice(1, 4).map(Number);
  });
  for (let i = 1; i < versions.length; i++) {
    const [a, b] = [versions[i - 1], versions[i]];
    assert.ok(a[0] > b[0] || (a[0] === b[0] && (a[1] > b[1] || (a[1] === b[1] && a[2] > b[2]))), 'newest version first');
  }
  const entry = releaseEntry(changelog, version);
  assert.ok(entry.startsWith(`## [${version}] - `));
  assert.match(entry, /^### Added$/m);
  // The package's version is Cargo's.
  assert.equal(JSON.parse(readFileSync(join(ROOT, 'pkg/package.json'), 'utf8')).version, version);
});

test('the changelog check names what is wrong', () => {
  assert.throws(() => releaseEntry(changelog, '1.0'), /1\.0 is not a semantic version/);
  assert.throws(() => releaseEntry(changelog, '9.9.9'), /no entry for 9\.9\.9: add "## \[9\.9\.9\] - YYYY-MM-DD"/);
  assert.throws(() => releaseEntry('# Changelog\n\n## [1.2.3]\n\n- x\n', '1.2.3'), /must read "## \[1\.2\.3\] - YYYY-MM-DD"/);
  assert.throws(() => releaseEntry('# Changelog\n\n## [1.2.3] - 2026-01-01\n\n## [1.2.2] - 2025-01-01\n\n- x\n', '1.2.3'), /lists no change/);
  assert.equal(releaseEntry('## [1.2.3-rc.1] - 2026-01-01\n### Fixed\n- y\n## [1.2.2] - 2025-01-01\n- x\n', '1.2.3-rc.1'), '## [1.2.3-rc.1] - 2026-01-01\n\n### Fixed\n- y\n');
});

test('make release writes the tarball, its SHA-256 and the changelog entry', () => {
  const out = execFileSync(join(ROOT, 'scripts/release.sh'), ['--no-build'], { cwd: ROOT, encoding: 'utf8' });
  const tarball = `memcore-${version}.tgz`;
  assert.match(out, new RegExp(`target/dist/${tarball.replace(/\./g, '\\.')}`));
  const bytes = readFileSync(join(ROOT, 'target/dist', tarball));
  const sha = createHash('sha256').update(bytes).digest('hex');
  assert.equal(readFileSync(join(ROOT, 'target/dist', `${tarball}.sha256`), 'utf8'), `${sha}  ${tarball}\n`);
  assert.match(out, new RegExp(`sha256 ${sha}`));
  assert.equal(readFileSync(join(ROOT, 'target/dist', `memcore-${version}.md`), 'utf8'), releaseEntry(changelog, version));
  // sha256sum -c accepts the file as written.
  const check = spawnSync('sha256sum', ['-c', `${tarball}.sha256`], { cwd: join(ROOT, 'target/dist'), encoding: 'utf8' });
  assert.equal(check.status, 0, check.stderr);
});

test('npm publish --dry-run: no auto-corrections, the files a user needs, none of ours, within size', () => {
  // A closed local port as the registry: the dry run reads nothing from the network.
  const run = spawnSync('npm', ['publish', '--dry-run', '--json', '--registry', 'http://127.0.0.1:9/'], { cwd: join(ROOT, 'pkg'), encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.doesNotMatch(run.stderr, /auto-corrected|errors corrected|invalid and removed/, run.stderr);
  const report = JSON.parse(run.stdout);
  const pkg = report.memcore ?? report;
  assert.equal(pkg.name, 'memcore');
  assert.equal(pkg.version, version);
  const files = pkg.files.map((f) => f.path);
  for (const needed of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'wasm/memcore_bg.wasm', 'tokenizer/o200k_base.bin', 'tokenizer/cl100k_base.bin', 'bin/memcore.js', 'node.js', 'browser.js', 'workerd.js', 'edge-light.js', 'index.d.ts']) {
    assert.ok(files.includes(needed), `the tarball holds ${needed}`);
  }
  const ours = files.filter((f) => /(^|\/)(tests?|fixtures?|__tests__|src|target|node_modules)\//.test(f) || /\.(map|rs|toml|lock|tgz)$/.test(f) || /\.test\.|\.spec\./.test(f) || /(^|\/)\./.test(f));
  assert.deepEqual(ours, [], 'no test, fixture, source map, Rust source or dotfile in the tarball');
  // Sizes: the tarball ~3.7 MB today — the two tokenizer tables are most of it, then the docs'
  // screenshots (1.2 MB of PNG; the docs ship since issue 44, their Markdown ~0.2 MB packed).
  assert.ok(pkg.size < 4.25 * 1024 * 1024, `tarball ${pkg.size} bytes`);
  assert.ok(pkg.unpackedSize < 8 * 1024 * 1024, `unpacked ${pkg.unpackedSize} bytes`);
  // The bin npm keeps is the one package.json names.
  const manifest = JSON.parse(readFileSync(join(ROOT, 'pkg/package.json'), 'utf8'));
  assert.deepEqual(manifest.bin, { memcore: 'bin/memcore.js' });
});

// The README's quickstart runs as written: the first ```js block under "## Quickstart" is copied
// into a file where `memcore` resolves to the installed package, run with node, and its output
// is the one the README states. It stays short enough to read at a glance.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

test('the README quickstart runs as written and prints what the README says', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quickstart'));
  const code = /```js\n([\s\S]*?)```/.exec(section)[1];
  const lines = code.trimEnd().split('\n');
  assert.ok(lines.filter((l) => l.trim() && !l.trim().startsWith('//')).length <= 12, 'at most 12 lines of code');
  assert.ok(lines.length <= 15, `${lines.length} lines`);
  // Inside the repository so that `memcore` resolves to the installed tarball, as in a project.
  const dir = join(ROOT, 'target', 'readme-quickstart');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  try {
    writeFileSync(join(dir, 'quickstart.mjs'), code);
    const out = execFileSync(process.execPath, [join(dir, 'quickstart.mjs')], { cwd: dir, encoding: 'utf8' });
    assert.equal(out, 'updated true\n✅ Remembered: favorite_color = blue [preference, self]\n• favorite_color = blue [preference, self]\nname added\n');
    // The prose under the block states the same output.
    for (const line of out.trim().split('\n')) assert.ok(section.includes(`\`${line}\``), `the README states ${line}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the README stays a front door: at most 250 lines, and HACKING.md holds the contributor material', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  assert.ok(readme.split('\n').length <= 250, `${readme.split('\n').length} lines`);
  assert.ok(readme.indexOf('## Install') < readme.indexOf('## Quickstart'));
  assert.match(readme, /\| run every test \| `make test` \|/);
  assert.match(readme, /\| run the demo[^|]*\| `make demo` \|/);
  const hacking = readFileSync(join(ROOT, 'HACKING.md'), 'utf8');
  for (const heading of ['## The two commands', '## Development', '## Measured', '## Dependencies']) assert.ok(hacking.includes(heading), heading);
  // The README names no file the reader cannot have.
  assert.doesNotMatch(readme, /SPEC\.md|SPEC §/);
});

test("HACKING.md's tree matches the repository: every path it names exists, every folder is named", () => {
  const hacking = readFileSync(join(ROOT, 'HACKING.md'), 'utf8');
  const development = hacking.slice(hacking.indexOf('## Development'));
  const tree = /```\n([\s\S]*?)```/.exec(development)[1];
  const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n');
  const named = new Set();
  for (const line of tree.split('\n')) {
    const path = /^(\S+)/.exec(line)?.[1];
    if (!path) continue;
    named.add(path.replace(/\/$/, ''));
    // Every path a line starts with exists — or is generated and git-ignored (pkg/).
    const generated = readFileSync(join(ROOT, '.gitignore'), 'utf8').split('\n').some((l) => l.replace(/^\//, '').replace(/\/$/, '') === path.replace(/\/$/, ''));
    assert.ok(generated || tracked.some((f) => f === path || f.startsWith(path.endsWith('/') ? path : `${path}/`)), `HACKING.md names ${path}, which is not in the repository`);
  }
  // Every folder at the top, and every folder under src/ and js/, is named (its own line, or in
  // its parent's line, or — for a top-level dot folder or file — on the line of another).
  const folders = new Set();
  for (const f of tracked) {
    const parts = f.split('/');
    if (parts.length > 1) folders.add(parts[0]);
    if ((parts[0] === 'src' || parts[0] === 'js') && parts.length > 2) folders.add(`${parts[0]}/${parts[1]}`);
  }
  const missing = [...folders].filter((d) => !named.has(d) && !tree.includes(`${d.split('/').pop()}/`));
  assert.deepEqual(missing, [], 'folders the tree in HACKING.md does not name');
});

test('a newcomer installs the packed tarball into an empty project, offline, and the quickstart runs there', () => {
  const packDir = join(ROOT, 'target/pack');
  const tarball = readdirSync(packDir).find((f) => /^memcore-.+\.tgz$/.test(f));
  assert.ok(tarball, 'scripts/install-package.sh packed the tarball');
  const project = mkdtempSync(join(tmpdir(), 'memcore-newcomer-'));
  try {
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'newcomer', version: '1.0.0', private: true }));
    // The package has no dependencies: installing it needs no registry.
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', join(packDir, tarball)], { cwd: project, encoding: 'utf8' });
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const code = /```js\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('## Quickstart')))[1];
    writeFileSync(join(project, 'quickstart.mjs'), code);
    const out = execFileSync(process.execPath, ['quickstart.mjs'], { cwd: project, encoding: 'utf8' });
    assert.equal(out, 'updated true\n✅ Remembered: favorite_color = blue [preference, self]\n• favorite_color = blue [preference, self]\nname added\n');
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});

// The framework subpaths against the ends of their peer ranges: the suites of tests/js that run
// memcore/ai-sdk, memcore/openai-agents, memcore/langchain and memcore/graphql through each
// framework, run again with the lowest release of every range (ai 5.0.0, graphql 16.0.0,
// @langchain/core 1.0.0, @openai/agents 0.1.0) and with the newest majors the dev workspace does
// not pin (ai 7, graphql 17 — both declare Node ≥ 22 and run here on Node 20).
//
// Needs target/pack/memcore-*.tgz (scripts/build.sh && scripts/install-package.sh). Each group's
// pinned frameworks (tests/packaging/frameworks/<group>/package-lock.json) are installed with
// `npm ci` into target/packaging/frameworks/<group>/ when the lockfile changed; memcore is
// installed there from the tarball on every run, and the suites are copied next to it, so that
// `memcore`, `ai`, … resolve to that group's copies. Nothing listens on a port.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SUITES = ['graphql.test.mjs', 'tools-ai-sdk.test.mjs', 'frameworks-models.test.mjs', 'tools-openai-agents.test.mjs', 'tools-langchain.test.mjs', 'frameworks-langchain-models.test.mjs'];
const FRAMEWORKS = ['ai', 'graphql', '@langchain/core', '@openai/agents'];
const ENV = { ...process.env, npm_config_update_notifier: 'false', DO_NOT_TRACK: '1' };
delete ENV.NODE_TEST_CONTEXT;

const tail = (s, n = 6000) => (s.length > n ? '…' + s.slice(-n) : s);
const sha256 = (...files) => createHash('sha256').update(files.map((f) => readFileSync(f)).join('\0')).digest('hex');

function run(cmd, args, { cwd }) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve(output);
      else reject(new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${code ?? signal}\n${tail(output)}`));
    });
  });
}

function tarball() {
  const packDir = join(ROOT, 'target/pack');
  const found = existsSync(packDir) ? readdirSync(packDir).filter((f) => /^memcore-.+\.tgz$/.test(f)) : [];
  if (found.length !== 1) throw new Error(`expected exactly one target/pack/memcore-*.tgz, found ${found.length}: run scripts/build.sh && scripts/install-package.sh first`);
  return join(packDir, found[0]);
}

/** The version a group installed of a package (read from its package.json on disk: exports maps hide it). */
const installed = (dir, name) => JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')).version;

for (const group of ['lowest', 'newest']) {
  test(`the framework suites with the ${group} frameworks of the peer ranges`, async () => {
    const src = join(ROOT, 'tests/packaging/frameworks', group);
    const dir = join(ROOT, 'target/packaging/frameworks', group);
    mkdirSync(dir, { recursive: true });
    for (const f of ['package.json', 'package-lock.json']) cpSync(join(src, f), join(dir, f));
    const want = sha256(join(dir, 'package.json'), join(dir, 'package-lock.json'));
    const stamp = join(dir, 'node_modules/.memcore-lock-hash');
    if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== want) {
      await run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir });
      writeFileSync(stamp, want);
    }
    // The package from the tarball, as a user installs it (no save: the pinned lockfile stays as is).
    await run('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', tarball()], { cwd: dir });
    const pinned = JSON.parse(readFileSync(join(src, 'package.json'), 'utf8')).devDependencies;
    for (const name of FRAMEWORKS) assert.equal(installed(dir, name), pinned[name], name);

    const suites = join(dir, 'suites');
    rmSync(suites, { recursive: true, force: true });
    mkdirSync(suites);
    for (const suite of SUITES) cpSync(join(ROOT, 'tests/js', suite), join(suites, suite));
    const output = await run(process.execPath, ['--test', ...SUITES.map((s) => join(suites, s))], { cwd: dir });
    const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(output)?.[1]);
    assert.equal(count('fail'), 0, tail(output));
    assert.ok(count('pass') >= 30, tail(output));
    console.log(`${group}: ${FRAMEWORKS.map((n) => `${n} ${installed(dir, n)}`).join(', ')} — ${count('pass')} tests passed`);
  });
}

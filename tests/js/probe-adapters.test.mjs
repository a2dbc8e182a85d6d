// The hostile probe of the packed package (issue 19, point 4), through the installed package:
// openSqlite on a fresh project (the storage guide's embedded-default snippet verbatim) and every other
// open failure with its reason, code and cause; the read-only open that creates nothing; the CLI's
// `show` over a database (read-only, a missing file refused, an unknown user exit 1) and its input
// limit (`/dev/zero`, an endless stdin pipe), with the exit-code contract on every error path.
// (The OpenAI adapter's part is in adapters-openai.test.mjs, PostgreSQL `show` in cli-db.test.mjs.)
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import * as m from 'memcore';
import { openSqlite } from 'memcore/adapters/sqlite';
import { typeErrors } from '../support/typecheck.mjs';

const require = createRequire(import.meta.url);
const manifestPath = require.resolve('memcore/package.json');
const bin = join(dirname(manifestPath), JSON.parse(readFileSync(manifestPath, 'utf8')).bin.memcore);
const pkgDir = dirname(manifestPath);
const repo = fileURLToPath(new URL('../../', import.meta.url));
// Scripts that import the package by name live under the repository (so `memcore` resolves) and
// run with a fresh temp directory as their working directory.
const scripts = join(repo, 'target', 'probe-adapters');
mkdirSync(scripts, { recursive: true });
const dir = mkdtempSync(join(tmpdir(), 'memcore-probe-'));
chmodSync(dir, 0o777); // the permission cases run as another user when we are root
after(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(scripts, { recursive: true, force: true });
});

const PATH = 'user-memory/u1/memory.md';
const PROFILE = '---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-06-17T12:00:00+00:00\nturn_count: 3\n---\n\n# User Memory\n\n## Identity\n- Name: Ada\n\n## Communication Preferences\n_(empty)_\n\n## Work Context\n_(empty)_\n\n## Skills & Expertise\n_(empty)_\n\n## Recent Topics\n_(empty)_\n\n## Follow-ups\n_(empty)_\n';

const fresh = (name) => {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  chmodSync(d, 0o777);
  return d;
};

/** `openSqlite(path, options)` rejects E_HOST with this reason, a code, and a message naming the cause and the path. */
async function refused(path, options, reason, code, cause) {
  await assert.rejects(openSqlite(path, options), (e) => {
    assert.ok(e instanceof m.MemcoreError, String(e));
    assert.equal(e.code, 'E_HOST');
    assert.equal(e.details.reason, reason, e.message);
    assert.equal(e.details.function, 'openSqlite');
    assert.equal(e.details.path, path);
    assert.match(e.details.code, code, e.message);
    assert.equal(e.details.transient, reason === 'busy');
    assert.ok(e.message.startsWith(`openSqlite: cannot open the SQLite database ${path}`), e.message);
    assert.match(e.message, cause);
    return true;
  });
}

// ── openSqlite ─────────────────────────────────────────────────────────────────────────────────

test("the storage guide's embedded-default snippet, verbatim, works on a fresh project: ./.memcore/memcore.db is created", () => {
  const readme = readFileSync(join(repo, 'docs/guide/storage.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Node + SQLite (embedded default)'));
  const snippet = /```js\n([\s\S]*?)```/.exec(section)[1].replace(/^const model = .*\n/m, ''); // the test's own model below
  assert.match(snippet, /openSqlite\('\.\/\.memcore\/memcore\.db'\)/);
  assert.ok(snippet.includes('// …\n'), 'the snippet has a place for the work');
  const work = [
    "console.log(await tools.call('rememberFact', { key: 'favorite_color', value: 'blue', category: 'preference' }));",
    "console.log(await tools.call('searchMemory', { query: 'color' }));",
    "await memory.updateMyContextMemory('u1', '# User Memory\\n\\n## Identity\\n- Name: Ada\\n');",
    "console.log((await memory.getMyContextMemory('u1')).body.includes('- Name: Ada'));",
  ].join('\n');
  // The snippet's `model` is the reader's own; the Settings functions never call it.
  const script = join(scripts, 'readme-sqlite.mjs');
  writeFileSync(script, `const model = { async complete() { throw new Error('not called'); } };\n${snippet.replace('// …\n', `${work}\n`)}`);
  const project = fresh('readme-project');
  assert.deepEqual(readdirSync(project), []);
  const r = spawnSync(process.execPath, [script], { cwd: project, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.match(lines[0], /^✅ Remembered: favorite_color = blue/);
  assert.match(lines[1], /favorite_color/);
  assert.equal(lines.at(-1), 'true');
  const file = join(project, '.memcore', 'memcore.db');
  assert.ok(existsSync(file), 'the database file is created');
  const db = new Database(file, { readonly: true });
  try {
    assert.deepEqual(db.prepare("SELECT key, value FROM memcore_entries WHERE user_id = 'u1'").all(), [{ key: 'favorite_color', value: '"blue"' }]);
    assert.match(db.prepare('SELECT text FROM memcore_profiles WHERE path = ?').get(PATH).text, /- Name: Ada/);
  } finally {
    db.close();
  }
});

test('openSqlite creates every missing folder of the path (mkdir -p), and reopens it', async () => {
  const path = join(fresh('deep'), 'a', 'b', 'c', 'memcore.db');
  const db = await openSqlite(path);
  await db.write(PATH, PROFILE);
  await db.close();
  const again = await openSqlite(path);
  assert.equal((await again.read(PATH)).text, PROFILE);
  await again.close();
});

test('a directory, a file in the way, a file that is not a database: each its own reason, code and cause', async () => {
  const d = fresh('failures');
  const folder = join(d, 'a-folder.db');
  mkdirSync(folder);
  await refused(folder, {}, 'is-a-directory', /^EISDIR$/, /it is a directory, not a database file/);
  await refused(folder, { readonly: true }, 'is-a-directory', /^EISDIR$/, /it is a directory/);
  const text = join(d, 'notes.db');
  writeFileSync(text, 'These are my notes, not a database. '.repeat(100));
  await refused(text, {}, 'not-a-database', /^SQLITE_NOTADB$/, /it is not a SQLite database \(the file holds something else\) \(SQLITE_NOTADB\)$/);
  await refused(text, { readonly: true }, 'not-a-database', /^SQLITE_NOTADB$/, /read-only: it is not a SQLite database/);
  assert.equal(readFileSync(text, 'utf8'), 'These are my notes, not a database. '.repeat(100), 'the file is left as it was');
  await refused(join(text, 'inner.db'), {}, 'not-a-directory', /^(ENOTDIR|EEXIST)$/, /a part of its path is a file, not a folder/);
  await refused(join(text, 'sub', 'inner.db'), {}, 'not-a-directory', /^(ENOTDIR|EEXIST)$/, /a part of its path is a file/);
});

test('a database locked past busyTimeoutMs is busy (transient), named as such', async () => {
  const path = join(fresh('busy'), 'memcore.db');
  (await openSqlite(path)).close();
  const holder = new Database(path);
  holder.exec('BEGIN EXCLUSIVE');
  holder.exec("INSERT INTO memcore_schema (version, applied_at) VALUES (999, 'held')");
  try {
    await refused(path, { busyTimeoutMs: 50 }, 'busy', /^SQLITE_BUSY/, /locked by another connection for longer than busyTimeoutMs \(50 ms\); retry, or raise busyTimeoutMs/);
  } finally {
    holder.exec('ROLLBACK');
    holder.close();
  }
  // Once the lock is gone the same open succeeds.
  const db = await openSqlite(path, { busyTimeoutMs: 50 });
  assert.ok(Number.isInteger(db.schemaVersion) && db.schemaVersion >= 4);
  await db.close();
});

test('operation errors carry a code too: a closed database is closed (SQLITE_MISUSE), not a null code', async () => {
  const db = await openSqlite(join(fresh('closed'), 'memcore.db'));
  await db.close();
  await assert.rejects(db.read(PATH), (e) => {
    assert.equal(e.code, 'E_HOST');
    assert.equal(e.message, 'read: SQLite database is closed');
    assert.deepEqual(e.details, { function: 'read', code: 'SQLITE_MISUSE', reason: 'closed', transient: false });
    return true;
  });
});

test('readonly: a missing file is not-found and nothing is created, no folder either', async () => {
  const d = fresh('readonly-missing');
  await refused(join(d, 'nope.db'), { readonly: true }, 'not-found', /^ENOENT$/, /read-only: it does not exist \(a read-only open creates nothing\)/);
  await refused(join(d, 'sub', 'nope.db'), { readonly: true }, 'not-found', /^ENOENT$/, /it does not exist/);
  assert.deepEqual(readdirSync(d), []);
  await assert.rejects(openSqlite(':memory:', { readonly: true }), (e) => e.code === 'E_CONFIG' && e.details.path === 'readonly');
  await assert.rejects(openSqlite(join(d, 'x.db'), { readonly: 'yes' }), (e) => e.code === 'E_CONFIG' && e.details.path === 'readonly');
});

test('readonly: a database without memcore tables is refused untouched; one at an older schema is read as it is', async () => {
  const d = fresh('readonly-schemas');
  const other = join(d, 'other.db');
  const raw = new Database(other);
  raw.exec('CREATE TABLE notes (body TEXT)');
  raw.close();
  await assert.rejects(openSqlite(other, { readonly: true }), (e) => {
    assert.equal(e.code, 'E_HOST');
    assert.deepEqual(e.details, { function: 'openSqlite', reason: 'not-memcore', path: other, transient: false });
    assert.match(e.message, /holds no memcore tables/);
    return true;
  });
  const tables = new Database(other, { readonly: true });
  assert.deepEqual(tables.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all(), [{ name: 'notes' }]);
  tables.close();

  // A database at schema 1, as memcore 0.1's first migration left it.
  const { SQLITE_MIGRATIONS } = await import(join(pkgDir, 'adapters/sql/migrations.js'));
  const old = join(d, 'old.db');
  const v1 = new Database(old);
  for (const statement of SQLITE_MIGRATIONS[0].statements) v1.exec(statement);
  v1.exec('CREATE TABLE memcore_schema (version INTEGER PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL)');
  v1.exec("INSERT INTO memcore_schema VALUES (1, 'then')");
  v1.prepare("INSERT INTO memcore_profiles (path, text, version, updated_at) VALUES (?, ?, 1, 'then')").run(PATH, PROFILE);
  v1.close();
  const before = readFileSync(old);
  const reader = await openSqlite(old, { readonly: true });
  assert.equal(reader.schemaVersion, 1);
  assert.equal((await reader.read(PATH)).text, PROFILE);
  await assert.rejects(reader.write(PATH, 'x'), (e) => e.code === 'E_HOST' && e.details.reason === 'read-only' && /^SQLITE_READONLY/.test(e.details.code));
  await reader.close();
  assert.ok(readFileSync(old).equals(before), 'a read-only open changes nothing');
});

test('permission denied and read-only, named as such (run without the capabilities that bypass permissions)', { skip: process.getuid?.() === 0 && !hasSetpriv() ? 'root without setpriv (util-linux) cannot drop its permission override' : false }, async () => {
  const d = fresh('permissions');
  const build = (name) => {
    const path = join(d, name);
    const db = new Database(path);
    db.exec('CREATE TABLE t (x)');
    db.close();
    return path;
  };
  const unreadable = build('unreadable.db');
  chmodSync(unreadable, 0o000);
  const readOnly = join(d, 'read-only.db');
  const made = await openSqlite(readOnly);
  await made.write(PATH, PROFILE);
  await made.close();
  for (const extra of ['-wal', '-shm']) rmSync(readOnly + extra, { force: true });
  chmodSync(readOnly, 0o444);
  const lockedFolder = join(d, 'locked');
  mkdirSync(lockedFolder);
  chmodSync(lockedFolder, 0o555);
  const cases = [
    [unreadable, {}, 'permission-denied', 'permission denied: this process may not read it'],
    [unreadable, { readonly: true }, 'permission-denied', 'permission denied: this process may not read it'],
    [readOnly, {}, 'read-only', 'it is read-only for this process (open it with { readonly: true } to read it)'],
    [join(lockedFolder, 'new.db'), {}, 'permission-denied', `permission denied: cannot create it in ${lockedFolder}`],
    [join(lockedFolder, 'sub', 'new.db'), {}, 'permission-denied', `permission denied: cannot create its folder ${join(lockedFolder, 'sub')}`],
  ];
  const script = join(scripts, 'permissions.mjs');
  writeFileSync(
    script,
    `import { openSqlite } from 'memcore/adapters/sqlite';
const out = [];
for (const [path, options] of ${JSON.stringify(cases.map(([p, o]) => [p, o]))}) {
  try {
    const db = await openSqlite(path, options);
    out.push({ opened: true, canRead: (await db.list('u1')).length === 0 });
    await db.close();
  } catch (e) {
    out.push({ code: e.code, message: e.message, details: e.details });
  }
}
console.log(JSON.stringify(out));`,
  );
  chmodSync(scripts, 0o755);
  chmodSync(script, 0o644);
  // As root, the child runs without the capabilities that bypass file permissions (so they apply
  // to it), not as another user: that user could not read a checkout in a private folder.
  const asRoot = process.getuid?.() === 0;
  const drop = ['--bounding-set=-dac_override,-dac_read_search,-fowner', '--inh-caps=-dac_override,-dac_read_search,-fowner'];
  const r = asRoot
    ? spawnSync('setpriv', [...drop, process.execPath, script], { cwd: d, encoding: 'utf8' })
    : spawnSync(process.execPath, [script], { cwd: d, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const results = JSON.parse(r.stdout);
  cases.forEach(([path, options, reason, cause], i) => {
    const got = results[i];
    assert.equal(got.code, 'E_HOST', JSON.stringify(got));
    assert.equal(got.details.reason, reason, got.message);
    assert.equal(got.details.path, path);
    assert.match(got.details.code, /^(EACCES|EPERM)$/);
    assert.equal(got.message, `openSqlite: cannot open the SQLite database ${path}${options.readonly ? ' read-only' : ''}: ${cause} (${got.details.code})`);
  });
  assert.deepEqual(readdirSync(lockedFolder), [], 'nothing was created in the read-only folder');
  // What the read-only refusal advises works: the file opens with { readonly: true } and reads.
  const reader = join(scripts, 'read-only.mjs');
  writeFileSync(reader, `import { openSqlite } from 'memcore/adapters/sqlite';\nconst db = await openSqlite(${JSON.stringify(readOnly)}, { readonly: true });\nconsole.log((await db.read(${JSON.stringify(PATH)})).text.includes('- Name: Ada'));\nawait db.close();\n`);
  chmodSync(reader, 0o644);
  const read = asRoot
    ? spawnSync('setpriv', [...drop, process.execPath, reader], { cwd: d, encoding: 'utf8' })
    : spawnSync(process.execPath, [reader], { cwd: d, encoding: 'utf8' });
  assert.equal(read.status, 0, read.stderr);
  assert.equal(read.stdout.trim(), 'true');
});

function hasSetpriv() {
  return spawnSync('setpriv', ['--version'], { encoding: 'utf8' }).status === 0;
}

// ── the CLI ────────────────────────────────────────────────────────────────────────────────────

function run(args, { input, cwd = dir, env } = {}) {
  const clean = { ...process.env };
  delete clean.VISUAL;
  delete clean.EDITOR;
  delete clean.MEMCORE_DATABASE_URL;
  const r = spawnSync(process.execPath, [bin, ...args], { cwd, input, encoding: 'utf8', env: { ...clean, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('show --db on a missing SQLite file: exit 1, memcore: E_HOST naming the cause, no file created', () => {
  const d = fresh('cli-missing');
  for (const db of ['nope.db', 'sqlite:nope.db', join('sub', 'nope.db')]) {
    const r = run(['show', '--user', 'u1', '--db', db], { cwd: d });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^memcore: E_HOST: cannot open the SQLite database (sub\/)?nope\.db read-only: it does not exist \(a read-only open creates nothing\) \(ENOENT\)\n$/);
  }
  assert.equal(existsSync(join(d, 'nope.db')), false);
  assert.deepEqual(readdirSync(d), []);
  // The environment variable names the database the same way.
  const env = run(['show', '--user', 'u1'], { cwd: d, env: { MEMCORE_DATABASE_URL: 'nope.db' } });
  assert.equal(env.code, 1);
  assert.deepEqual(readdirSync(d), []);
});

test('show --db opens read-only: the file is not changed, not migrated; an unknown user exits 1 (E_NO_PROFILE)', async () => {
  const d = fresh('cli-readonly');
  const path = join(d, 'memcore.db');
  const db = await openSqlite(path);
  await db.write(PATH, PROFILE);
  await db.close();
  const before = readFileSync(path);
  const shown = run(['show', '--user', 'u1', '--db', path]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /^# User Memory\n\n## Identity\n- Name: Ada\n/);
  const unknown = run(['show', '--user', 'nobody', '--db', path]);
  assert.equal(unknown.code, 1);
  assert.equal(unknown.stdout, '');
  assert.equal(unknown.stderr, `memcore: E_NO_PROFILE: no profile for user nobody (${path}#user-memory/nobody/memory.md does not exist)\n`);
  assert.ok(readFileSync(path).equals(before), 'show changed nothing');
  // Not a database, no memcore tables: refused, left as they were.
  const notes = join(d, 'notes.db');
  writeFileSync(notes, 'plain text, not SQLite\n'.repeat(50));
  const notDb = run(['show', '--user', 'u1', '--db', notes]);
  assert.equal(notDb.code, 1);
  assert.match(notDb.stderr, /^memcore: E_HOST: cannot open the SQLite database .*notes\.db read-only: it is not a SQLite database/);
  const other = join(d, 'other.db');
  const raw = new Database(other);
  raw.exec('CREATE TABLE notes (body TEXT)');
  raw.close();
  const foreign = run(['show', '--user', 'u1', '--db', other]);
  assert.equal(foreign.code, 1);
  assert.match(foreign.stderr, /^memcore: E_HOST: .*other\.db holds no memcore tables/);
  const check = new Database(other, { readonly: true });
  assert.deepEqual(check.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((t) => t.name), ['notes']);
  check.close();
});

test('show over files: an unknown user exits 1 too, and nothing is created', () => {
  const base = fresh('cli-files');
  const r = run(['show', '--user', 'nobody', '--base', base]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^memcore: E_NO_PROFILE: no profile for user nobody \(.*user-memory\/nobody\/memory\.md does not exist\)\n$/);
  assert.deepEqual(readdirSync(base), []);
});

const TOO_LARGE = /^memcore: E_TOO_LARGE: (\/dev\/zero|<stdin>|[^ ]+) is larger than 1048576 bytes \(1 MiB\), the most memcore reads/;

test('check, fit, tokens, prompt and edit --from stop reading /dev/zero at the 1 MiB limit: E_TOO_LARGE, exit 1', { timeout: 120000 }, () => {
  const base = fresh('cli-zero');
  for (const args of [['check', '/dev/zero'], ['fit', '/dev/zero'], ['tokens', '/dev/zero'], ['prompt', '/dev/zero'], ['edit', '--user', 'u1', '--base', base, '--from', '/dev/zero']]) {
    const r = run(args);
    assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, TOO_LARGE, args.join(' '));
    assert.equal(r.stdout, '');
  }
  assert.deepEqual(readdirSync(base), [], 'edit saved nothing');
});

test('exactly 1 MiB is read; one byte more is refused (files and stdin)', () => {
  const limit = m.MAX_EDIT_BODY_BYTES;
  assert.equal(limit, 1048576);
  const atLimit = join(dir, 'at-limit.md');
  writeFileSync(atLimit, 'a'.repeat(limit));
  const over = join(dir, 'over-limit.md');
  writeFileSync(over, 'a'.repeat(limit + 1));
  assert.equal(run(['tokens', atLimit]).code, 0);
  const refusedFile = run(['tokens', over]);
  assert.equal(refusedFile.code, 1);
  assert.match(refusedFile.stderr, TOO_LARGE);
  assert.equal(run(['tokens', '-'], { input: 'a'.repeat(limit) }).code, 0);
  const refusedStdin = run(['tokens', '-'], { input: 'a'.repeat(limit + 1) });
  assert.equal(refusedStdin.code, 1);
  assert.match(refusedStdin.stderr, TOO_LARGE);
});

/** Run the bin with its stdin fed by a child that writes forever; resolves when the bin exits. */
function withEndlessStdin(args) {
  return new Promise((resolve, reject) => {
    const writer = spawn(process.execPath, ['-e', "const b = Buffer.alloc(65536, 'a'); (function w() { process.stdout.write(b, w); })(); process.stdout.on('error', () => process.exit(0));"], { stdio: ['ignore', 'pipe', 'ignore'] });
    const cli = spawn(process.execPath, [bin, ...args], { cwd: dir, stdio: [writer.stdout, 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    cli.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
    cli.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
    cli.on('error', reject);
    cli.on('close', (code) => {
      writer.kill();
      resolve({ code, stdout, stderr });
    });
  });
}

test('an endless stdin pipe: the CLI stops at the limit and exits 1 with E_TOO_LARGE', { timeout: 120000 }, async () => {
  const base = fresh('cli-endless');
  for (const args of [['check', '-'], ['tokens', '-'], ['edit', '--user', 'u1', '--base', base, '--from', '-']]) {
    const r = await withEndlessStdin(args);
    assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, TOO_LARGE, args.join(' '));
  }
  assert.deepEqual(readdirSync(base), []);
});

test('the exit-code contract on every path: 0 success, 1 findings and errors, 2 usage', async () => {
  const d = fresh('cli-contract');
  const db = join(d, 'memcore.db');
  const store = await openSqlite(db);
  await store.write(PATH, PROFILE);
  await store.close();
  const clean = join(d, 'clean.md');
  writeFileSync(clean, PROFILE);
  const folder = join(d, 'a-folder');
  mkdirSync(folder);
  const folderDb = join(d, 'dir.db');
  mkdirSync(folderDb);
  const cases = [
    [0, ['tokens', clean]],
    [0, ['show', '--user', 'u1', '--db', db]],
    [0, ['--version']],
    [0, ['help', 'show']],
    [1, ['check', join(d, 'missing.md')], /^memcore: ENOENT: cannot read /],
    [1, ['check', folder], /^memcore: EISDIR: cannot read /],
    [1, ['tokens', '/dev/zero'], TOO_LARGE],
    [1, ['show', '--user', 'nobody', '--db', db], /^memcore: E_NO_PROFILE: /],
    [1, ['show', '--user', 'u1', '--db', join(d, 'missing.db')], /^memcore: E_HOST: cannot open the SQLite database .* it does not exist/],
    [1, ['show', '--user', 'u1', '--db', folderDb], /^memcore: E_HOST: cannot open the SQLite database .* it is a directory, not a database file \(EISDIR\)/],
    [1, ['show', '--user', '../x', '--db', db], /^memcore: E_INVALID_USER_ID: /],
    [1, ['edit', '--user', 'u1', '--db', join(clean, 'x.db'), '--from', clean], /^memcore: E_HOST: cannot open the SQLite database .*: a part of its path is a file, not a folder/],
    [2, []],
    [2, ['frobnicate']],
    [2, ['show']],
    [2, ['show', '--user', 'u1', '--db', 'mysql://h/db']],
    [2, ['show', '--user', 'u1', '--db', db, '--base', d]],
    [2, ['tokens']],
    [2, ['tokens', clean, '--bogus']],
  ];
  for (const [code, args, stderr] of cases) {
    const r = run(args, { cwd: d });
    assert.equal(r.code, code, `memcore ${args.join(' ')}: ${r.stderr}`);
    if (stderr) assert.match(r.stderr, stderr, args.join(' '));
    if (code === 2) assert.match(r.stderr, /Usage: memcore/, args.join(' '));
    if (code !== 0) assert.doesNotMatch(r.stderr, /unexpected error/, args.join(' '));
  }
  assert.equal(existsSync(join(d, 'missing.db')), false);
});

test('typings: readonly for openSqlite/openPostgres, the open-failure and not-memcore details (tsc --strict)', (t) => {
  const types = join(repo, 'target', 'probe-adapters-types');
  rmSync(types, { recursive: true, force: true });
  mkdirSync(types, { recursive: true });
  t.after(() => rmSync(types, { recursive: true, force: true }));
  const file = join(types, 'usage.ts');
  writeFileSync(
    file,
    `import { MemcoreError } from 'memcore';
import { openSqlite, type NotMemcoreDetails, type SqliteErrorDetails, type SqliteOpenErrorDetails, type SqliteOpenFailure } from 'memcore/adapters/sqlite';
import { openPostgres } from 'memcore/adapters/postgres';

export async function use(path: string): Promise<string> {
  try {
    const db = await openSqlite(path, { readonly: true, busyTimeoutMs: 100 });
    const pg = await openPostgres('postgres://h/db', { readonly: true, max: 2 });
    const versions: number[] = [db.schemaVersion, pg.schemaVersion];
    return String(versions);
  } catch (e) {
    if (e instanceof MemcoreError && e.code === 'E_HOST' && e.details?.function === 'openSqlite') {
      const d = e.details as unknown as SqliteOpenErrorDetails | NotMemcoreDetails;
      if (d.reason === 'not-memcore') return 'not memcore';
      const reason: SqliteOpenFailure = d.reason;
      const code: string = d.code;
      return reason + code + d.path + String(d.transient);
    }
    const other = (e as MemcoreError).details as unknown as SqliteErrorDetails;
    return other.code + (other.reason ?? '');
  }
}
// @ts-expect-error readonly is a boolean
openSqlite('x.db', { readonly: 'yes' });
`,
  );
  assert.deepEqual(typeErrors(file), []);
});

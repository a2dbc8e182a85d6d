// The hostile probe of the packed package (issue 19, point 4), through the installed package:
// openSqlite on a fresh project (the README's embedded-default snippet verbatim) and every other
// open failure with its reason, code and cause; the read-only open that creates nothing; the CLI's
// `show` over a database (read-only, a missing file refused, an unknown user exit 1) and its input
// limit (`/dev/zero`, an endless stdin pipe), with the exit-code contract on every error path.
// (The OpenAI adapter's part is in adapters-openai.test.mjs, PostgreSQL `show` in cli-db.test.mjs.)
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import * as m from 'memcore';
import { openSqlite } from 'memcore/adapters/sqlite';

const require = createRequire(import.meta.url);
const manifestPath = require.resolve('memcore/package.json');
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

test("the README's embedded-default snippet, verbatim, works on a fresh project: ./.memcore/memcore.db is created", () => {
  const readme = readFileSync(join(repo, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Node + SQLite (embedded default)'));
  const snippet = /```js\n([\s\S]*?)```/.exec(section)[1];
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

test('permission denied and read-only, named as such (run as an unprivileged user)', { skip: process.getuid?.() === 0 && !hasNobody() ? 'no unprivileged user' : false }, async () => {
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
  const asRoot = process.getuid?.() === 0;
  const r = spawnSync(process.execPath, [script], { cwd: d, encoding: 'utf8', ...(asRoot ? { uid: 65534, gid: 65534 } : {}) });
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
  const read = spawnSync(process.execPath, [reader], { cwd: d, encoding: 'utf8', ...(asRoot ? { uid: 65534, gid: 65534 } : {}) });
  assert.equal(read.status, 0, read.stderr);
  assert.equal(read.stdout.trim(), 'true');
});

function hasNobody() {
  return spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).stdout.trim() === '65534';
}

test('typings: readonly for openSqlite/openPostgres, the open-failure and not-memcore details (tsc --strict)', (t) => {
  const ts = require('typescript');
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
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    skipLibCheck: false,
  });
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  assert.deepEqual(diagnostics, []);
});

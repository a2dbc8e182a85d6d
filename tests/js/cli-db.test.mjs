// The `memcore` bin on profiles stored in a database (issue 12 item 4): `show` and `edit` with
// `--db` (a SQLite file, a PostgreSQL URL on the test's own server) and MEMCORE_DATABASE_URL.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { openSqlite } from 'memcore/adapters/sqlite';
import { openPostgres } from 'memcore/adapters/postgres';
import pgModule from 'pg';
import { startPostgres } from '../support/postgres.mjs';

const require = createRequire(import.meta.url);
const manifestPath = require.resolve('memcore/package.json');
const bin = join(dirname(manifestPath), JSON.parse(readFileSync(manifestPath, 'utf8')).bin.memcore);
const dir = mkdtempSync(join(tmpdir(), 'memcore-cli-db-'));
const pg = await startPostgres({ database: 'memcore_cli' });
after(() => {
  pg.stop();
  rmSync(dir, { recursive: true, force: true });
});

function run(args, { input, env } = {}) {
  const clean = { ...process.env };
  delete clean.VISUAL;
  delete clean.EDITOR;
  delete clean.MEMCORE_DATABASE_URL;
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: dir, input, encoding: 'utf8', env: { ...clean, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const FRONTMATTER = '---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-06-17T12:00:00+00:00\nturn_count: 7\ncustom: kept\n---\n';
const BODY = '\n# User Memory\n\n## Identity\n- Name: Ada\n\n## Communication Preferences\n_(empty)_\n\n## Work Context\n_(empty)_\n\n## Skills & Expertise\n_(empty)_\n\n## Recent Topics\n_(empty)_\n\n## Follow-ups\n_(empty)_\n';
const PATH = 'user-memory/u1/memory.md';

for (const kind of ['sqlite', 'postgres']) {
  test(`${kind}: show and edit --db work on the stored profile; the frontmatter stays byte for byte`, async () => {
    const url = kind === 'sqlite' ? join(dir, 'cli.db') : pg.url;
    const store = kind === 'sqlite' ? await openSqlite(url) : await openPostgres(url);
    try {
      await store.write(PATH, FRONTMATTER + BODY, { ifAbsent: true });
      const show = run(['show', '--user', 'u1', '--db', url]);
      assert.equal(show.code, 0, show.stderr);
      assert.match(show.stdout, /^# User Memory\n\n## Identity\n- Name: Ada\n/);
      assert.ok(!show.stdout.includes('custom: kept'));
      assert.match(show.stderr, /turn_count 7/);

      const edited = BODY.replace('- Name: Ada', '- Name: Ada\n- Likes chess');
      const edit = run(['edit', '--user', 'u1', '--db', url, '--from', '-'], { input: edited });
      assert.equal(edit.code, 0, edit.stderr);
      assert.match(edit.stderr, /^saved /m);
      const stored = (await store.read(PATH)).text;
      assert.ok(stored.startsWith(FRONTMATTER), stored);
      assert.match(stored, /- Likes chess/);
      // The environment variable is the default store; an unchanged body writes nothing.
      const again = run(['edit', '--user', 'u1', '--from', '-'], { input: edited, env: { MEMCORE_DATABASE_URL: url } });
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stderr, /no changes/);
      const missing = run(['show', '--user', 'nobody', '--db', url]);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /^memcore: E_NO_PROFILE: no profile for user nobody/);
    } finally {
      await store.close();
    }
  });
}

test('postgres: show creates nothing — a database without memcore tables is refused and stays empty; a read-only open never migrates', async () => {
  const admin = new pgModule.Client({ connectionString: pg.url });
  await admin.connect();
  try {
    await admin.query('CREATE DATABASE memcore_show_empty');
  } finally {
    await admin.end();
  }
  const url = pg.url.replace(/\/memcore_cli$/, '/memcore_show_empty');
  assert.notEqual(url, pg.url);
  const tables = async () => {
    const client = new pgModule.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows.map((r) => r.tablename);
    } finally {
      await client.end();
    }
  };
  const show = run(['show', '--user', 'u1', '--db', url]);
  assert.equal(show.code, 1, show.stderr);
  assert.equal(show.stdout, '');
  assert.match(show.stderr, /^memcore: E_HOST: cannot open the database postgres:\/\/.*memcore_show_empty: the database holds no memcore tables/);
  assert.deepEqual(await tables(), [], 'show created no table');
  // The adapter's read-only open: refused the same way, untouched.
  await assert.rejects(openPostgres(url, { readonly: true }), (e) => e.code === 'E_HOST' && e.details.reason === 'not-memcore');
  assert.deepEqual(await tables(), []);
  // Once migrated (a read-write open), a read-only one reads, and a write is refused by the server.
  await (await openPostgres(url)).close();
  const reader = await openPostgres(url, { readonly: true });
  try {
    assert.equal(await reader.read(PATH), null);
    await assert.rejects(reader.write(PATH, FRONTMATTER + BODY), (e) => e.code === 'E_HOST' && e.details.code === '25006');
  } finally {
    await reader.close();
  }
  const unknown = run(['show', '--user', 'u1', '--db', url]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /^memcore: E_NO_PROFILE: no profile for user u1/);
});

test('--db misuse: with --base, an unknown scheme, an unreachable server (the password is never printed)', () => {
  const both = run(['show', '--user', 'u1', '--db', join(dir, 'x.db'), '--base', dir]);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /--db and --base/);
  const unknown = run(['show', '--user', 'u1', '--db', 'mysql://h/db']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /not a SQLite file .* or a postgres:\/\/ URL/);
  const down = run(['show', '--user', 'u1', '--db', 'postgres://memcore:s3cret-pw@127.0.0.1:1/nothing']);
  assert.equal(down.code, 1, down.stderr);
  assert.match(down.stderr, /cannot open the database postgres:\/\/\*\*\*@127\.0\.0\.1:1\/nothing/);
  assert.ok(!down.stderr.includes('s3cret-pw'), down.stderr);
});

test('the demo on PostgreSQL (MEMCORE_DATABASE_URL): the same lifecycle, and the CLI shows the profile from there', () => {
  const root = join(dirname(new URL(import.meta.url).pathname), '..', '..');
  const env = { ...process.env, MEMCORE_DATABASE_URL: pg.url, MEMCORE_DEMO_DIR: join(dir, 'demo') };
  delete env.MEMCORE_MODEL_BASE_URL;
  for (let round = 1; round <= 2; round++) {
    // Twice: the demo starts its user afresh without touching anyone else's rows.
    const demo = spawnSync(process.execPath, [join(root, 'scripts', 'demo.mjs')], { env, encoding: 'utf8' });
    assert.equal(demo.status, 0, demo.stderr);
    assert.match(demo.stdout, /^storage: +PostgreSQL postgres:\/\/\*\*\*@127\.0\.0\.1:\d+\/memcore_cli \(profiles and entries, schema v\d+\)$/m);
    const outcomes = [...demo.stdout.matchAll(/^outcome: ([a-z-]+)/gm)].map((m) => m[1]);
    assert.deepEqual(outcomes, ['updated', 'gate-noop', 'updated', 'updated', 'gate-noop', 'updated', 'updated', 'model-noop'], `round ${round}`);
    assert.match(demo.stdout, /^dream: pruned 1, contradictions language \(agent-456 vs agent-789\), summarized 3, calls 1/m);
  }
  const show = run(['show', '--user', 'user_123'], { env: { MEMCORE_DATABASE_URL: pg.url } });
  assert.equal(show.code, 0, show.stderr);
  assert.match(show.stdout, /- Prefers British spelling\./);
});

for (const kind of ['sqlite', 'postgres']) {
  test(`${kind}: memcore doctor lists data stored under user ids memcore refuses (every tenant); --fix erases it`, async () => {
    const url = kind === 'sqlite' ? join(dir, 'doctor.db') : pg.url;
    const store = kind === 'sqlite' ? await openSqlite(url) : await openPostgres(url);
    const row = (id, userId) => ({ id, userId, key: 'k', value: 'v', category: 'fact', visibility: 'global', sourceAgentId: null, groupIds: [], sourceConversationId: null, conflicted: false, accessCount: 0, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' });
    try {
      // Written before every write checked the id (raw store writes, as an older memcore did).
      await store.upsert(row('bad-1', 'a/b'));
      await store.forTenant('acme').upsert(row('bad-2', '../x'));
      await store.upsert(row('good-1', 'keeper'));
    } finally {
      await store.close();
    }
    const found = run(['doctor', '--db', url]);
    assert.equal(found.code, 1, found.stderr);
    assert.equal(found.stdout, 'user "a/b": the user id contains `/` or `\\`\ntenant "acme": user "../x": the user id contains `/` or `\\`\n');
    assert.match(found.stderr, /2 stored user ids memcore refuses; run with --fix/);
    const fixed = run(['doctor', '--db', url, '--fix']);
    assert.equal(fixed.code, 0, fixed.stderr);
    assert.match(fixed.stdout, /^erased user "a\/b": 1 entries, 0 versions, 0 audit records, 0 API keys$/m);
    const clean = run(['doctor', '--db', url]);
    assert.equal(clean.code, 0, clean.stderr);
    assert.match(clean.stderr, /every stored user id is one memcore accepts/);
    const after = kind === 'sqlite' ? await openSqlite(url) : await openPostgres(url);
    try {
      assert.equal((await after.list('keeper')).length, 1, 'the rest untouched');
      assert.deepEqual(await after.list('a/b'), []);
    } finally {
      await after.close();
    }
  });
}

// The `memcore` bin as a user installs it: every command run through the package's bin in a temp
// directory, exit codes, stdin, atomic writes, the editor, and refused user ids.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, readFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import * as m from 'memcore';

const require = createRequire(import.meta.url);
const manifestPath = require.resolve('memcore/package.json');
const bin = join(dirname(manifestPath), JSON.parse(readFileSync(manifestPath, 'utf8')).bin.memcore);
const linkedBin = fileURLToPath(new URL('../../node_modules/.bin/memcore', import.meta.url));

let dir;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'memcore-cli-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Run the bin in the temp dir; `env` is merged over a copy without any editor variables. */
function run(args, { input, env } = {}) {
  const clean = { ...process.env };
  delete clean.VISUAL;
  delete clean.EDITOR;
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: dir, input, encoding: 'utf8', env: { ...clean, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const FRONTMATTER = '---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-06-17T12:00:00+00:00\nturn_count: 7\ncustom: kept\n---\n';
const body = (identity) =>
  `\n# User Memory\n\n## Identity\n${identity}\n\n## Communication Preferences\n- Short answers\n\n## Work Context\n_(empty)_\n\n` +
  '## Skills & Expertise\n_(empty)_\n\n## Recent Topics\n_(empty)_\n\n## Follow-ups\n_(empty)_\n';
const CLEAN = FRONTMATTER + body('- Name: Ada');
const BROKEN = '# Notes\n## Identity\n- Name: Ada\n## Hobbies\n- chess\n';
const topics = Array.from({ length: 120 }, (_, i) => `- 2026-01-${String((i % 28) + 1).padStart(2, '0')} 10:00 UTC: topic number ${i} about compilers and gardens`);
const OVER = (FRONTMATTER + body('- Name: Ada')).replace('## Recent Topics\n_(empty)_', `## Recent Topics\n${topics.join('\n')}`);

/** Store a profile for `user` under `base` the way the fs layout does. */
function store(base, user, text, root = 'user-memory') {
  const path = join(base, root, user, 'memory.md');
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

function file(name, text) {
  writeFileSync(join(dir, name), text);
  return name;
}

test('the installed package names the bin, and the linked .bin/memcore runs with its shebang', () => {
  assert.ok(existsSync(bin));
  const r = spawnSync(linkedBin, ['--version'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), m.version());
});

test('check: a clean file exits 0 with tokens vs budget', () => {
  const r = run(['check', file('clean.md', CLEAN)]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, new RegExp(`^clean\\.md: ${m.countTokens(CLEAN)} / 2000 tokens \\(o200k_base\\)$`, 'm'));
  assert.match(r.stdout, /^clean\.md: ok$/m);
});

test('check: warnings exit 1 and print FILE:LINE: severity code: message', () => {
  const r = run(['check', file('broken.md', BROKEN)]);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^broken\.md:1: warning unexpected-title: /m);
  assert.match(r.stdout, /^broken\.md:\d+: warning unknown-section: /m);
  assert.match(r.stdout, /^broken\.md: \d+ warnings$/m);
});

test('check: over budget exits 1; --max-tokens and --encoding are honoured', () => {
  const tokens = m.countTokens(OVER);
  assert.ok(tokens > 1000);
  const r = run(['check', file('over.md', OVER), '--max-tokens', '1000']);
  assert.equal(r.code, 1);
  assert.match(r.stdout, new RegExp(`over\\.md: ${tokens} / 1000 tokens`));
  assert.match(r.stdout, new RegExp(`over budget by ${tokens - 1000} tokens`));
  const cl = run(['check', 'over.md', '--max-tokens', '8000', '--encoding', 'cl100k_base']);
  assert.equal(cl.code, 0, cl.stdout);
  assert.match(cl.stdout, new RegExp(`${m.countTokens(OVER, { encoding: 'cl100k_base' })} / 8000 tokens \\(cl100k_base\\)`));
});

test('check reads stdin for -', () => {
  const r = run(['check', '-'], { input: CLEAN });
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^<stdin>: ok$/m);
});

test('tokens prints the exact count, from a file or stdin, per encoding', () => {
  file('clean.md', CLEAN);
  assert.deepEqual(run(['tokens', 'clean.md']), { code: 0, stdout: `${m.countTokens(CLEAN)}\n`, stderr: '' });
  assert.equal(run(['tokens', '-'], { input: OVER }).stdout, `${m.countTokens(OVER)}\n`);
  assert.equal(run(['tokens', 'clean.md', '--encoding', 'cl100k_base']).stdout, `${m.countTokens(CLEAN, { encoding: 'cl100k_base' })}\n`);
});

test('fit prints the fitted text on stdout and the report on stderr', async () => {
  const r = run(['fit', file('over.md', OVER), '--max-tokens', '600']);
  assert.equal(r.code, 0, r.stderr);
  const expected = await m.fitProfile(OVER, { maxTokens: 600 });
  assert.equal(r.stdout, expected.text);
  assert.ok(m.countTokens(r.stdout) <= 600);
  assert.match(r.stderr, new RegExp(`^over\\.md: ${expected.tokensBefore} → ${expected.tokensAfter} tokens \\(max 600\\); condensed: yes .*; truncated: no; fitted$`, 'm'));
  assert.equal(readFileSync(join(dir, 'over.md'), 'utf8'), OVER, 'the file is untouched without --write');
});

test('fit --write replaces the file with a result within budget and leaves no temp file', () => {
  file('w.md', OVER);
  const r = run(['fit', 'w.md', '--max-tokens', '500', '--write']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /; truncated: no; written$/m);
  const written = readFileSync(join(dir, 'w.md'), 'utf8');
  assert.ok(m.countTokens(written) <= 500);
  assert.ok(written.startsWith(FRONTMATTER), 'frontmatter kept byte for byte');
  assert.deepEqual(readdirSync(dir).filter((n) => n.endsWith('.tmp')), []);
  const again = run(['fit', 'w.md', '--max-tokens', '500', '--write']);
  assert.match(again.stderr, /unchanged, not written$/m);
});

test('fit --write hard-truncates what condensing cannot shrink, keeping the frontmatter', () => {
  const facts = Array.from({ length: 400 }, (_, i) => `- Distinct fact ${i}: likes item ${i * 7}`).join('\n');
  file('t.md', FRONTMATTER + body(facts));
  const r = run(['fit', 't.md', '--max-tokens', '700', '--write']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /; truncated: yes; written$/m);
  const written = readFileSync(join(dir, 't.md'), 'utf8');
  assert.ok(m.countTokens(written) <= 700);
  assert.ok(written.startsWith(FRONTMATTER));
  assert.ok(written.endsWith(m.TRUNCATION_MARKER));
});

test('fit reads stdin for -, and refuses --write with stdin as a usage error', () => {
  const r = run(['fit', '-'], { input: CLEAN });
  assert.equal(r.code, 0);
  assert.equal(r.stdout, CLEAN);
  assert.match(r.stderr, /already within budget/);
  const w = run(['fit', '-', '--write'], { input: CLEAN });
  assert.equal(w.code, 2);
  assert.match(w.stderr, /--write needs a FILE/);
});

test('prompt prints the injected section, from a file or stdin', () => {
  const expected = m.memorySystemPromptSection(CLEAN);
  const r = run(['prompt', file('clean.md', CLEAN)]);
  assert.equal(r.code, 0);
  assert.equal(r.stdout.trimEnd(), expected.trimEnd());
  assert.ok(r.stdout.includes('- Name: Ada'));
  assert.equal(run(['prompt', '-'], { input: CLEAN }).stdout, r.stdout);
});

test('show on a missing profile says so, exits 1 (E_NO_PROFILE) and creates nothing', () => {
  const base = mkdtempSync(join(dir, 'show-'));
  const r = run(['show', '--user', 'nobody', '--base', base]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^memcore: E_NO_PROFILE: no profile for user nobody/);
  assert.deepEqual(readdirSync(base), []);
});

test('show prints the body only, with last_updated and turn_count on stderr', () => {
  const base = mkdtempSync(join(dir, 'show-'));
  store(base, 'u1', CLEAN, 'mem');
  const r = run(['show', '--user', 'u1', '--base', base, '--root', 'mem']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, m.memoryView(CLEAN).body.replace(/\n?$/, '\n'));
  assert.ok(!r.stdout.includes('turn_count'), 'frontmatter hidden');
  assert.match(r.stderr, /last_updated 2026-06-17T12:00:00\+00:00, turn_count 7/);
});

test('edit --from keeps the frontmatter byte for byte; an unchanged body writes nothing', () => {
  const base = mkdtempSync(join(dir, 'edit-'));
  const path = store(base, 'u1', CLEAN);
  const r = run(['edit', '--user', 'u1', '--base', base, '--from', file('new-body.md', body('- Name: Ada Lovelace'))]);
  assert.equal(r.code, 0, r.stderr);
  const saved = readFileSync(path, 'utf8');
  assert.ok(saved.startsWith(FRONTMATTER), saved);
  assert.ok(saved.includes('- Name: Ada Lovelace'));
  const mtime = statSync(path).mtimeMs;
  const same = run(['edit', '--user', 'u1', '--base', base, '--from', 'new-body.md']);
  assert.equal(same.code, 0);
  assert.match(same.stderr, /no changes/);
  assert.equal(statSync(path).mtimeMs, mtime);
  assert.equal(readFileSync(path, 'utf8'), saved);
});

test('edit creates the folders and a fresh frontmatter (turn_count 0) for a new user; diagnostics are warnings, the save happens', () => {
  const base = mkdtempSync(join(dir, 'edit-'));
  const r = run(['edit', '--user', 'new-user', '--base', base, '--from', '-'], { input: '## Identity\n- Name: Bo\n\n## Hobbies\n- chess\n' });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /saved .*new-user.memory\.md \(new profile\)/);
  assert.match(r.stderr, /memory\.md:\d+: warning /);
  const saved = readFileSync(join(base, 'user-memory', 'new-user', 'memory.md'), 'utf8');
  assert.match(saved, /^---\nuser_id: new-user\nschema_version: 1\nlast_updated: \S+\nturn_count: 0\n---\n/);
  assert.ok(saved.includes('- Name: Bo'));
});

test('edit runs $EDITOR on the editable body and saves what it wrote', () => {
  const base = mkdtempSync(join(dir, 'edit-'));
  const path = store(base, 'u1', CLEAN);
  const seen = join(dir, 'editor-saw.md');
  const editor = file('fake-editor.mjs',
    "import { readFileSync, writeFileSync } from 'node:fs';\n" +
    'const f = process.argv[2];\nconst t = readFileSync(f, "utf8");\n' +
    `writeFileSync(${JSON.stringify(seen)}, t);\n` +
    "writeFileSync(f, t.replace('- Short answers', '- Short answers\\n- Metric units'));\n");
  const r = run(['edit', '--user', 'u1', '--base', base], { env: { EDITOR: `"${process.execPath}" "${join(dir, editor)}"` } });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readFileSync(seen, 'utf8'), m.editableBody(CLEAN), 'the editor sees the body without frontmatter');
  const saved = readFileSync(path, 'utf8');
  assert.ok(saved.startsWith(FRONTMATTER));
  assert.ok(saved.includes('- Short answers\n- Metric units'));
  // An editor that saves nothing new → no changes; one that fails → nothing saved, exit 1.
  const noop = run(['edit', '--user', 'u1', '--base', base], { env: { VISUAL: 'true' } });
  assert.equal(noop.code, 0);
  assert.match(noop.stderr, /no changes/);
  const failed = run(['edit', '--user', 'u1', '--base', base], { env: { EDITOR: 'false' } });
  assert.equal(failed.code, 1);
  assert.match(failed.stderr, /^memcore: E_EDITOR: /);
  assert.equal(readFileSync(path, 'utf8'), saved);
});

test('edit: an editor that saves binary is refused (exit 1, E_INPUT), nothing saved', () => {
  const base = mkdtempSync(join(dir, 'edit-binary-'));
  const path = store(base, 'u1', CLEAN);
  const editor = file('binary-editor.mjs',
    "import { writeFileSync } from 'node:fs';\n" +
    'writeFileSync(process.argv[2], Buffer.from([0x23, 0x20, 0xff, 0xfe, 0x00, 0x01, 0x80, 0x00, 0x41]));\n');
  const r = run(['edit', '--user', 'u1', '--base', base], { env: { EDITOR: `"${process.execPath}" "${join(dir, editor)}"` } });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /^memcore: E_INPUT: the edited file is not UTF-8 text .*nothing saved/);
  assert.equal(readFileSync(path, 'utf8'), CLEAN, 'the stored profile is untouched');
  // Valid UTF-8 with NUL bytes is binary too.
  const nul = file('nul-editor.mjs', "import { writeFileSync } from 'node:fs';\nwriteFileSync(process.argv[2], '# User Memory\\u0000\\u0000');\n");
  const r2 = run(['edit', '--user', 'u1', '--base', base], { env: { EDITOR: `"${process.execPath}" "${join(dir, nul)}"` } });
  assert.equal(r2.code, 1, r2.stderr);
  assert.match(r2.stderr, /NUL bytes/);
  assert.equal(readFileSync(path, 'utf8'), CLEAN);
});

test('traversal and invalid ids are refused with E_INVALID_USER_ID, exit 1, nothing created', () => {
  const base = mkdtempSync(join(dir, 'ids-'));
  for (const user of ['..', '.', 'a/b', '../x', 'a\\b', '']) {
    for (const args of [['show'], ['edit', '--from', '-']]) {
      const r = run([...args, '--user', user, '--base', base], { input: body('- x') });
      assert.equal(r.code, 1, `${args[0]} ${JSON.stringify(user)}: ${r.stderr}`);
      assert.match(r.stderr, /^memcore: E_INVALID_USER_ID: /);
      assert.ok(!r.stderr.includes('    at '), 'no stack trace');
    }
  }
  assert.deepEqual(readdirSync(base), []);
});

test('memcore errors and file errors print the code on stderr and exit 1', () => {
  const missing = run(['tokens', 'no-such-file.md']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^memcore: ENOENT: cannot read no-such-file\.md/);
});

test('an out-of-range --max-tokens and an unknown --encoding are usage errors (exit 2) naming the option', () => {
  const clean = file('clean.md', CLEAN);
  for (const args of [['check', clean, '--max-tokens', '10'], ['fit', clean, '--max-tokens', '9000']]) {
    const r = run(args);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, /^memcore: --max-tokens must be between 500 and 8000/);
    assert.ok(!r.stderr.includes('maxTokens'), 'no internal argument name');
  }
  for (const args of [['tokens', clean, '--encoding', 'p50k'], ['check', clean, '--encoding', 'p50k'], ['fit', clean, '--encoding', 'r50k_base']]) {
    const r = run(args);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, /^memcore: --encoding: unknown encoding `(p50k|r50k_base)`; expected `o200k_base` or `cl100k_base`/);
    assert.ok(!/options|tokenizer/.test(r.stderr.split('\n')[0]), 'no internal argument name');
  }
});

test('binary or invalid UTF-8 input is reported as not UTF-8 text (exit 1)', () => {
  const invalid = join(dir, 'invalid.md');
  writeFileSync(invalid, Buffer.from([0x23, 0x20, 0xff, 0xfe, 0x0a]));
  const binary = join(dir, 'zeros.bin');
  writeFileSync(binary, Buffer.alloc(64));
  for (const target of [invalid, binary]) {
    for (const command of ['check', 'fit', 'tokens', 'prompt']) {
      const r = run([command, target]);
      assert.equal(r.code, 1, `${command} ${target}`);
      assert.match(r.stderr, /^memcore: E_INPUT: .* is not UTF-8 text/);
    }
  }
  const fromStdin = run(['tokens', '-'], { input: Buffer.from([0xc3, 0x28]) });
  assert.equal(fromStdin.code, 1);
  assert.match(fromStdin.stderr, /<stdin> is not UTF-8 text/);
});

test('edit --from a whole memory.md keeps the stored frontmatter and drops the pasted one', () => {
  const base = mkdtempSync(join(dir, 'paste-'));
  assert.equal(run(['edit', '--user', 'u1', '--base', base, '--from', '-'], { input: body('- first') }).code, 0);
  const path = join(base, 'user-memory', 'u1', 'memory.md');
  const stored = readFileSync(path, 'utf8');
  const pasted = `---\nuser_id: someone-else\nturn_count: 99\n---\n\n${body('- second')}`;
  const r = run(['edit', '--user', 'u1', '--base', base, '--from', '-'], { input: pasted });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /frontmatter-in-body/);
  const after = readFileSync(path, 'utf8');
  assert.equal(after.split('---\n')[1], stored.split('---\n')[1], 'the stored frontmatter is kept byte for byte');
  assert.equal(after.match(/^---$/gm).length, 2, 'one frontmatter block');
  assert.match(after, /- second/);
});

test('usage errors exit 2 with the usage on stderr', () => {
  const cases = [
    [[], /Usage: memcore <command>/],
    [['frobnicate'], /unknown command 'frobnicate'[\s\S]*Usage: memcore <command>/],
    [['fit', 'x.md', '--bogus'], /unknown option '--bogus'[\s\S]*Usage: memcore fit FILE/],
    [['check'], /missing FILE[\s\S]*Usage: memcore check FILE/],
    [['tokens', 'a', 'b'], /unexpected argument 'b'/],
    [['check', 'x.md', '--max-tokens', 'lots'], /--max-tokens must be a whole number/],
    [['show'], /--user ID is required[\s\S]*Usage: memcore show --user ID/],
    [['help', 'nope'], /unknown command 'nope'/],
  ];
  for (const [args, pattern] of cases) {
    const r = run(args);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, pattern, args.join(' '));
    assert.equal(r.stdout, '');
  }
});

test('--help for the tool and for every command, both spellings', () => {
  for (const args of [['--help'], ['-h'], ['help']]) {
    const r = run(args);
    assert.equal(r.code, 0);
    for (const name of ['check', 'fit', 'tokens', 'prompt', 'show', 'edit']) assert.match(r.stdout, new RegExp(`^  ${name} `, 'm'));
  }
  for (const name of ['check', 'fit', 'tokens', 'prompt', 'show', 'edit']) {
    const a = run(['help', name]);
    const b = run([name, '--help']);
    assert.equal(a.code, 0);
    assert.equal(b.code, 0);
    assert.equal(a.stdout, b.stdout);
    assert.equal(run([name, '-h']).stdout, a.stdout);
    assert.match(a.stdout, new RegExp(`Usage: memcore ${name}`));
  }
  assert.equal(run(['--version']).stdout.trim(), m.version());
});

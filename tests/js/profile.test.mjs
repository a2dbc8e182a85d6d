// Profile format, injection, paths, enablement and editing through the installed package,
// replaying the vectors the Rust tests use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as m from 'memcore';
import { vectors } from './vectors.mjs';

const isCode = (code) => (e) => e instanceof m.MemcoreError && e.code === code;

test('parse vectors: rendering, diagnostics, frontmatter, body', () => {
  for (const c of vectors('profile/parse.json')) {
    const parsed = m.parseProfile(c.input);
    assert.equal(m.renderProfile(parsed), c.rendered, c.name);
    assert.deepEqual(
      parsed.diagnostics.map((d) => ({ code: d.code, line: d.line, severity: d.severity })),
      c.diagnostics,
      c.name,
    );
    assert.equal(parsed.frontmatter.userId ?? null, c.userId ?? null, c.name);
    assert.equal(parsed.frontmatter.turnCount, c.turnCount, c.name);
    assert.deepEqual(parsed.frontmatter.extra, c.extra, c.name);
    assert.equal(m.profileBody(c.input), c.body, c.name);
    // The round trip of SPEC §1.2.
    assert.equal(m.renderProfile(m.parseProfile(c.rendered)), c.rendered, c.name);
  }
});

test('normalise and well-formedness vectors', () => {
  for (const c of vectors('profile/normalise.json')) {
    assert.equal(m.normaliseModelBody(c.input), c.normalised, c.name);
    assert.equal(m.isWellFormedBody(c.input), c.wellFormed, c.name);
  }
});

test('injection vectors', () => {
  for (const c of vectors('profile/inject.json')) {
    assert.equal(m.memorySystemPromptSection(c.input), c.section, c.name);
  }
  assert.equal(m.memorySystemPromptSection(null), '');
  assert.equal(m.memorySystemPromptSection(undefined), '');
});

test('path vectors (traversal ids, NUL, 300-byte ids)', () => {
  for (const c of vectors('profile/paths.json')) {
    if (c.error) assert.throws(() => m.memoryPath(c.userId, c.rootFolder), isCode(c.error), c.name);
    else assert.equal(m.memoryPath(c.userId, c.rootFolder), c.path, c.name);
  }
  for (const bad of ['..', '.', 'a/b', 'a\\b', 'a\0b', 'x'.repeat(300), '']) {
    assert.throws(() => m.memoryPath(bad), isCode('E_INVALID_USER_ID'), JSON.stringify(bad).slice(0, 20));
  }
});

test('enablement vectors and the exact tooltip', () => {
  for (const c of vectors('profile/enablement.json')) {
    const r = m.resolveEnablement(c.inputs);
    assert.equal(r.enabled, c.enabled, c.name);
    assert.equal(r.reason, c.reason, c.name);
    assert.deepEqual(r.warnings.map((w) => w.code), c.warnings, c.name);
    assert.equal(r.tooltip ?? null, c.tooltip, c.name);
  }
  assert.equal(
    m.WEB_SEARCH_TOOLTIP,
    'Context memory is unavailable while web search is enabled, to keep user data out of external search queries.',
  );
  // Neutral names in the messages; a deprecated name and its new name together are refused.
  const mismatch = m.resolveEnablement({ companyId: 'c1', featureFlag: 'true', webSearchEnabled: true, allowWithWebSearch: { runtime: 'c1', admin: 'false' } });
  assert.equal(mismatch.warnings[0].message, 'the web-search override means on for the runtime but off for the admin UI for this company; give both the same value (treated as off meanwhile)');
  const badFlag = m.resolveEnablement({ companyId: 'c1', featureFlag: 'yes' });
  assert.equal(badFlag.warnings[0].message, 'the feature flag: `yes` is not `true`, `false` or a list of company ids; treated as off');
  assert.throws(() => m.resolveEnablement({ companyId: 'c1', allowWithWebSearch: { runtime: 'true', nodeChat: 'true' } }), isCode('E_ARGUMENT'));
  m.resolveEnablement({ companyId: 'c1', featureFlag: 'true' }); // the next call works
  assert.equal(m.orchestratorMemoryEnabled(undefined), false);
  assert.equal(m.orchestratorMemoryEnabled(true), true);
  assert.equal(m.orchestratorMemoryEnabled(false), false);
});

test('edit vectors, and the 1 MiB limit at its boundary', () => {
  for (const c of vectors('profile/edit.json')) {
    const run = () => m.applyUserEdit(c.existing, c.body, { userId: c.userId, now: c.now });
    if (c.error) {
      assert.throws(run, isCode(c.error), c.name);
      continue;
    }
    const r = run();
    assert.equal(r.text, c.text, c.name);
    assert.deepEqual(r.diagnostics.map((d) => d.code), c.diagnostics, c.name);
  }
  const now = new Date('2026-06-17T12:00:00Z');
  const atLimit = 'é'.repeat(524288); // 1,048,576 bytes of UTF-8 (2 bytes each)
  assert.equal(m.applyUserEdit(null, atLimit, { userId: 'u', now }).text.includes('é'), true);
  assert.throws(() => m.applyUserEdit(null, atLimit + 'a', { userId: 'u', now }), isCode('E_TOO_LARGE'));
  assert.equal(m.MAX_EDIT_BODY_BYTES, 1048576);
});

test('memoryView, editableBody, emptyProfile, assembleProfile', () => {
  assert.deepEqual(m.memoryView(null), { exists: false, body: '', lastUpdated: null, turnCount: null });
  const text = m.assembleProfile('## Identity\n- Ana\n', { userId: 'u1', turnCount: 3, now: '2026-06-17T12:00:00.900Z' });
  assert.ok(text.startsWith('---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-06-17T12:00:00+00:00\nturn_count: 3\n---\n\n# User Memory\n\n## Identity\n- Ana\n'));
  const view = m.memoryView(text);
  assert.equal(view.exists, true);
  assert.equal(view.turnCount, 3);
  assert.equal(view.lastUpdated, '2026-06-17T12:00:00+00:00');
  assert.ok(!view.body.includes('user_id'));
  assert.equal(m.editableBody(text), view.body);
  const empty = m.emptyProfile('u1', new Date(Date.UTC(2026, 0, 2, 3, 4, 5)));
  assert.equal(empty.frontmatter.turnCount, 0);
  assert.match(m.renderProfile(empty), /last_updated: 2026-01-02T03:04:05\+00:00/);
  assert.equal(m.renderProfile(empty).match(/_\(empty\)_/g).length, 6);
  assert.equal(m.memorySystemPromptSection(m.renderProfile(empty)), '');
  assert.throws(() => m.emptyProfile('a/b', Date.now()), isCode('E_INVALID_USER_ID'));
});

test('checkMemoryRoots warns about duplicate active roots only', () => {
  assert.equal(m.checkMemoryRoots([{ name: 'user-memory', active: true }]), null);
  assert.equal(m.checkMemoryRoots([{ name: 'user-memory', active: true }, { name: 'user-memory', active: false }]), null);
  const warning = m.checkMemoryRoots([{ name: 'user-memory', active: true, id: 'f1' }, { name: 'user-memory', active: true, id: 'f2' }]);
  assert.match(warning, /f1/);
  assert.match(warning, /f2/);
  assert.throws(() => m.checkMemoryRoots('user-memory'), isCode('E_ARGUMENT'));
});

test('hostile frontmatter: a YAML alias bomb is kept as written, deep nesting is a diagnostic', () => {
  const bomb = ['---', 'a: &a ["x","x","x","x","x","x","x","x","x"]'];
  for (let i = 0; i < 12; i++) bomb.push(`${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`);
  bomb.push('---', '', '## Identity', '- x', '');
  const parsed = m.parseProfile(bomb.join('\n'));
  // Valid YAML (every alias names an earlier anchor): each value is kept as its text, never expanded.
  assert.ok(!parsed.diagnostics.some((d) => d.code === 'invalid-yaml'));
  assert.deepEqual(parsed.frontmatter.extra.map((f) => f.value), bomb.slice(1, 14).map((line) => line.slice(3)));
  assert.ok(m.renderProfile(parsed).length < 2000);
  assert.equal(parsed.sections[0].lines[0], '- x');
  const deep = `---\nk: ${'['.repeat(10000)}${']'.repeat(10000)}\n---\n## Identity\n- y\n`;
  assert.ok(m.parseProfile(deep).diagnostics.length > 0);
  const only = m.parseProfile('---\nuser_id: u\nturn_count: 4\n---\n');
  assert.equal(only.frontmatter.turnCount, 4);
  assert.equal(only.sections.length, 6);
});

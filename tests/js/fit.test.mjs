// Budget fitting through the package: the shared vectors (o200k, chars and words counters), the
// SPEC §1.5 guarantees on hostile input, and fitProfile with a model condense callback.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as m from 'memcore';
import { vectors } from './vectors.mjs';

const COUNTERS = {
  o200k: undefined,
  chars: (t) => [...t].length,
  words: (t) => t.split(/[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u).filter(Boolean).length,
};
const isCode = (code) => (e) => e instanceof m.MemcoreError && e.code === code;
const pick = (obj, keys) => Object.fromEntries(keys.map((k) => [k, obj[k]]));

test('truncate vectors', () => {
  for (const c of vectors('fit/truncate.json')) {
    const r = m.enforceTokenCap(c.input, c.maxTokens, COUNTERS[c.counter]);
    assert.deepEqual(r, c.expected, c.name);
  }
});

test('condense vectors', () => {
  for (const c of vectors('fit/condense.json')) {
    const r = m.condenseProfile(c.input, c.maxTokens, COUNTERS[c.counter]);
    assert.deepEqual(r, c.expected, c.name);
  }
});

test('fit vectors (no model)', async () => {
  for (const c of vectors('fit/fit.json')) {
    const r = await m.fitProfile(c.input, { maxTokens: c.maxTokens, countTokens: COUNTERS[c.counter] });
    assert.deepEqual(pick(r, Object.keys(c.expected)), c.expected, c.name);
  }
});

test('the marker is byte-exact and the result never exceeds the budget, never splits a character', () => {
  assert.equal(m.TRUNCATION_MARKER, '\n\n<!-- truncated to fit memory budget -->');
  const texts = ['🇨🇭👩‍💻'.repeat(50), 'a\nb\n'.repeat(300), '日本語'.repeat(400), 'x'.repeat(5000) + '\n' + 'y', m.TRUNCATION_MARKER.repeat(40)];
  for (const text of texts) {
    for (const max of [1, 5, 12, 40, 100, 400]) {
      for (const counter of Object.values(COUNTERS)) {
        const r = m.enforceTokenCap(text, max, counter);
        const count = counter ? counter(r.text) : m.countTokens(r.text);
        assert.ok(count <= max, `${count} > ${max}`);
        assert.ok(!/[\uD800-\uDBFF]$/.test(r.text.replace(/(\n\n<!--.*)$/s, '')), 'no lone high surrogate at the cut');
        assert.equal(r.text.includes('\uFFFD'), text.includes('\uFFFD'));
        if (!r.truncated) assert.equal(r.text, text);
      }
    }
  }
});

test('text within budget comes back unchanged; a cut keeps whole lines and appends the marker', () => {
  const text = '## Identity\n- one\n- two\n- three\n';
  assert.deepEqual(m.enforceTokenCap(text, 1000).text, text);
  const cut = m.enforceTokenCap(text + '- four four four four four four\n'.repeat(200), 300);
  assert.equal(cut.truncated, true);
  assert.ok(cut.text.endsWith('\n\n<!-- truncated to fit memory budget -->'));
  assert.ok(cut.tokensAfter <= 300);
});

test('fitProfile validates maxTokens (500–8000) with E_CONFIG naming the field', async () => {
  for (const bad of [499, 8001, 0, -5, 1.5, 'big']) {
    await assert.rejects(m.fitProfile('x', { maxTokens: bad }), (e) => e.code === 'E_CONFIG' && e.details.path === 'maxTokens', String(bad));
  }
  const ok = await m.fitProfile('## Identity\n- x\n', { maxTokens: 500 });
  assert.equal(ok.truncated, false);
  await assert.rejects(m.fitProfile(42), isCode('E_ARGUMENT'));
  await assert.rejects(m.fitProfile('x', { condense: 'model' }), isCode('E_ARGUMENT'));
});

function bigProfile() {
  let text = '---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-06-17T12:00:00+00:00\nturn_count: 3\n---\n\n# User Memory\n\n## Identity\n- Ana, analyst in Lisbon\n\n## Communication Preferences\n- Short answers\n\n## Work Context\n';
  for (let i = 0; i < 400; i++) text += `- Project ${i}: migrating report ${i} from Excel to Python with the finance team\n`;
  return text + '\n## Skills & Expertise\n_(empty)_\n\n## Recent Topics\n_(empty)_\n\n## Follow-ups\n_(empty)_\n';
}

test('fitProfile uses a good model condense answer, keeps the frontmatter, reports usage', async () => {
  const text = bigProfile();
  const requests = [];
  const body = '# User Memory\n\n## Identity\n- Ana, analyst in Lisbon\n\n## Communication Preferences\n- Short answers\n\n## Work Context\n- Migrating 400 Excel reports to Python with the finance team\n\n## Skills & Expertise\n_(empty)_\n\n## Recent Topics\n_(empty)_\n\n## Follow-ups\n_(empty)_\n';
  const model = {
    async complete(request) {
      requests.push(request);
      return { text: '```markdown\n' + body + '```', usage: { inputTokens: 9000, outputTokens: 60 } };
    },
  };
  const r = await m.fitProfile(text, { maxTokens: 2000, condense: model, now: '2026-11-29T10:00:00Z' });
  assert.equal(r.modelCondensed, true);
  assert.equal(r.truncated, false);
  assert.deepEqual(r.modelUsage, { inputTokens: 9000, outputTokens: 60 });
  assert.ok(r.text.startsWith('---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-06-17T12:00:00+00:00\nturn_count: 3\n---\n'));
  assert.ok(r.text.includes('Migrating 400 Excel reports'));
  assert.equal(requests.length, 1);
  assert.equal(requests[0].purpose, 'condense');
  assert.equal(requests[0].maxOutputTokens, 2200);
});

test('fitProfile ignores a bad model answer or a model error and still fits by truncation', async () => {
  for (const condense of [async () => 'NOOP', async () => { throw new Error('model down'); }, () => '## Identity\nonly one section', () => 42]) {
    const r = await m.fitProfile(bigProfile(), { maxTokens: 1000, condense });
    assert.equal(r.modelCondensed, false);
    assert.equal(r.truncated, true);
    assert.ok(r.tokensAfter <= 1000);
    assert.equal(m.countTokens(r.text), r.tokensAfter);
    assert.ok(typeof r.modelError === 'string' && r.modelError.length > 0);
  }
});

test('a 10 MB profile fits in linear time (no timing asserted)', async () => {
  const line = '- 2026-05-01 10:00 UTC: Discussed the quarterly report with the Zurich team.\n';
  const text = '## Recent Topics\n' + line.repeat(Math.ceil((10 << 20) / line.length));
  const r = await m.fitProfile(text, { maxTokens: 2000 });
  assert.ok(r.tokensAfter <= 2000);
  assert.equal(m.countTokens('ok'), 1);
});

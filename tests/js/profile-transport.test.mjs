// The profile transport (js/wire.js, src/wasm/profile.rs): parseProfile answers lines as
// positions in the text JS sent, renderProfile sends lines as one text and is answered with
// pieces. Both must give exactly what the plain JSON transport gives, for every text and every
// profile object, and fall back to it for anything irregular. The oracles are public:
// - parse: a text holding U+FFFD anywhere makes the core answer every line as a string (a
//   position could name a lone surrogate JS held there), so the same body under a frontmatter
//   key holding U+FFFD must give the same sections;
// - render: an object with `toJSON` always goes as JSON.
// Rendering a parse result sends only the sections edited since (the others' lines were
// canonical when parsed and are unchanged): `memcore/testing`'s `profileTransport()` counts the
// lines sent and the lines reused, so the tests see which path ran.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as m from 'memcore';
import { profileTransport } from 'memcore/testing';
import { prng } from '../support/prng.mjs';
import { vectors } from './vectors.mjs';

const LINES = [
  '- a bullet',
  '  - nested bullet',
  '- café ☕ with non-ASCII',
  '- astral 😀 and 𝔘 characters',
  '### sub-heading',
  '## Identity',
  '## Work Context',
  '## Recent Topics',
  '## Not A Section',
  '##Identity',
  '   ## Follow-ups',
  '\u3000## Identity',
  '# User Memory',
  '# Another Title',
  '```',
  '```js',
  '~~~',
  '',
  '   ',
  '\t',
  '_(empty)_',
  '  _(empty)_  ',
  'trailing spaces   ',
  'trailing tab\t',
  'trailing NEL\u0085',
  'trailing nbsp\u00a0',
  'line separator\u2028inside',
  'BOM \ufeff inside',
  'vertical\u000btab',
  'lone high \ud800 surrogate',
  'lone low \udc00 surrogate',
  'replacement \ufffd character',
  'free text with ---',
  '---',
  '0123456789abcdef0123456789abcdef0123456789abcdef',
];
const ENDS = ['\n', '\n', '\n', '\r\n', '\r'];

function text(random, n) {
  let out = random() < 0.1 ? '\ufeff' : '';
  if (random() < 0.8) out += '---\nuser_id: u1\nturn_count: 3\n---\n';
  for (let i = 0; i < n; i++) {
    out += LINES[Math.floor(random() * LINES.length)];
    out += ENDS[Math.floor(random() * ENDS.length)];
  }
  if (random() < 0.3) out = out.replace(/[\r\n]+$/, '');
  return out;
}

/** The same body under a frontmatter that holds U+FFFD: every line crosses as a string. */
function withReplacementKey(input) {
  const start = input.startsWith('\ufeff') ? 1 : 0;
  const rest = input.slice(start);
  if (rest.startsWith('---\n')) return `${input.slice(0, start)}---\nzz_probe: "\ufffd"\n${rest.slice(4)}`;
  return undefined;
}

test('parseProfile: lines sent as positions equal lines sent as strings (2,000 generated texts)', () => {
  const random = prng(20261201);
  let compared = 0;
  for (let i = 0; i < 2000; i++) {
    const input = text(random, 1 + Math.floor(random() * 40));
    const parsed = m.parseProfile(input);
    assert.deepEqual(Object.keys(parsed), ['frontmatter', 'title', 'sections', 'diagnostics']);
    assert.deepEqual(parsed.sections.map((s) => s.heading), m.SECTION_HEADINGS);
    for (const section of parsed.sections) for (const line of section.lines) assert.equal(typeof line, 'string');
    const probe = withReplacementKey(input);
    if (probe === undefined) continue;
    const plain = m.parseProfile(probe);
    assert.ok(plain.frontmatter.extra.some((f) => f.key === 'zz_probe'), JSON.stringify(probe));
    assert.deepEqual(parsed.sections, plain.sections, JSON.stringify(input));
    assert.equal(parsed.title, plain.title);
    compared++;
  }
  assert.ok(compared > 1500, `compared ${compared}`);
});

test('parseProfile: the shared parse vectors read the same lines both ways', () => {
  for (const c of vectors('profile/parse.json')) {
    const probe = withReplacementKey(c.input);
    if (probe === undefined) continue;
    assert.deepEqual(m.parseProfile(c.input).sections, m.parseProfile(probe).sections, c.name);
  }
});

test('parseProfile: a lone surrogate reads as U+FFFD, as it always did', () => {
  const parsed = m.parseProfile('---\nuser_id: u\n---\n## Identity\n- a \ud800 b\n- plain\n');
  assert.deepEqual(parsed.sections[0].lines, ['- a \ufffd b', '- plain']);
});

function section(random) {
  const heading = random() < 0.85 ? m.SECTION_HEADINGS[Math.floor(random() * 6)] : LINES[Math.floor(random() * LINES.length)];
  const lines = Array.from({ length: Math.floor(random() * 6) }, () => {
    const line = LINES[Math.floor(random() * LINES.length)];
    return random() < 0.05 ? `${line}\nsecond${random() < 0.5 ? '\r' : ''}` : line;
  });
  return { heading, lines };
}

function profileObject(random) {
  const sections =
    random() < 0.5
      ? m.SECTION_HEADINGS.map((heading) => ({ heading, lines: section(random).lines }))
      : Array.from({ length: Math.floor(random() * 9) }, () => section(random));
  return { frontmatter: { userId: 'u1', turnCount: Math.floor(random() * 50), extra: [] }, title: 'User Memory', sections, diagnostics: [] };
}

function outcome(fn) {
  try {
    return { text: fn() };
  } catch (error) {
    return { code: error.code, message: error.message };
  }
}

test('renderProfile: lines sent as one text render exactly as the profile sent as JSON (3,000 generated profiles)', () => {
  const random = prng(1201);
  let rendered = 0;
  for (let i = 0; i < 3000; i++) {
    const profile = profileObject(random);
    const fast = outcome(() => m.renderProfile(profile));
    const plain = outcome(() => m.renderProfile({ toJSON: () => profile }));
    assert.deepEqual(fast, plain, JSON.stringify(profile));
    if (fast.text !== undefined) rendered++;
  }
  assert.ok(rendered > 1500, `rendered ${rendered}`);
});

test('renderProfile(parseProfile(text)) is the JSON round trip for generated texts', () => {
  const random = prng(7);
  for (let i = 0; i < 1000; i++) {
    const parsed = m.parseProfile(text(random, 1 + Math.floor(random() * 30)));
    assert.equal(m.renderProfile(parsed), m.renderProfile({ toJSON: () => parsed }));
  }
});

test('renderProfile: irregular objects take the JSON transport and fail or render the same way', () => {
  const base = () => m.parseProfile('---\nuser_id: u\n---\n## Identity\n- a\n');
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  const cases = {
    'a line that is a number': (p) => (p.sections[0].lines[0] = 1),
    'a lone surrogate': (p) => (p.sections[0].lines[0] = '- \ud800'),
    'U+FFFD itself': (p) => (p.sections[0].lines[0] = '- \ufffd'),
    'a line holding a newline': (p) => (p.sections[0].lines[0] = '- a\n- b'),
    'a heading holding a newline': (p) => (p.sections[0].heading = 'Identity\n- x'),
    'a heading that is not a string': (p) => (p.sections[0].heading = 7),
    'no heading': (p) => delete p.sections[0].heading,
    'no lines': (p) => delete p.sections[0].lines,
    'lines null': (p) => (p.sections[0].lines = null),
    'lines a string': (p) => (p.sections[0].lines = '- a'),
    'a sparse lines array': (p) => (p.sections[0].lines = [, '- b']), // eslint-disable-line no-sparse-arrays
    'sections not an array': (p) => (p.sections = { 0: p.sections[0] }),
    'no sections': (p) => delete p.sections,
    'a null section': (p) => (p.sections[1] = null),
    'a section with toJSON': (p) => (p.sections[0].toJSON = () => ({ heading: 'Identity', lines: ['- via toJSON'] })),
    'lines with toJSON': (p) => (p.sections[0].lines.toJSON = () => ['- via toJSON']),
    'a getter that throws': (p) => Object.defineProperty(p.sections[0], 'lines', { enumerable: true, get: () => { throw new Error('boom'); } }),
    'a revoked proxy section': (p) => (p.sections[0] = revoked.proxy),
    'a proxy for lines': (p) => (p.sections[0].lines = new Proxy(['- proxied'], {})),
    'a title that is a number': (p) => (p.title = 5),
    'no frontmatter': (p) => delete p.frontmatter,
    'a bad turn count': (p) => (p.frontmatter.turnCount = -1),
    'NaN in the frontmatter': (p) => (p.frontmatter.turnCount = NaN),
    'a function in an extra key': (p) => (p.extra = () => 1),
    'a BigInt in a section': (p) => (p.sections[0].size = 1n),
    'a cycle': (p) => (p.frontmatter.self = p),
    'unknown keys': (p) => ((p.sections[0].note = 'x'), (p.other = [1, 2])),
    'a 64 KiB line': (p) => (p.sections[0].lines[0] = `- ${'x'.repeat(65536)}`),
  };
  for (const [name, change] of Object.entries(cases)) {
    const profile = base();
    change(profile);
    const fast = outcome(() => m.renderProfile(profile));
    const plain = outcome(() => m.renderProfile({ toJSON: () => profile }));
    assert.deepEqual(fast, plain, name);
    // The next call works.
    assert.equal(m.renderProfile(base()), m.renderProfile({ toJSON: () => base() }), name);
  }
  assert.equal(outcome(() => m.renderProfile(null)).code, 'E_ARGUMENT');
  assert.equal(outcome(() => m.renderProfile([])).code, 'E_ARGUMENT');
  assert.equal(outcome(() => m.renderProfile('text')).code, 'E_ARGUMENT');
});

test('renderProfile answers one flat string however it was assembled', () => {
  const parsed = m.parseProfile('---\nuser_id: u\n---\n## Identity\n- café\n## Follow-ups\n- 😀 call back\n');
  const out = m.renderProfile(parsed);
  assert.equal(out, m.renderProfile({ toJSON: () => parsed }));
  assert.ok(out.isWellFormed());
  assert.ok(out.endsWith('## Follow-ups\n- 😀 call back\n'));
});

/** Lines sent and reused by `fn`'s renderProfile calls. */
function counted(fn) {
  const before = profileTransport();
  const value = fn();
  const after = profileTransport();
  return { value, sent: after.linesSent - before.linesSent, known: after.linesKnown - before.linesKnown };
}

const EDITS = {
  'nothing': () => {},
  'the same text in a new string': (p, r) => {
    const s = p.sections[Math.floor(r() * 6)];
    if (s.lines.length) s.lines[0] = `${s.lines[0]}${''.padEnd(Math.floor(r() * 2))}`.slice(0, s.lines[0].length);
  },
  'a line replaced': (p, r) => {
    const s = p.sections[Math.floor(r() * 6)];
    s.lines[Math.floor(r() * (s.lines.length + 1))] = LINES[Math.floor(r() * LINES.length)];
  },
  'a line pushed': (p, r) => p.sections[Math.floor(r() * 6)].lines.push(LINES[Math.floor(r() * LINES.length)]),
  'a line popped': (p, r) => p.sections[Math.floor(r() * 6)].lines.pop(),
  'lines spliced': (p, r) => p.sections[Math.floor(r() * 6)].lines.splice(0, 1, '- x', '- y'),
  'lines reversed': (p, r) => p.sections[Math.floor(r() * 6)].lines.reverse(),
  'lines emptied by length': (p, r) => (p.sections[Math.floor(r() * 6)].lines.length = 0),
  'a hole': (p, r) => {
    const s = p.sections[Math.floor(r() * 6)];
    if (s.lines.length) delete s.lines[0];
  },
  'lines copied': (p, r) => {
    const s = p.sections[Math.floor(r() * 6)];
    s.lines = [...s.lines];
  },
  'two sections swap lines': (p, r) => {
    const [a, b] = [p.sections[Math.floor(r() * 6)], p.sections[Math.floor(r() * 6)]];
    [a.lines, b.lines] = [b.lines, a.lines];
  },
  'one lines array in two sections': (p, r) => (p.sections[Math.floor(r() * 6)].lines = p.sections[Math.floor(r() * 6)].lines),
  'two sections swap places': (p, r) => {
    const [i, j] = [Math.floor(r() * 6), Math.floor(r() * 6)];
    [p.sections[i], p.sections[j]] = [p.sections[j], p.sections[i]];
  },
  'a heading renamed': (p, r) => (p.sections[Math.floor(r() * 6)].heading = m.SECTION_HEADINGS[Math.floor(r() * 6)]),
  'a section removed': (p, r) => p.sections.splice(Math.floor(r() * 6), 1),
  'a section added': (p, r) => p.sections.push({ heading: 'Identity', lines: p.sections[0].lines }),
  'an index getter': (p, r) => {
    const s = p.sections[Math.floor(r() * 6)];
    if (s.lines.length) Object.defineProperty(s.lines, 0, { get: () => '- from a getter', enumerable: true });
  },
  'lines of another parse': (p, r) => (p.sections[Math.floor(r() * 6)].lines = m.parseProfile(text(r, 8)).sections[Math.floor(r() * 6)].lines),
  'the profile spread, a new frontmatter': (p, r) => Object.assign(p, { ...p, frontmatter: { ...p.frontmatter, turnCount: Math.floor(r() * 9) } }),
};

test('renderProfile of an edited parse result is the JSON round trip, whatever the edit (2,000 generated texts)', () => {
  const random = prng(4242);
  const names = Object.keys(EDITS);
  let reused = 0;
  for (let i = 0; i < 2000; i++) {
    const parsed = m.parseProfile(text(random, 1 + Math.floor(random() * 30)));
    const name = names[i % names.length];
    for (let k = 0; k < 1 + Math.floor(random() * 3); k++) EDITS[name](parsed, random);
    const fast = counted(() => outcome(() => m.renderProfile(parsed)));
    const plain = outcome(() => m.renderProfile({ toJSON: () => parsed }));
    assert.deepEqual(fast.value, plain, `${name}: ${JSON.stringify(parsed)}`);
    reused += fast.known;
    // Rendering again answers the same.
    assert.deepEqual(outcome(() => m.renderProfile(parsed)), plain, name);
  }
  assert.ok(reused > 5000, `reused ${reused} lines`);
});

test('renderProfile of a parse result sends no line; after an edit, only the edited section', () => {
  const input = '---\nuser_id: u\nschema_version: 1\nturn_count: 0\n---\n\n# User Memory\n\n## Identity\n- Dana, café owner\n- 😀 likes emoji\n\n## Communication Preferences\n- short answers\n\n## Work Context\n- runs a café\n- two shops\n\n## Skills & Expertise\n_(empty)_\n\n## Recent Topics\n- pricing\n\n## Follow-ups\n- call back\n';
  const parsed = m.parseProfile(input);
  const whole = counted(() => m.renderProfile(parsed));
  assert.equal(whole.value, input);
  assert.deepEqual([whole.sent, whole.known], [0, 7]);
  parsed.sections[2].lines.push('- a third shop');
  const edited = counted(() => m.renderProfile(parsed));
  assert.ok(edited.value.includes('- two shops\n- a third shop\n\n## Skills'));
  assert.deepEqual([edited.sent, edited.known], [3, 5]);
  // A copy of the profile object keeps the fast path; a hand-built profile sends everything.
  const copy = counted(() => m.renderProfile({ ...parsed, frontmatter: { ...parsed.frontmatter, turnCount: 2 } }));
  assert.deepEqual([copy.sent, copy.known], [3, 5]);
  const rebuilt = counted(() => m.renderProfile(structuredClone(parsed)));
  assert.equal(rebuilt.value, edited.value);
  assert.deepEqual([rebuilt.sent, rebuilt.known], [8, 0]);
});

test('renderProfile: a section that was not canonical when parsed is sent again; one that needs canonicalising makes every line go', () => {
  // A fenced block is never taken as canonical (the check is sufficient, not necessary): the
  // core asks for every line, and the second call sends them all.
  const parsed = m.parseProfile('---\nuser_id: u\n---\n## Identity\n- a\n```\ncode\n```\n## Work Context\n- w\n');
  const fenced = counted(() => m.renderProfile(parsed));
  assert.equal(fenced.value, m.renderProfile({ toJSON: () => parsed }));
  assert.deepEqual([fenced.sent, fenced.known], [4 + 5, 1]);
  // A line with trailing blanks needs canonicalising: the core asks for every line, and gets them.
  const plain = m.parseProfile('---\nuser_id: u\n---\n## Identity\n- a\n## Work Context\n- w\n');
  plain.sections[0].lines.push('- trailing  ');
  const retried = counted(() => m.renderProfile(plain));
  assert.equal(retried.value, m.renderProfile({ toJSON: () => plain }));
  assert.ok(retried.value.includes('- a\n- trailing\n'));
  assert.deepEqual([retried.sent, retried.known], [2 + 3, 1]);
});

test('parseProfile: what marks a canonical lines array is invisible to the host', () => {
  const input = '---\nuser_id: u\nschema_version: 1\nturn_count: 0\n---\n\n# User Memory\n\n## Identity\n- Dana\n\n## Communication Preferences\n- short answers\n\n## Work Context\n_(empty)_\n\n## Skills & Expertise\n_(empty)_\n\n## Recent Topics\n_(empty)_\n\n## Follow-ups\n_(empty)_\n';
  const parsed = m.parseProfile(input);
  const lines = parsed.sections[0].lines;
  // No key, no symbol, no prototype change: deep equality with a plain array holds (strict
  // deep equality compares own symbols and prototypes), and nothing can reach the copy.
  assert.deepEqual(Reflect.ownKeys(lines), ['0', 'length']);
  assert.equal(Object.getPrototypeOf(lines), Array.prototype);
  assert.deepStrictEqual(parsed.sections[0], { heading: 'Identity', lines: ['- Dana'] });
  assert.deepStrictEqual(JSON.parse(JSON.stringify(parsed)), structuredClone(parsed));
  // The mark goes with the array, not the profile: moved into a new profile it still counts as known.
  const moved = counted(() => m.renderProfile({ ...parsed, sections: parsed.sections.map((s) => ({ ...s })) }));
  assert.equal(moved.value, input);
  assert.deepEqual([moved.sent, moved.known], [0, 2]);
});

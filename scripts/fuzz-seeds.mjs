// Inputs for the fuzz targets (docs/internals/fuzzing.md), one file per input, named by its SHA-1 as
// libFuzzer names its own.
// Usage: node scripts/fuzz-seeds.mjs seeds <out dir>
//        node scripts/fuzz-seeds.mjs hostile <out dir> [small size, 16384] [with-4mib]
//   seeds:   the shared test vectors (tests/vectors/**) cut into what each target reads, plus the
//            small hostile cases of issue 19 — merged into fuzz/corpus/<target>/ by
//            `scripts/fuzz.sh seed` (only the inputs that add coverage are kept)
//   hostile: the large hostile cases (MiB-sized lines, deep nesting, every line end), written at
//            each run and run once by scripts/fuzz.sh, never committed: they hold each target to
//            its linear bound at sizes the mutating fuzzer reaches only slowly
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [mode, out] = process.argv.slice(2);
if (!['seeds', 'hostile'].includes(mode) || !out) {
  console.error('usage: node scripts/fuzz-seeds.mjs seeds|hostile <out dir>');
  process.exit(2);
}

const TARGETS = ['profile', 'json_decode', 'tool_args', 'credentials', 'rest_body', 'migration'];
const inputs = Object.fromEntries(TARGETS.map((t) => [t, new Map()]));
const MAX_SEED = 8 * 1024;

function add(target, text) {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8');
  if (mode === 'seeds' && (bytes.length === 0 || bytes.length > MAX_SEED)) return;
  inputs[target].set(createHash('sha1').update(bytes).digest('hex'), bytes);
}

function vectors(dir) {
  const root = join('tests/vectors', dir);
  return readdirSync(root)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(root, f), 'utf8')));
}

/** Every string and every container (as compact JSON) inside `value`. */
/** A hostile input under a readable name (the driver pairs `.small` with `.large`). */
function named(target, name, text) {
  inputs[target].set(name, Buffer.from(text, 'utf8'));
}

function walk(value, onString, onContainer) {
  if (typeof value === 'string') onString(value);
  else if (value && typeof value === 'object') {
    onContainer(value);
    for (const item of Object.values(value)) walk(item, onString, onContainer);
  }
}

/** The values under `name` anywhere inside `value`. */
function under(value, name, found = []) {
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === name) found.push(item);
      under(item, name, found);
    }
  }
  return found;
}

const nest = (depth, open, close, inner = '0') => open.repeat(depth) + inner + close.repeat(depth);

// The small hostile cases of issue 19, point 4: seeds of the corpus, and run by name at every run.
function smallHostile() {
  const profile = '---\nuser_id: u1\nschema_version: 1\nturn_count: 3\n---\n\n# User Memory\n\n## Identity\n- Ada\n\n## Preferences\n- tea\n';
  for (const text of [
    profile.replaceAll('\n', '\r'),
    profile.replaceAll('\n', '\r\n'),
    profile.replace(/\n/g, (_, i) => ['\n', '\r\n', '\r'][i % 3]),
    '\ufeff' + profile,
    profile.replace('Ada', 'A\u0000da'),
    profile + '```\n## Identity\nfenced\n',
    '---\nuser_id: u1\n# User Memory\n## Identity\n- x\n',
    '---\na: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]\nd: [*c, *c]\n---\n# User Memory\n',
    '---\nk: ' + nest(60, '[', ']') + '\n---\n',
    '---\nk: "\\ud800"\nuser_id: "\\u0000"\n---\n',
    '## Identity\n' + 'x'.repeat(20000) + '\n',
  ]) {
    add('profile', text);
  }
  for (const text of [
    '"\\ud800"', '{"key":"\\udc00"}', '"\\udbff\\udfff"', '["\\ud800\\u0041"]',
    nest(129, '[', ']'), nest(200, '{"a":', '}'), '\ufeff{}', '{"a":"\u0000"}', '{"a":1e999}',
    '{"maxTokens":18446744073709551616}', '{"now":-8.64e15}', '[' + '1,'.repeat(1000) + '1]',
  ]) {
    add('json_decode', text);
    add('rest_body', text);
    add('migration', text);
    add('tool_args', text);
    add('credentials', text);
  }
  for (const text of [
    'Authorization: Bearer abcdefghijklmnop1234', 'postgres://app:hunter2@db/x',
    '{"password":"pw","nested":"{\\"token\\":\\"t\\"}"}', 'sk-' + 'a1B2'.repeat(10),
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln', '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----',
    'AKIAABCDEFGHIJKLMNOP', '?api_key=abc&token=def', 'Password=hunter2;', '[REDACTED]',
  ]) {
    add('credentials', text);
  }
}
if (mode === 'seeds') {

  // profile: every text of the profile, fit and turn vectors.
  for (const dir of ['profile', 'fit', 'turn']) {
    for (const file of vectors(dir)) walk(file, (s) => s.length > 2 && add('profile', s), () => {});
  }
  // json_decode: every structured value of every vector file.
  for (const dir of ['entries', 'turn', 'dream', 'profile', 'fit', 'privacy']) {
    for (const file of vectors(dir)) walk(file, () => {}, (v) => add('json_decode', JSON.stringify(v)));
  }
  // tool_args: the model arguments of the tool scenarios, as JSON and as a JSON string.
  for (const file of vectors('entries')) {
    for (const args of under(file, 'args')) {
      add('tool_args', JSON.stringify(args));
      if (typeof args === 'string') add('tool_args', args);
    }
  }
  // credentials: the detection and redaction vectors, values and texts.
  for (const file of vectors('privacy')) {
    walk(file, (s) => add('credentials', s), (v) => add('credentials', JSON.stringify(v)));
  }
  // rest_body: the write-rule requests; migration: the legacy documents, whole and one by one.
  for (const file of vectors('entries')) {
    for (const request of under(file, 'request')) add('rest_body', JSON.stringify(request));
  }
  for (const file of vectors('privacy')) {
    for (const documents of under(file, 'documents')) {
      add('migration', JSON.stringify(documents));
      if (Array.isArray(documents)) for (const d of documents) add('migration', JSON.stringify(d));
    }
  }

  smallHostile();
} else {
  smallHostile();
  // Each family at two sizes, `<family>.small` and `<family>.large` (4 × small): the driver
  // compares their work (4× is linear; quadratic is 16×).
  const small = Number(process.argv[4] ?? 16384);
  const families = (target, make) => {
    for (const [family, build] of Object.entries(make)) {
      for (const [tag, n] of [['small', small], ['large', 4 * small]]) {
        named(target, `${family}.${tag}`, build(n));
      }
    }
  };
  const rep = (unit, n) => unit.repeat(Math.max(1, Math.ceil(n / unit.length)));
  const head = '---\nuser_id: u1\n---\n# User Memory\n## Identity\n';
  const fact = (end) => (n) => head + rep('- a fact about the user, kept' + end, n);
  families('profile', {
    'one-line': (n) => 'x'.repeat(n),
    'lf-lines': fact('\n'),
    'crlf-lines': fact('\r\n'),
    'cr-lines': fact('\r'),
    'mixed-lines': (n) => head + rep('- a\n- b\r\n- c\r', n),
    'only-cr': (n) => '\r'.repeat(n),
    'duplicate-sections': (n) => rep('## Identity\n## Goals\n', n),
    'fences': (n) => rep('```\n', n),
    'unterminated-frontmatter': (n) => '---\n' + rep('k: v\n', n),
    'frontmatter-nesting': (n) => '---\nk: ' + nest(Math.min(n, 60000) / 2, '[', ']') + '\n---\n',
    'alias-bomb': (n) => '---\n' + rep('a: &a [*a, *a, *a]\n', Math.min(n, 60000)) + '---\n',
  });
  for (const target of ['json_decode', 'tool_args', 'credentials', 'rest_body', 'migration']) {
    families(target, {
      'long-string': (n) => '"' + 'a'.repeat(n) + '"',
      'deep-arrays': (n) => nest(n / 2, '[', ']'),
      'many-objects': (n) => '[' + rep('{"a":1},', n) + '{}]',
      'lone-surrogates': (n) => '"' + rep('\\ud800', n) + '"',
    });
  }
  families('json_decode', { 'long-key': (n) => '{"' + 'k'.repeat(n) + '":1}' });
  families('tool_args', {
    'big-arguments': (n) => JSON.stringify({ key: 'k'.repeat(n / 4), value: 'v'.repeat(n / 4), query: rep('dog ', n / 4) }),
    'arguments-in-a-string': (n) => JSON.stringify(JSON.stringify({ key: 'city', value: rep('x ', n) })),
  });
  families('credentials', {
    'entropy-runs': (n) => rep('Zq8vT2mPw9LkR4sY7bXc', n),
    'bearer-tokens': (n) => rep('Bearer abcdefghijklmnop ', n),
    'url-passwords': (n) => rep('https://u:p@h/?token=x&', n),
    'credential-fields': (n) => JSON.stringify(Object.fromEntries(Array.from({ length: n / 32 }, (_, i) => [`password${i}`, `secret${i}`]))),
    // The repeated units the scanner's every rule starts on (once a unit test timed them).
    ...Object.fromEntries(
      ['password=', 'a=', 'eyJa.', 'bearer ', 'Bearer x', 'basic', '-----BEGIN RSA PRIVATE KEY-----', '-----BEGIN ', '://', '://a:b@', '"token":"', 'sk-', '12345678:', 'Zq8vT2mPw9LkR4sY7bXc/'].map(
        (unit, i) => [`repeated-unit-${i}`, (n) => rep(unit, n)],
      ),
    ),
    'json-in-strings': (n) => {
      let text = '"x"';
      while (text.length < n) text = JSON.stringify('[' + text + ',' + text + ']');
      return text;
    },
  });
  families('rest_body', {
    'many-groups': (n) => JSON.stringify({ userId: 'u', key: 'k', visibility: 'group', sourceAgentId: 'a', groupIds: Array(n / 4).fill('g') }),
    'big-value': (n) => JSON.stringify({ userId: 'u', key: 'k', visibility: 'global', value: 'v'.repeat(n) }),
  });
  families('migration', {
    'many-documents': (n) => JSON.stringify(Array.from({ length: n / 32 }, (_, i) => ({ userId: `u${i % 7}`, k: i, note: 'x' }))),
    'many-keys': (n) => JSON.stringify({ userId: 'u', ...Object.fromEntries(Array.from({ length: n / 12 }, (_, i) => [`key${i}`, i])) }),
  });
  // The 4 MiB single line of issue 19, once per target (the long run only).
  if (process.argv[5] === 'with-4mib') {
    for (const target of TARGETS) named(target, 'line-4mib', target === 'profile' ? 'x'.repeat(4 << 20) : '"' + 'a'.repeat(4 << 20) + '"');
  }
}

for (const [target, files] of Object.entries(inputs)) {
  const dir = join(out, target);
  mkdirSync(dir, { recursive: true });
  for (const [name, bytes] of files) writeFileSync(join(dir, name), bytes);
}
const total = Object.values(inputs).reduce((n, m) => n + m.size, 0);
const size = TARGETS.map((t) => `${t} ${inputs[t].size}`).join(', ');
console.log(`fuzz-seeds: ${mode}: ${total} inputs in ${out} (${size})`);

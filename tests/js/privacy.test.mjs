// Credential detection and the legacy migration through the installed package: the shared
// vectors (tests/vectors/privacy/), the credential corpus generated exactly as the Rust suite
// does (same templates, same xorshift32 stream, same pinned totals), and the migration applied
// through the bundled store and a JS host store with fault injection.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import * as m from 'memcore';
import { vectors } from './vectors.mjs';

/** Remove the '¦' splice marks from every string and key (no live-looking literal is committed). */
function unsplice(value) {
  if (typeof value === 'string') return value.replaceAll('¦', '');
  if (Array.isArray(value)) return value.map(unsplice);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replaceAll('¦', ''), unsplice(v)]));
  return value;
}
const load = (name) => unsplice(vectors(`privacy/${name}`));

/** deepEqual whose failure shows both values redacted: a failure message must not print a credential. */
function same(actual, expected, label) {
  if (isDeepStrictEqual(actual, expected)) return;
  assert.fail(`${label}: got ${JSON.stringify(m.redactSecrets(actual))}, expected ${JSON.stringify(m.redactSecrets(expected))}`);
}

/** `call` throws (or rejects with) E_ARGUMENT whose message does not quote `secret`; failures print neither. */
async function refusedWithoutQuoting(call, secret) {
  try {
    await call();
  } catch (e) {
    assert.ok(isCode('E_ARGUMENT')(e), 'not an E_ARGUMENT');
    assert.ok(!e.message.includes(secret) && !JSON.stringify(e.details).includes(secret), 'the error quotes the value');
    return e;
  }
  assert.fail('not refused');
}
const isCode = (code) => (e) => e instanceof m.MemcoreError && e.code === code;

test('detection vectors', () => {
  for (const c of load('detect.json').detect) {
    const found = m.detectCredential(c.value);
    if (c.found) same(found, { found: true, path: c.path, kind: c.kind }, c.name);
    else same(found, { found: false, path: null, kind: null }, c.name);
    assert.equal(m.detectCredential(m.redactSecrets(c.value)).found, false, `${c.name}: redaction left one`);
  }
});

test('redaction vectors: a text stays a text, context is kept, redaction is idempotent', () => {
  for (const c of load('detect.json').redact) {
    const redacted = m.redactSecrets(c.value);
    same(redacted, c.redacted, c.name);
    assert.ok(isDeepStrictEqual(m.redactSecrets(redacted), redacted), `${c.name}: not idempotent`);
  }
  assert.equal(m.redactSecrets(undefined), null);
});

test('migration plan vectors, and planning again with the inserted keys inserts nothing', () => {
  for (const c of load('migration.json').plans) {
    const plan = m.planPropertiesMigration(c.documents, c.existingKeysByUser, c.options);
    same(plan, c.plan, c.name);
    const after = structuredClone(c.existingKeysByUser ?? {});
    for (const i of plan.inserts) (after[i.userId] ??= []).push(i.key);
    const again = m.planPropertiesMigration(c.documents, after, c.options);
    assert.deepEqual([again.inserts, again.mayRename], [[], true], c.name);
  }
});

test('legacy cleanup vectors', () => {
  for (const c of load('migration.json').cleanup) {
    same(m.planLegacyCleanup(c.entries, c.options), c.expected, c.name);
  }
});

// ─── The corpus (the same generator as tests/privacy_corpus.rs) ─────────────────────────────────

function rng(seed) {
  let x = seed >>> 0;
  const next = () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
  const below = (n) => next() % n;
  return { below, pick: (list) => list[below(list.length)], chars: (alphabet, n) => Array.from({ length: n }, () => alphabet[below(alphabet.length)]).join('') };
}
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = UPPER + LOWER + DIGITS;
const base64 = (text) => Buffer.from(text, 'utf8').toString('base64');

function piece(r, p, v) {
  const spec = /^\{(.*)\}$/.exec(p);
  if (!spec) return p; // already unspliced
  const [name, arg = ''] = spec[1].split(':');
  const n = Number(arg);
  switch (name) {
    case 'upperdigit': return r.chars(UPPER + DIGITS, n);
    case 'b64url': return r.chars(ALNUM + '-_', n);
    case 'b64': return r.chars(ALNUM + '+/', n);
    case 'alnum': return r.chars(ALNUM, n);
    case 'digits': return r.chars(DIGITS, n);
    case 'lower': return r.chars(LOWER, n);
    case 'hex': return r.chars('0123456789abcdef', n);
    case 'basic': {
      const user = r.chars(LOWER, 6);
      const pass = r.chars(ALNUM, 12);
      return base64(`${user}:${pass}`);
    }
    case 'b64text': return base64(r.pick(v.phrases));
    case 'word': case 'name': case 'compound': return r.pick(v[`${name}s`]);
    default: throw new Error(`unknown generator ${name}`);
  }
}

function item(r, c, v) {
  const text = c.template.map((p) => piece(r, p, v)).join('');
  const field = c.field ? r.pick(c.field) : 'note';
  const depth = 1 + r.below(v.maxDepth);
  let value = { [field]: text };
  const segments = [field];
  let strings = 0;
  for (let i = 1; i < depth; i++) {
    const roll = r.below(10);
    if (roll === 9 && strings < 2) {
      strings += 1;
      value = { raw: JSON.stringify(value) };
      segments.unshift('raw');
    } else if (roll >= 6) {
      value = [r.pick(v.filler), value];
      segments.unshift('[1]');
    } else {
      const key = r.pick(v.containerKeys);
      value = { [key]: value };
      segments.unshift(key);
    }
  }
  let path = '';
  for (const s of segments) {
    if (s.includes('.')) path += `[${JSON.stringify(s)}]`;
    else path += (s.startsWith('[') || path === '' ? '' : '.') + s;
  }
  return [value, path];
}

test('credential corpus: the detection and false-positive rates (the same corpus as the Rust suite)', () => {
  const v = load('corpus.json');
  const r = rng(v.seed);
  let [positives, detected, exact] = [0, 0, 0];
  const missed = {};
  for (const c of v.positives) {
    for (let i = 0; i < v.perClass; i++) {
      const [value, path] = item(r, c, v);
      const found = m.detectCredential(value);
      positives += 1;
      if (found.found) detected += 1;
      else missed[c.class] = (missed[c.class] ?? 0) + 1;
      if (found.kind === c.kind && found.path === path) exact += 1;
      assert.equal(m.detectCredential(m.redactSecrets(value)).found, false, `${c.class}: redaction left a credential`);
    }
  }
  let [negatives, flagged] = [0, 0];
  const flaggedByClass = {};
  for (const c of v.negatives) {
    for (let i = 0; i < v.perClass; i++) {
      const [value] = item(r, c, v);
      negatives += 1;
      if (m.detectCredential(value).found) {
        flagged += 1;
        flaggedByClass[c.class] = (flaggedByClass[c.class] ?? 0) + 1;
      }
    }
  }
  const known = {};
  for (const c of v.knownFlagged) {
    for (let i = 0; i < v.perClass; i++) {
      const [value] = item(r, c, v);
      known[c.class] = (known[c.class] ?? 0) + (m.detectCredential(value).found ? 1 : 0);
    }
  }
  const pct = (a, b) => ((100 * a) / b).toFixed(2);
  console.log(
    `credential corpus: ${positives} positives, ${detected} detected (${pct(detected, positives)} %), ${exact} with the expected kind and path; ` +
      `${negatives} negatives, ${flagged} flagged (${pct(flagged, negatives)} % false positives); known-flagged classes: ${JSON.stringify(known)}`,
  );
  assert.deepEqual(missed, {});
  assert.deepEqual(
    { positives, detected, exact, negatives, flaggedByClass, known },
    {
      positives: v.expect.positives, detected: v.expect.detected, exact: v.expect.kindAndPathAsExpected,
      negatives: v.expect.negatives, flaggedByClass: v.expect.flaggedByClass, known: v.expect.knownFlaggedByClass,
    },
  );
});

// ─── Applying the migration ─────────────────────────────────────────────────────────────────────

/** A JS host store with findByKey; `failKey` makes upserts of that key throw a message quoting a token. */
class HostStore {
  constructor() {
    this.entries = [];
    this.calls = { list: 0, findByKey: 0 };
    this.failKey = null;
  }
  async list(userId) {
    this.calls.list += 1;
    return this.entries.filter((e) => e.userId === userId);
  }
  async get(id) {
    return this.entries.find((e) => e.id === id) ?? null;
  }
  async upsert(entry) {
    if (entry.key === this.failKey) throw new Error(`duplicate row (auth: ${['Bearer ', 'abcDEF123456', 'ghiJKL'].join('')})`);
    this.entries = this.entries.filter((e) => e.id !== entry.id).concat([entry]);
  }
  async delete(id) {
    const before = this.entries.length;
    this.entries = this.entries.filter((e) => e.id !== id);
    return this.entries.length !== before;
  }
  async incrementAccess() {}
  async findByKey(userId, key) {
    this.calls.findByKey += 1;
    return this.entries.filter((e) => e.userId === userId && e.key === key);
  }
}

const DOCS = () => [
  { _id: 'd1', userId: 'u1', language: 'de', theme: 'dark', userInfo: { name: 'Ada', token: 't' }, integrations: { slack: { bot: { header: ['Bearer ', 'abcDEF123456', 'ghiJKL'].join('') } } } },
  { _id: 'd2', userId: 'u2', city: 'Bern' },
  { _id: 'd3', language: 'fr' },
];
const keysOf = (entries) => {
  const out = {};
  for (const e of entries) (out[e.userId] ??= []).push(e.key);
  return out;
};

test('apply through a JS host store: EDDI behaviour, partial failure → no rename, the rerun completes, no list call', async () => {
  const store = new HostStore();
  store.entries.push({ id: 'x1', userId: 'u1', key: 'language', value: 'fr', category: 'fact', visibility: 'self', sourceAgentId: 'a', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' });
  store.failKey = 'theme';
  let n = 0;
  const options = { now: () => '2026-06-17T12:00:00Z', newId: () => `mig-${++n}` };
  const plan = m.planPropertiesMigration(DOCS(), keysOf(store.entries));
  assert.deepEqual(plan.inserts.map((i) => i.key), ['theme', 'city']);
  assert.deepEqual(plan.skippedKeys.map((s) => [s.key, s.reason, s.kind ?? null]), [
    ['integrations', 'credential', 'authorization-header'], ['language', 'exists', null], ['userInfo', 'skip-key', null],
  ]);
  const report = await m.applyPropertiesMigration(plan, store, options);
  assert.deepEqual([report.inserted, report.failed, report.mayRename], [1, 1, false]);
  const failed = report.outcomes.find((o) => o.outcome === 'failed');
  assert.equal(failed.error.code, 'E_HOST');
  assert.ok(!JSON.stringify(report).includes('abcDEF123456'), 'a failure never quotes the credential');
  assert.match(failed.error.message, /\[REDACTED\]/);
  assert.equal(store.calls.list, 0);
  const city = store.entries.find((e) => e.key === 'city');
  assert.deepEqual([city.id, city.category, city.visibility, city.createdAt], ['mig-2', 'legacy', 'global', '2026-06-17T12:00:00.000Z']);
  assert.equal(store.entries.find((e) => e.key === 'language').value, 'fr');

  store.failKey = null;
  const next = m.planPropertiesMigration(DOCS(), keysOf(store.entries));
  const done = await m.applyPropertiesMigration(next, store, options);
  assert.deepEqual([done.inserted, done.failed, done.mayRename], [1, 0, true]);
  const third = m.planPropertiesMigration(DOCS(), keysOf(store.entries));
  assert.deepEqual([third.inserts, third.mayRename], [[], true]);
  assert.equal((await m.applyPropertiesMigration(plan, store, options)).inserted, 0, 'a stale plan inserts nothing');
});

test('apply into the bundled InMemoryEntryStore; a restricted user gets nothing new', async () => {
  const store = new m.InMemoryEntryStore();
  store.upsert({ id: 'g', userId: 'u2', key: '_gdpr_processing_restricted', value: true, category: 'fact', visibility: 'global', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' });
  const report = await m.applyPropertiesMigration(m.planPropertiesMigration(DOCS(), {}), store);
  assert.deepEqual([report.inserted, report.restricted, report.mayRename], [2, 1, false]);
  assert.deepEqual(store.list('u1').map((e) => e.key).sort(), ['language', 'theme']);
  assert.equal(store.list('u2').length, 1);
});

test('misuse is E_ARGUMENT and never quotes a value', async () => {
  const secret = ['sk_li', 've_', '4eC39HqLyjWDarjtT1zdp7dc'].join('');
  const e = await refusedWithoutQuoting(() => m.applyPropertiesMigration({ inserts: secret }, new m.InMemoryEntryStore()), secret);
  assert.equal(e.details.argument, 'plan.inserts');
  await refusedWithoutQuoting(() => m.planPropertiesMigration(secret), secret);
  await refusedWithoutQuoting(() => m.planPropertiesMigration([], { u1: secret }), secret);
  await refusedWithoutQuoting(() => m.planLegacyCleanup([{ id: secret }]), secret);
  await refusedWithoutQuoting(() => m.planLegacyCleanup([secret]), secret);
  assert.throws(() => m.planPropertiesMigration([], {}, { skipKeys: 'userInfo' }), isCode('E_ARGUMENT'));
  assert.throws(() => m.planPropertiesMigration([], {}, { skip: [] }), isCode('E_ARGUMENT'));
  let deep = 'x';
  for (let i = 0; i < 200; i++) deep = [deep];
  assert.throws(() => m.detectCredential(deep), isCode('E_ARGUMENT'));
  // A 10 MB log line is scanned in linear time.
  const line = 'GET /v1/items?page=2 200 12ms '.repeat(350_000) + `api_key=${secret}`;
  const started = performance.now();
  assert.equal(m.detectCredential(line).kind, 'api-key');
  assert.ok(!m.redactSecrets(line).includes(secret), 'the secret survived redaction');
  console.log(`privacy: a ${(line.length / 1e6).toFixed(1)} MB log line detected and redacted in ${Math.round(performance.now() - started)} ms`);
});

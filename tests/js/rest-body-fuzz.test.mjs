// The REST body reader (`memcore/server`, js/server/http.js) under a seeded stream of hostile
// bodies — the JS half of the fuzzing of issue 19 (the core half, the upsert request's rules, is
// the `rest_body` libFuzzer target): random bytes, mutated valid requests, invalid UTF-8, lone
// surrogate escapes, deep nesting, huge numbers and strings, wrong and missing content types,
// chunked bodies over the limit. Every request is answered (never a throw), with a status the
// routes document and a JSON error naming a stable code, and never echoes a body's secret; the
// next valid request works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as m from 'memcore';
import { createMemoryHandler } from 'memcore/server';
import { prng } from '../support/prng.mjs';

const SECRET = ['sk', '-proj-', 'Zq8vT2mPw9LkR4sY7bXcQ1wE'].join('');
const auth = { authorization: 'Bearer u1' };
const authenticate = (request) => (request.headers.get('authorization') === 'Bearer u1' ? { userId: 'u1' } : null);

function bodies(random) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const valid = () => ({ userId: 'u1', key: pick(['city', 'dog', 'x']), value: pick(['Oslo', 1, null, [1, 2], { a: 'b' }]), visibility: pick(['global', 'self', 'group', 'nope']), sourceAgentId: 'a', groupIds: ['g'] });
  const mutate = (text) => {
    const chars = [...text];
    for (let i = 0, n = 1 + Math.floor(random() * 4); i < n; i++) {
      const at = Math.floor(random() * (chars.length + 1));
      const op = random();
      if (op < 0.33) chars.splice(at, 1);
      else if (op < 0.66) chars.splice(at, 0, pick(['{', '}', '[', ']', '"', ',', ':', '\\', '\\u', '\\ud800', '\u0000', '\uffff', 'null', '1e999']));
      else chars[at] = String.fromCharCode(Math.floor(random() * 0x80));
    }
    return chars.join('');
  };
  const kinds = [
    () => JSON.stringify(valid()),
    () => mutate(JSON.stringify(valid())),
    () => Buffer.from(Array.from({ length: Math.floor(random() * 200) }, () => Math.floor(random() * 256))),
    () => Buffer.concat([Buffer.from('{"userId":"u1","key":"k","visibility":"global","value":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}')]),
    () => `{"userId":"u1","key":"k\\ud800","visibility":"global","value":"v\\udc00${SECRET.slice(0, 3)}"}`,
    () => `${'['.repeat(1 + Math.floor(random() * 5000))}${']'.repeat(1 + Math.floor(random() * 5000))}`,
    () => `{"userId":"u1","key":"k","visibility":"global","value":${'9'.repeat(1 + Math.floor(random() * 5000))}}`,
    () => JSON.stringify({ userId: 'u1', key: 'note', visibility: 'global', value: `token ${SECRET}` }),
    () => `not json ${SECRET} at all`,
    () => JSON.stringify({ userId: 'u1', key: 'k'.repeat(Math.floor(random() * 600)), visibility: 'global', value: 'v'.repeat(Math.floor(random() * 70000)) }),
    () => '',
  ];
  return () => pick(kinds)();
}

test('2,000 seeded hostile REST bodies: each is an answer with a documented status and code, no secret echoed, and the next request works', async () => {
  const entries = new m.InMemoryEntryStore();
  const handler = createMemoryHandler({ entries, authenticate, now: () => '2026-12-01T10:00:00Z', newId: (() => { let n = 0; return () => `id-${++n}`; })() });
  const random = prng(20261201);
  const next = bodies(random);
  const statuses = new Map();
  for (let i = 0; i < 2000; i++) {
    const body = next();
    const type = random() < 0.9 ? 'application/json' : random() < 0.5 ? 'text/plain' : '';
    const path = random() < 0.85 ? '/usermemorystore/memories' : '/propertiesstore/properties/u1';
    const headers = type ? { ...auth, 'content-type': type } : auth;
    const response = await handler(new Request(`http://x${path}`, { method: 'PUT', headers, body }));
    assert.ok([200, 201, 400, 409, 413, 415].includes(response.status), `request ${i}: status ${response.status}`);
    const text = await response.text();
    assert.ok(!text.includes(SECRET), `request ${i}: the answer echoes the secret`);
    if (response.status >= 400) assert.match(JSON.parse(text).error.code, /^E_[A-Z_]+$/, `request ${i}`);
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  }
  const ok = await handler(new Request('http://x/usermemorystore/memories', { method: 'PUT', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ userId: 'u1', key: 'final', value: 'works', visibility: 'global' }) }));
  assert.equal(ok.status, 201);
  console.log(`# statuses: ${[...statuses].sort().map(([s, n]) => `${s}×${n}`).join(', ')}`);
  assert.ok(statuses.get(400) > 100 && (statuses.get(201) ?? 0) + (statuses.get(200) ?? 0) > 50, 'both kinds are exercised');
});

// The real local embedding model behind the loopback OpenAI-compatible server
// (scripts/embeddings/server.mjs): vector shape and meaning, the answer and error shapes, the
// caches, and that the committed vectors (tests/vectors/search/embeddings.json) are this model's.
// Needs `scripts/setup.sh --model` (the model files in target/model/).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddingServer, MAX_BODY_BYTES } from '../../scripts/embeddings/server.mjs';

const MODEL = 'all-minilm-l6-v2-int8';
const committed = JSON.parse(
  readFileSync(new URL('../vectors/search/embeddings.json', import.meta.url), 'utf8'),
);

let server;
before(async () => {
  server = await startEmbeddingServer();
});
after(() => server?.close());

async function post(body, { raw = false } = {}) {
  const response = await fetch(`${server.url}/embeddings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: raw ? body : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
const norm = (a) => Math.sqrt(dot(a, a));

function assertOpenAIError(answer, status, param) {
  assert.equal(answer.status, status);
  const { error } = answer.body;
  assert.equal(typeof error.message, 'string');
  assert.ok(error.message.length > 0);
  assert.equal(error.type, 'invalid_request_error');
  assert.equal(error.param, param);
  assert.ok('code' in error);
}

test('three texts answer three unit vectors of 384 floats in the OpenAI shape', async () => {
  const input = ['which city do I live in', 'home_city: Lisbon', 'favorite_color: forest green'];
  const { status, body } = await post({ model: MODEL, input });
  assert.equal(status, 200);
  assert.equal(body.object, 'list');
  assert.equal(body.model, MODEL);
  assert.deepEqual(
    body.data.map((d) => [d.object, d.index]),
    [['embedding', 0], ['embedding', 1], ['embedding', 2]],
  );
  for (const { embedding } of body.data) {
    assert.equal(embedding.length, 384);
    assert.ok(embedding.every(Number.isFinite));
    assert.ok(Math.abs(norm(embedding) - 1) < 1e-5);
  }
  // WordPiece with [CLS] and [SEP]: "[CLS] which city do i live in [SEP]" (8),
  // "[CLS] home _ city : lisbon [SEP]" (7), "[CLS] favorite _ color : forest green [SEP]" (8).
  assert.deepEqual(body.usage, { prompt_tokens: 23, total_tokens: 23 });
  const [question, city, colour] = body.data.map((d) => d.embedding);
  const related = dot(question, city);
  const unrelated = dot(question, colour);
  assert.ok(related > 0.35, `cos(question, home_city) = ${related}`);
  assert.ok(related > unrelated + 0.2, `related ${related}, unrelated ${unrelated}`);
});

test('a single string input, and base64 as little-endian f32 equal to the floats', async () => {
  const text = 'dog_name: Rex, a golden retriever';
  const floats = await post({ model: MODEL, input: text, encoding_format: 'float', dimensions: 384 });
  const packed = await post({ model: MODEL, input: [text], encoding_format: 'base64' });
  assert.equal(floats.status, 200);
  assert.equal(packed.status, 200);
  const bytes = Buffer.from(packed.body.data[0].embedding, 'base64');
  assert.equal(bytes.length, 384 * 4);
  const decoded = Array.from({ length: 384 }, (_, i) => bytes.readFloatLE(i * 4));
  assert.deepEqual(decoded, floats.body.data[0].embedding);
});

test('the committed vectors are this model\'s (within their 6-decimal rounding)', async () => {
  assert.equal(committed.model, MODEL);
  const picked = [committed.entries[0], committed.entries[25], committed.entries[26]];
  const { body } = await post({ model: MODEL, input: picked.map((e) => e.text) });
  picked.forEach((entry, i) => {
    const fresh = body.data[i].embedding;
    const drift = Math.max(...fresh.map((x, d) => Math.abs(x - entry.vector[d])));
    assert.ok(drift < 2e-6, `${entry.key}: max drift ${drift}`);
  });
  const query = committed.queries[1];
  const answer = await post({ model: MODEL, input: query.q });
  const fresh = answer.body.data[0].embedding;
  assert.ok(Math.max(...fresh.map((x, d) => Math.abs(x - query.vector[d]))) < 2e-6);
});

test('a text seen before is answered from the in-process cache, identically', async () => {
  const text = 'coffee_order: flat white with oat milk';
  const first = await post({ model: MODEL, input: [text] });
  const embedded = server.stats.embedded;
  const hits = server.stats.memoryHits;
  const second = await post({ model: MODEL, input: [text, text] });
  assert.equal(server.stats.embedded, embedded);
  assert.equal(server.stats.memoryHits, hits + 1);
  assert.deepEqual(second.body.data[0].embedding, first.body.data[0].embedding);
  assert.deepEqual(second.body.data[1].embedding, first.body.data[0].embedding);
});

test('the file cache answers a second server without running the model for cached texts', async (t) => {
  const cacheDir = mkdtempSync(join(tmpdir(), 'memcore-embeddings-'));
  t.after(() => rmSync(cacheDir, { recursive: true, force: true }));
  const texts = ['allergies: ["peanuts","penicillin"]', 'birth_year: 1988'];
  const one = await startEmbeddingServer({ cacheDir });
  let firstVectors;
  try {
    const r = await fetch(`${one.url}/embeddings`, {
      method: 'POST',
      body: JSON.stringify({ model: MODEL, input: texts }),
    }).then((res) => res.json());
    firstVectors = r.data.map((d) => d.embedding);
    assert.equal(one.stats.embedded, 2);
  } finally {
    await one.close();
  }
  const two = await startEmbeddingServer({ cacheDir });
  try {
    const r = await fetch(`${two.url}/embeddings`, {
      method: 'POST',
      body: JSON.stringify({ model: MODEL, input: texts }),
    }).then((res) => res.json());
    assert.equal(two.stats.embedded, 0);
    assert.equal(two.stats.fileHits, 2);
    assert.deepEqual(r.data.map((d) => d.embedding), firstVectors);
  } finally {
    await two.close();
  }
});

test('bad JSON is a 400 in OpenAI\'s error shape', async () => {
  const answer = await post('{"model": "all-minilm', { raw: true });
  assertOpenAIError(answer, 400, null);
  assert.match(answer.body.error.message, /parse the JSON body/);
});

test('a missing, empty or non-string input is a 400 naming input', async () => {
  assertOpenAIError(await post({ model: MODEL }), 400, 'input');
  assertOpenAIError(await post({ model: MODEL, input: [] }), 400, 'input');
  assertOpenAIError(await post({ model: MODEL, input: [''] }), 400, 'input');
  assertOpenAIError(await post({ model: MODEL, input: [1, 2] }), 400, 'input');
  assertOpenAIError(await post({ model: MODEL, input: { text: 'x' } }), 400, 'input');
  assertOpenAIError(await post([MODEL]), 400, null);
});

test('other bad fields: a model it lacks is a 404, a wrong dimension or format a 400', async () => {
  const unknown = await post({ model: 'text-embedding-3-small', input: 'x' });
  assertOpenAIError(unknown, 404, 'model');
  assert.equal(unknown.body.error.code, 'model_not_found');
  assertOpenAIError(await post({ input: 'x' }), 400, 'model');
  assertOpenAIError(await post({ model: MODEL, input: 'x', dimensions: 256 }), 400, 'dimensions');
  assertOpenAIError(
    await post({ model: MODEL, input: 'x', encoding_format: 'int8' }),
    400,
    'encoding_format',
  );
});

test('a body over the limit is a 413, and the server keeps answering', async () => {
  const big = 'a '.repeat(MAX_BODY_BYTES / 2 + 16);
  const answer = await post({ model: MODEL, input: big });
  assertOpenAIError(answer, 413, null);
  const after = await post({ model: MODEL, input: 'still here' });
  assert.equal(after.status, 200);
});

test('an input longer than 256 tokens is truncated, not refused', async () => {
  const long = 'memory '.repeat(2000);
  const { status, body } = await post({ model: MODEL, input: long });
  assert.equal(status, 200);
  assert.equal(body.usage.prompt_tokens, 256);
  assert.ok(Math.abs(norm(body.data[0].embedding) - 1) < 1e-5);
});

test('an unknown route is a 404; the server refuses to listen beyond loopback', async () => {
  const response = await fetch(`${server.url}/models`);
  assert.equal(response.status, 404);
  assert.equal((await response.json()).error.type, 'invalid_request_error');
  await assert.rejects(startEmbeddingServer({ host: '0.0.0.0' }), /127\.0\.0\.1/);
});

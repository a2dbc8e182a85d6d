// The bundled embedders through the installed package: openAIEmbeddings against a mock
// OpenAI-compatible server on 127.0.0.1 that this test starts itself (request shape, batching,
// index order, dimensions, base64 answers, Azure URLs, auth, HTTP errors, timeout, abort, the size
// cap, malformed answers, the key and the texts never in errors), and workersAIEmbeddings over
// fake bindings (plain objects with `run`). workerd runs the Workers AI adapter in
// tests/smoke/workers-ai.test.mjs. No real network.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { getEventListeners } from 'node:events';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemcoreError } from 'memcore';
import { openAIChatModel, openAIEmbeddings } from 'memcore/adapters/openai';
import { workersAIEmbeddings } from 'memcore/adapters/workers-ai';
import { typeErrors } from '../support/typecheck.mjs';

const API_KEY = 'sk-embed-SECRET-0123456789';
// Personal data, as entries hold it: it must never reach an error.
const PRIVATE = 'diagnosis: Ana was treated for asthma at Hospital Santa Maria in 2024';
const GUARD = { timeout: 20000 };

let server;
let baseURL;
let handler;
const received = [];

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ method: req.method, url: req.url, headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${server.address().port}/v1`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A deterministic vector for a text: [length, first char code, 1, -0.5] (exact in f32). */
const vectorFor = (text) => [text.length, text.charCodeAt(0) || 0, 1, -0.5];

function send(res, status, payload, headers = {}) {
  // No keep-alive: every request gets a fresh connection, so one test's sockets cannot affect the next.
  res.writeHead(status, { 'content-type': 'application/json', connection: 'close', ...headers });
  res.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
}

/** An OpenAI-style answer to the request body: `shape(items)` may reorder or corrupt the items. */
function answerEmbeddings(shape = (items) => items, encode = (v) => v) {
  handler = (req, res, body) => {
    const { input, model } = JSON.parse(body);
    const items = input.map((text, index) => ({ object: 'embedding', index, embedding: encode(vectorFor(text)) }));
    send(res, 200, { object: 'list', data: shape(items), model, usage: { prompt_tokens: 3, total_tokens: 3 } });
  };
}

const embedder = (options = {}) => openAIEmbeddings({ baseURL, apiKey: API_KEY, model: 'emb-test', ...options });
const request = (texts, extra = {}) => ({ texts, purpose: 'document', signal: new AbortController().signal, ...extra });
const plain = (vectors) => vectors.map((v) => Array.from(v));

function assertNoSecrets(error) {
  const everything = `${error.message}\n${JSON.stringify(error.details)}\n${error.stack}`;
  assert.ok(!everything.includes(API_KEY), 'the API key leaked into the error');
  assert.ok(!everything.includes('SECRET'), 'part of the API key leaked into the error');
  assert.ok(!everything.includes('asthma') && !everything.includes('Santa Maria'), 'an input text leaked into the error');
}

const hostError = (expected, message) => (e) => {
  assert.ok(e instanceof MemcoreError, String(e));
  assert.equal(e.code, 'E_HOST', e.message);
  for (const [k, v] of Object.entries(expected)) assert.deepEqual(e.details[k], v, k);
  if (message) assert.match(e.message, message);
  assertNoSecrets(e);
  return true;
};

// ── openAIEmbeddings: requests and answers ──────────────────────────────────────────────────────

test('request shape: POST /v1/embeddings, JSON body, bearer key, extra headers; Float32Array vectors in order', async () => {
  received.length = 0;
  answerEmbeddings();
  const e = embedder({ headers: { 'X-Gateway': 'g1' } });
  assert.deepEqual({ model: e.model, dimensions: e.dimensions, maxBatch: e.maxBatch }, { model: 'emb-test', dimensions: undefined, maxBatch: 64 });
  const answer = await e.embed(request(['home_city: Lisbon', 'dog_name: Rex']));
  assert.equal(answer.model, 'emb-test');
  assert.ok(answer.vectors.every((v) => v instanceof Float32Array));
  assert.deepEqual(plain(answer.vectors), [vectorFor('home_city: Lisbon'), vectorFor('dog_name: Rex')]);
  assert.equal(received.length, 1);
  const [r] = received;
  assert.equal(r.method, 'POST');
  assert.equal(r.url, '/v1/embeddings');
  assert.equal(r.headers.authorization, `Bearer ${API_KEY}`);
  assert.equal(r.headers['content-type'], 'application/json');
  assert.equal(r.headers['x-gateway'], 'g1');
  assert.deepEqual(JSON.parse(r.body), { model: 'emb-test', input: ['home_city: Lisbon', 'dog_name: Rex'], encoding_format: 'float' });
});

test('no apiKey: no authorization header; a trailing slash on baseURL is fine; no texts: no request', async () => {
  received.length = 0;
  answerEmbeddings();
  const e = openAIEmbeddings({ baseURL: `${baseURL}/`, model: 'nomic-embed-text' });
  assert.deepEqual(await e.embed(request([])), { vectors: [], model: 'nomic-embed-text' });
  assert.equal(received.length, 0);
  await e.embed(request(['x']));
  assert.equal(received[0].url, '/v1/embeddings');
  assert.equal(received[0].headers.authorization, undefined);
});

test('batching: texts go in maxBatch-sized requests, in order, and the vectors come back in input order', async () => {
  received.length = 0;
  answerEmbeddings();
  const texts = Array.from({ length: 7 }, (_, i) => `${String.fromCharCode(97 + i)}-fact-${'x'.repeat(i)}`);
  const answer = await embedder({ maxBatch: 3 }).embed(request(texts));
  assert.deepEqual(received.map((r) => JSON.parse(r.body).input), [texts.slice(0, 3), texts.slice(3, 6), texts.slice(6)]);
  assert.deepEqual(plain(answer.vectors), texts.map(vectorFor));
  // The default batch is 64: 65 texts are two requests.
  received.length = 0;
  await embedder().embed(request(Array.from({ length: 65 }, (_, i) => `t${i}`)));
  assert.deepEqual(received.map((r) => JSON.parse(r.body).input.length), [64, 1]);
});

test('answers are put in order by data[i].index', async () => {
  answerEmbeddings((items) => [items[2], items[0], items[1]]);
  const texts = ['alpha', 'bravo!', 'charlie'];
  assert.deepEqual(plain((await embedder().embed(request(texts))).vectors), texts.map(vectorFor));
  // A server that sends no index at all is taken in answer order.
  answerEmbeddings((items) => items.map(({ index, ...rest }) => rest));
  assert.deepEqual(plain((await embedder().embed(request(texts))).vectors), texts.map(vectorFor));
});

test('dimensions: sent, checked on every vector, and part of the model id', async () => {
  received.length = 0;
  answerEmbeddings();
  const e = embedder({ dimensions: 4 });
  assert.equal(e.model, 'emb-test@4');
  assert.equal(e.dimensions, 4);
  assert.deepEqual(await e.embed(request(['abc'])).then((a) => [a.model, plain(a.vectors)]), ['emb-test@4', [vectorFor('abc')]]);
  assert.deepEqual(JSON.parse(received[0].body), { model: 'emb-test', input: ['abc'], encoding_format: 'float', dimensions: 4 });
  await assert.rejects(embedder({ dimensions: 8 }).embed(request(['abc'])), hostError({ status: 200, transient: false }, /4 components, not the 8 of dimensions/));
});

test('queryPrefix and documentPrefix are prepended by purpose; none by default', async () => {
  received.length = 0;
  answerEmbeddings();
  const e = embedder({ queryPrefix: 'query: ', documentPrefix: 'passage: ' });
  await e.embed(request(['dog name'], { purpose: 'query' }));
  await e.embed(request(['dog_name: Rex'], { purpose: 'document' }));
  await embedder().embed(request(['dog name'], { purpose: 'query' }));
  assert.deepEqual(received.map((r) => JSON.parse(r.body).input), [['query: dog name'], ['passage: dog_name: Rex'], ['dog name']]);
});

test('base64 answers (little-endian f32) are decoded, whatever the request asked for', async () => {
  const b64 = (v) => Buffer.from(new Float32Array(v).buffer).toString('base64');
  answerEmbeddings(undefined, b64);
  const texts = ['one', 'two words'];
  assert.deepEqual(plain((await embedder().embed(request(texts))).vectors), texts.map(vectorFor));
  // Values that need f32's full precision survive exactly.
  const exact = [0.1, -1e-7, 3.4e38, 1.17549435e-38].map(Math.fround);
  handler = (req, res) => send(res, 200, { data: [{ index: 0, embedding: b64(exact) }] });
  assert.deepEqual(plain((await embedder().embed(request(['x']))).vectors), [exact]);
  // Not base64, a length that is not whole f32 values, NaN inside: E_HOST.
  for (const [embedding, why] of [
    ['!!not base64!!', /not base64/],
    [Buffer.from([1, 2, 3]).toString('base64'), /3 bytes, not a whole number of f32/],
    [b64([1, NaN, 2]), /embedding\[1\] is not a finite f32/],
  ]) {
    handler = (req, res) => send(res, 200, { data: [{ index: 0, embedding }] });
    await assert.rejects(embedder().embed(request(['x'])), hostError({ status: 200, transient: false }, why));
  }
});

test("Azure: the query string is kept after the appended path, api-key header, values redacted from errors", async () => {
  received.length = 0;
  answerEmbeddings();
  const azure = `${baseURL.replace('/v1', '')}/openai/deployments/emb?api-version=2024-10-21`;
  const e = openAIEmbeddings({ baseURL: azure, model: 'text-embedding-3-small', headers: { 'api-key': 'azure-KEY-SECRET-42' } });
  await e.embed(request(['x']));
  assert.equal(received[0].url, '/openai/deployments/emb/embeddings?api-version=2024-10-21');
  assert.equal(received[0].headers['api-key'], 'azure-KEY-SECRET-42');
  assert.equal(received[0].headers.authorization, undefined);
  handler = (req, res) => send(res, 404, { error: { message: 'DeploymentNotFound; key azure-KEY-SECRET-42' } });
  await assert.rejects(e.embed(request(['x'])), (err) => {
    hostError({ status: 404, transient: false }, /\/openai\/deployments\/emb\/embeddings\?api-version=\[REDACTED\] failed with HTTP 404; check baseURL and the model name/)(err);
    assert.ok(!JSON.stringify(err.details).includes('azure-KEY'));
    return true;
  });
});

// ── openAIEmbeddings: errors ────────────────────────────────────────────────────────────────────

test('HTTP 401, 429 and 500 are E_HOST with status, transient, retryAfterMs and a redacted body', async () => {
  const cases = [
    [401, false, /check the API key/, {}, null],
    [429, true, /rate limited; retry later/, { 'retry-after': '7' }, 7000],
    [500, true, /the provider failed; retry later/, {}, null],
    [400, false, /check the request options \(model, dimensions, input length\)/, {}, null],
  ];
  for (const [status, transient, hint, headers, retryAfterMs] of cases) {
    handler = (req, res) => send(res, status, { error: { message: `failed ${status} for key ${API_KEY}` } }, headers);
    await assert.rejects(embedder().embed(request(['x'])), (e) => {
      hostError({ status, transient, retryAfterMs }, new RegExp(`^embedding request to http://127\\.0\\.0\\.1:\\d+/v1/embeddings failed with HTTP ${status}`))(e);
      assert.match(e.message, hint);
      assert.match(e.details.body, new RegExp(`failed ${status} for key \\[REDACTED\\]`));
      return true;
    });
  }
});

test('an error body that quotes the input texts is left out of the error', async () => {
  handler = (req, res, body) => send(res, 400, { error: { message: `input too long: ${JSON.parse(body).input[1].slice(0, 40)}…` } });
  await assert.rejects(embedder().embed(request(['short one', PRIVATE])), (e) => {
    hostError({ status: 400, transient: false, body: '[left out: it quoted the texts being embedded]' })(e);
    return true;
  });
  // A body that does not quote them is kept.
  handler = (req, res) => send(res, 400, { error: { message: 'maximum context length is 8192 tokens' } });
  await assert.rejects(embedder().embed(request([PRIVATE])), (e) => hostError({ status: 400 })(e) && /8192 tokens/.test(e.details.body));
});

test('timeoutMs: a server that hangs is a transient E_HOST timeout', GUARD, async () => {
  handler = () => {}; // never answer
  await assert.rejects(embedder({ timeoutMs: 100 }).embed(request([PRIVATE])), hostError({ status: null, transient: true }, /^embedding request timed out after 100 ms; retry, or raise timeoutMs$/));
});

test('request.signal: aborting while the server hangs cancels the call and leaves no listener', GUARD, async () => {
  const controller = new AbortController();
  let closed;
  const connectionClosed = new Promise((resolve) => (closed = resolve));
  handler = (req, res) => {
    res.on('close', closed);
    controller.abort(); // the request reached the server; the caller gives up now
  };
  await assert.rejects(embedder().embed(request([PRIVATE], { signal: controller.signal })), hostError({ status: null, transient: true, cancelled: true }, /^embedding request was cancelled/));
  await connectionClosed;
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  // An already aborted signal sends nothing.
  received.length = 0;
  await assert.rejects(embedder().embed(request(['x'], { signal: AbortSignal.abort() })), hostError({ cancelled: true }));
  assert.equal(received.length, 0);
});

test('an answer over maxResponseBytes (50 MB streamed) is refused at the default 16 MiB cap, and the stream is torn down', GUARD, async () => {
  let closed;
  const connectionClosed = new Promise((resolve) => (closed = resolve));
  let written = 0;
  handler = (req, res) => {
    res.on('close', closed);
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = `${'0.123456789,'.repeat(8738)}`; // ~100 KiB of a never-ending vector
    res.write('{"data":[{"index":0,"embedding":[');
    const pump = () => {
      while (written < 50e6) {
        written += chunk.length;
        if (!res.write(chunk)) return res.once('drain', pump);
      }
      res.end('1]}]}');
    };
    pump();
  };
  await assert.rejects(embedder().embed(request(['x'])), hostError({ status: 200, transient: false, limitBytes: 16 * 1024 * 1024 }, /larger than maxResponseBytes \(16777216 bytes\)/));
  await connectionClosed;
  assert.ok(written < 50e6, `the server was stopped before it sent everything (${written} bytes written)`);
});

test('wrong number of vectors, wrong or repeated index: E_HOST naming the problem', async () => {
  const cases = [
    [(items) => items.slice(1), /answered 1 vectors for 2 texts/],
    [(items) => [...items, items[0]], /answered 3 vectors for 2 texts/],
    [(items) => [items[0], { ...items[1], index: 0 }], /has index 0 twice/],
    [(items) => [items[0], { ...items[1], index: 2 }], /data\[1\]\.index that is not an integer from 0 to 1/],
    [(items) => [items[0], { ...items[1], index: '1' }], /data\[1\]\.index that is not an integer/],
    [(items) => [items[0], null], /data\[1\] that is not an object/],
  ];
  for (const [shape, why] of cases) {
    answerEmbeddings(shape);
    await assert.rejects(embedder().embed(request(['a text', PRIVATE])), hostError({ status: 200, transient: false }, why));
  }
});

test('null or string components, empty or ragged vectors, huge numbers, no data: clear E_HOST', async () => {
  const cases = [
    [{ data: [{ index: 0, embedding: [0.1, null, 0.3] }] }, /data\[0\]\.embedding\[1\] is null, not a number/],
    [{ data: [{ index: 0, embedding: [0.1, '0.2'] }] }, /data\[0\]\.embedding\[1\] is a string, not a number/],
    [{ data: [{ index: 0, embedding: [[0.1], 0.2] }] }, /data\[0\]\.embedding\[0\] is an array, not a number/],
    [{ data: [{ index: 0, embedding: [] }] }, /data\[0\]\.embedding is empty/],
    [{ data: [{ index: 0 }] }, /data\[0\]\.embedding is missing, not an array of numbers/],
    [{ data: [{ index: 0, embedding: { 0: 1 } }] }, /data\[0\]\.embedding is an object, not an array of numbers/],
    [{ data: [{ index: 0, embedding: [1e39, 1] }] }, /data\[0\]\.embedding\[0\] is not a finite f32 \(Infinity\)/],
    [{ embeddings: [[1, 2]] }, /has no data array/],
  ];
  for (const [payload, why] of cases) {
    handler = (req, res) => send(res, 200, payload);
    await assert.rejects(embedder().embed(request([PRIVATE])), hostError({ status: 200, transient: false }, why));
  }
  handler = (req, res) => send(res, 200, { data: [{ index: 0, embedding: [1, 2] }, { index: 1, embedding: [1, 2, 3] }] });
  await assert.rejects(embedder().embed(request(['a', 'b'])), hostError({ status: 200 }, /vector 1 has 3 components and vector 0 has 2/));
  handler = (req, res) => send(res, 200, 'not json at all');
  await assert.rejects(embedder().embed(request(['a'])), hostError({ status: 200, transient: false, body: 'not json at all' }, /is not JSON/));
  // Batches that disagree on the length are refused too.
  let calls = 0;
  handler = (req, res) => send(res, 200, { data: [{ index: 0, embedding: calls++ === 0 ? [1, 2] : [1, 2, 3] }] });
  await assert.rejects(embedder({ maxBatch: 1 }).embed(request(['a', 'b'])), hostError({ status: null }, /disagree: vector 1 has 3 components and vector 0 has 2/));
});

test('redirects follow the chat adapter: cross-origin refused, texts never sent there', async () => {
  received.length = 0;
  handler = (req, res) => send(res, 307, '', { location: 'http://127.0.0.2:9/v1/embeddings' });
  await assert.rejects(embedder().embed(request([PRIVATE])), hostError({ status: 307, transient: false, redirect: 'http://127.0.0.2:9' }, /^refusing a cross-origin redirect/));
  assert.equal(received.length, 1);
});

test('a network failure is a transient E_HOST before a response', async () => {
  const closed = createServer();
  await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = closed.address().port;
  await new Promise((resolve) => closed.close(resolve));
  const e = openAIEmbeddings({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: API_KEY, model: 'm' });
  await assert.rejects(e.embed(request([PRIVATE])), hostError({ status: null, transient: true }, /failed before a response/));
});

test('bad options are E_CONFIG with details.path, the key never echoed; bad requests are E_ARGUMENT', async () => {
  const bad = [
    [{ model: 'm' }, 'baseURL'],
    [{ baseURL, model: '' }, 'model'],
    [{ baseURL: `http://u:${API_KEY}@127.0.0.1/v1`, model: 'm' }, 'baseURL'],
    [{ baseURL, model: 'm', dimensions: 0 }, 'dimensions'],
    [{ baseURL, model: 'm', dimensions: 1.5 }, 'dimensions'],
    [{ baseURL, model: 'm', maxBatch: 0 }, 'maxBatch'],
    [{ baseURL, model: 'm', maxBatch: 4096 }, 'maxBatch'],
    [{ baseURL, model: 'm', queryPrefix: 1 }, 'queryPrefix'],
    [{ baseURL, model: 'm', documentPrefix: null }, 'documentPrefix'],
    [{ baseURL, model: 'm', maxResponseBytes: -1 }, 'maxResponseBytes'],
    [{ baseURL, model: 'm', timeoutMs: 0 }, 'timeoutMs'],
    [{ baseURL, model: 'm', headers: { 'x-a': 1 } }, 'headers.x-a'],
  ];
  for (const [options, path] of bad) {
    assert.throws(() => openAIEmbeddings({ apiKey: API_KEY, ...options }), (e) => {
      assert.ok(e instanceof MemcoreError && e.code === 'E_CONFIG', String(e));
      assert.equal(e.details.path, path);
      assert.match(e.message, /^openAIEmbeddings/);
      assert.ok(!e.message.includes(API_KEY));
      return true;
    });
  }
  assert.throws(() => openAIEmbeddings(null), (e) => e.code === 'E_CONFIG' && e.details.path === 'options');
  received.length = 0;
  const e = embedder();
  for (const req of [null, { texts: 'x', purpose: 'document' }, { texts: [1], purpose: 'document' }, { texts: ['x'], purpose: 'search' }, { texts: ['x'], purpose: 'query', signal: {} }]) {
    await assert.rejects(e.embed(req), (err) => err instanceof MemcoreError && err.code === 'E_ARGUMENT' && err.details.function === 'embed');
  }
  assert.equal(received.length, 0);
});

test('the chat adapter and the embedder share one HTTP module: both keep their own names in errors', async () => {
  handler = (req, res) => send(res, 500, 'down');
  await assert.rejects(openAIChatModel({ baseURL, model: 'm' }).complete({ purpose: 'gate', system: 's', user: 'u', maxOutputTokens: 1 }), /^MemcoreError: model request to .*chat\/completions failed with HTTP 500/);
  await assert.rejects(openAIEmbeddings({ baseURL, model: 'm' }).embed(request(['u'])), /^MemcoreError: embedding request to .*\/embeddings failed with HTTP 500/);
});

// ── workersAIEmbeddings over fake bindings ──────────────────────────────────────────────────────

/** A fake binding: answers like Workers AI (`{ shape, data, pooling }`), and records its calls. */
function fakeAI(answer = (texts) => ({ shape: [texts.length, 4], data: texts.map(vectorFor), pooling: 'mean' })) {
  const calls = [];
  return {
    calls,
    async run(model, inputs, options) {
      calls.push({ model, inputs, options });
      return answer(inputs.text, options);
    },
  };
}

test('workers AI: run(model, { text }, { signal }) with the default model; vectors in order; batches', async () => {
  const ai = fakeAI();
  const e = workersAIEmbeddings({ ai, dimensions: 4, maxBatch: 2 });
  assert.deepEqual({ model: e.model, dimensions: e.dimensions, maxBatch: e.maxBatch }, { model: '@cf/baai/bge-small-en-v1.5', dimensions: 4, maxBatch: 2 });
  const signal = new AbortController().signal;
  const texts = ['a', 'bb', 'ccc'];
  const answer = await e.embed({ texts, purpose: 'document', signal });
  assert.deepEqual(answer.model, '@cf/baai/bge-small-en-v1.5');
  assert.ok(answer.vectors.every((v) => v instanceof Float32Array));
  assert.deepEqual(plain(answer.vectors), texts.map(vectorFor));
  assert.deepEqual(ai.calls.map((c) => [c.model, c.inputs]), [['@cf/baai/bge-small-en-v1.5', { text: ['a', 'bb'] }], ['@cf/baai/bge-small-en-v1.5', { text: ['ccc'] }]]);
  assert.ok(ai.calls.every((c) => c.options.signal === signal));
  assert.equal(getEventListeners(signal, 'abort').length, 0);
});

test('workers AI: dimensions known for the bge models, learned from the first answer for others', async () => {
  assert.equal(workersAIEmbeddings({ ai: fakeAI() }).dimensions, 384);
  assert.equal(workersAIEmbeddings({ ai: fakeAI(), model: '@cf/baai/bge-base-en-v1.5' }).dimensions, 768);
  const e = workersAIEmbeddings({ ai: fakeAI(), model: '@cf/other/embedder' });
  assert.equal(e.dimensions, undefined);
  await e.embed({ texts: ['x'], purpose: 'query' });
  assert.equal(e.dimensions, 4);
  // The default model's 384 is checked: a 4-long answer is refused.
  await assert.rejects(workersAIEmbeddings({ ai: fakeAI() }).embed({ texts: [PRIVATE], purpose: 'query' }), hostError({ model: '@cf/baai/bge-small-en-v1.5', transient: false }, /4 components, not the 384 of dimensions/));
});

test('workers AI: a wrong answer shape is E_HOST with the model name, never the texts', async () => {
  const model = '@cf/test/emb';
  const cases = [
    [() => undefined, /answered nothing/],
    [() => 'vectors', /answered a string, not \{ shape, data \}/],
    [() => ({ request_id: 'r1' }), /async request id/],
    [() => ({ shape: [1, 4] }), /no data array/],
    [(texts) => ({ data: texts.slice(1).map(vectorFor) }), /answered 1 vectors for 2 texts/],
    [(texts) => ({ data: [vectorFor(texts[0]), [1, null, 3, 4]] }), /data\[1\]\[1\] is null, not a number/],
    [(texts) => ({ data: [vectorFor(texts[0]), [1, 2, 3, NaN]] }), /data\[1\]\[3\] is not a finite f32 \(NaN\)/],
    [(texts) => ({ data: [vectorFor(texts[0]), [1, 2]] }), /vector 1 has 2 components and vector 0 has 4/],
    [(texts) => ({ shape: [2, 5], data: texts.map(vectorFor) }), /a shape that is not \[2, 4\]/],
    [() => ({ get data() { throw new Error(PRIVATE); } }), /an object that cannot be read/],
  ];
  for (const [answer, why] of cases) {
    await assert.rejects(
      workersAIEmbeddings({ ai: fakeAI(answer), model }).embed({ texts: ['first text', PRIVATE], purpose: 'document' }),
      hostError({ model, transient: false }, new RegExp(`^Workers AI model @cf/test/emb [^]*${why.source}`)),
    );
  }
});

test('workers AI: a throwing binding is E_HOST with its code and transient flag; a message quoting the texts is left out', async () => {
  const throwing = (error) => ({ run: () => { throw error; } });
  const model = '@cf/baai/bge-base-en-v1.5';
  await assert.rejects(workersAIEmbeddings({ ai: throwing(new Error('3040: Capacity temporarily exceeded')), model }).embed({ texts: [PRIVATE], purpose: 'document' }), (e) => {
    hostError({ model, transient: true, code: 3040 }, /^Workers AI model @cf\/baai\/bge-base-en-v1\.5 failed \(3040: Capacity temporarily exceeded\); retry later$/)(e);
    return true;
  });
  const rejecting = { run: async () => { throw new Error('5007: No such model @cf/baai/bge-base-en-v1.5 or task'); } };
  await assert.rejects(workersAIEmbeddings({ ai: rejecting, model }).embed({ texts: ['x'], purpose: 'document' }), hostError({ model, transient: false, code: 5007 }, /check the model id/));
  const echo = { run: async (m, { text }) => { throw new Error(`5006: oneOf at '/text' not satisfied: ${text[0].slice(10, 50)}`); } };
  await assert.rejects(workersAIEmbeddings({ ai: echo, model }).embed({ texts: [PRIVATE], purpose: 'document' }), hostError({ model, code: 5006 }, /its message quoted the texts being embedded and is left out/));
  const hostile = { run: async () => { throw { get message() { throw new Error('boom'); } }; } };
  await assert.rejects(workersAIEmbeddings({ ai: hostile, model }).embed({ texts: ['x'], purpose: 'document' }), hostError({ model, transient: true }, /failed \(no message\)/));
});

test('workers AI: the signal cancels a binding that hangs (even one ignoring the signal); bad options and requests', GUARD, async () => {
  const controller = new AbortController();
  const hanging = { run: () => new Promise(() => {}) };
  const pending = workersAIEmbeddings({ ai: hanging }).embed({ texts: [PRIVATE], purpose: 'document', signal: controller.signal });
  controller.abort();
  await assert.rejects(pending, hostError({ model: '@cf/baai/bge-small-en-v1.5', transient: true, cancelled: true }, /cancelled/));
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  const ai = fakeAI();
  await assert.rejects(workersAIEmbeddings({ ai }).embed({ texts: ['x'], purpose: 'document', signal: AbortSignal.abort() }), hostError({ cancelled: true }));
  assert.equal(ai.calls.length, 0);
  // Aborted between two batches (an AbortSignal-like whose event the adapter cannot see any more):
  // the next batch is never sent.
  const between = { aborted: false, addEventListener() {}, removeEventListener() {} };
  const aborting = fakeAI((texts) => ((between.aborted = true), { data: texts.map(vectorFor) }));
  await assert.rejects(workersAIEmbeddings({ ai: aborting, maxBatch: 1, dimensions: 4 }).embed({ texts: ['a', 'b'], purpose: 'document', signal: between }), hostError({ cancelled: true }));
  assert.equal(aborting.calls.length, 1);
  for (const [options, path] of [[{}, 'ai'], [{ ai: {} }, 'ai'], [{ ai, model: '' }, 'model'], [{ ai, maxBatch: 0 }, 'maxBatch'], [{ ai, dimensions: -1 }, 'dimensions'], [null, 'options']]) {
    assert.throws(() => workersAIEmbeddings(options), (e) => e instanceof MemcoreError && e.code === 'E_CONFIG' && e.details.path === path);
  }
  await assert.rejects(workersAIEmbeddings({ ai }).embed({ texts: 'x', purpose: 'document' }), (e) => e.code === 'E_ARGUMENT');
});

// ── typings ─────────────────────────────────────────────────────────────────────────────────────

test('the embedder typings compile with tsc --strict against the installed package', (t) => {
  const dir = fileURLToPath(new URL('../../target/embeddings-types/', import.meta.url));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'usage.ts');
  writeFileSync(
    file,
    `import type { Embedder, EmbedRequest, EmbedResult } from 'memcore';
import { openAIEmbeddings, type OpenAIEmbedder, type ModelErrorDetails } from 'memcore/adapters/openai';
import { workersAIEmbeddings, type WorkersAIBinding, type WorkersAIErrorDetails } from 'memcore/adapters/workers-ai';

export async function use(binding: WorkersAIBinding): Promise<number> {
  const openai: OpenAIEmbedder = openAIEmbeddings({ baseURL: 'http://127.0.0.1:11434/v1', model: 'nomic-embed-text', dimensions: 256, maxBatch: 16, queryPrefix: 'q: ', documentPrefix: 'd: ', timeoutMs: 5000, maxResponseBytes: 1 << 20, headers: { 'api-key': 'k' } });
  const embedders: Embedder[] = [openai, workersAIEmbeddings({ ai: binding }), { model: 'm', async embed({ texts }: EmbedRequest): Promise<EmbedResult> { return { vectors: texts.map(() => [1, 0]) }; } }];
  const answer = await openai.embed({ texts: ['a'], purpose: 'query' });
  const first: Float32Array = answer.vectors[0];
  const details: ModelErrorDetails | WorkersAIErrorDetails | undefined = undefined;
  void details;
  // @ts-expect-error purpose is 'document' | 'query'
  await openai.embed({ texts: ['a'], purpose: 'search' });
  return first.length + embedders.length + (openai.dimensions ?? 0) + openai.maxBatch;
}
`,
  );
  assert.deepEqual(typeErrors(file), []);
});

// The OpenAI-compatible chat model adapter against a mock HTTP server on 127.0.0.1 that this test
// starts itself (ephemeral port): request shape, usage mapping, HTTP errors, timeout, bad answers,
// and the API key never leaking into errors. No real network.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { MemcoreError } from 'memcore';
import { openAIChatModel } from 'memcore/adapters/openai';

const API_KEY = 'sk-test-SECRET-0123456789';
const REQUEST = { purpose: 'consolidate', system: 'You keep a profile.', user: 'I moved to Lyon.', maxOutputTokens: 2200 };

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

function answerWith(status, payload, contentType = 'application/json') {
  handler = (req, res) => {
    // No keep-alive: every request gets a fresh connection, so one test's sockets cannot affect the next.
    res.writeHead(status, { 'content-type': contentType, connection: 'close' });
    res.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
  };
}

const ok = (content, usage = { prompt_tokens: 120, completion_tokens: 7, total_tokens: 127 }) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  usage,
});

const model = (options = {}) => openAIChatModel({ baseURL, apiKey: API_KEY, model: 'gpt-test', ...options });

function assertNoKey(error) {
  const everything = `${error.message}\n${JSON.stringify(error.details)}\n${error.stack}`;
  assert.ok(!everything.includes(API_KEY), 'the API key leaked into the error');
  assert.ok(!everything.includes('SECRET'), 'part of the API key leaked into the error');
}

const hostError = (expected) => (e) => {
  assert.ok(e instanceof MemcoreError, String(e));
  assert.equal(e.code, 'E_HOST');
  for (const [k, v] of Object.entries(expected)) assert.deepEqual(e.details[k], v, k);
  assertNoKey(e);
  return true;
};

test('request shape: URL, headers, messages, max_tokens and temperature 0; usage mapped', async () => {
  received.length = 0;
  answerWith(200, ok('UPDATE'));
  const answer = await model({ headers: { 'X-Gateway': 'g1' } }).complete(REQUEST);
  assert.deepEqual(answer, { text: 'UPDATE', usage: { inputTokens: 120, outputTokens: 7 } });
  assert.equal(received.length, 1);
  const [r] = received;
  assert.equal(r.method, 'POST');
  assert.equal(r.url, '/v1/chat/completions');
  assert.equal(r.headers.authorization, `Bearer ${API_KEY}`);
  assert.equal(r.headers['content-type'], 'application/json');
  assert.equal(r.headers['x-gateway'], 'g1');
  assert.deepEqual(JSON.parse(r.body), {
    model: 'gpt-test',
    messages: [
      { role: 'system', content: REQUEST.system },
      { role: 'user', content: REQUEST.user },
    ],
    max_tokens: 2200,
    temperature: 0,
  });
});

test('reasoning models get max_completion_tokens and no temperature; a trailing slash is tolerated', async () => {
  received.length = 0;
  answerWith(200, ok('NOOP'));
  const m = openAIChatModel({ baseURL: `${baseURL}/`, apiKey: API_KEY, model: 'o-test', reasoningModel: true });
  assert.equal((await m.complete({ ...REQUEST, purpose: 'gate', maxOutputTokens: 64 })).text, 'NOOP');
  assert.equal(received[0].url, '/v1/chat/completions');
  assert.deepEqual(JSON.parse(received[0].body), {
    model: 'o-test',
    messages: [
      { role: 'system', content: REQUEST.system },
      { role: 'user', content: REQUEST.user },
    ],
    max_completion_tokens: 64,
  });
});

test('no usage in the answer → no usage field; no apiKey → no authorization header', async () => {
  received.length = 0;
  answerWith(200, { choices: [{ message: { role: 'assistant', content: 'hi' } }] });
  const answer = await openAIChatModel({ baseURL, model: 'local' }).complete(REQUEST);
  assert.deepEqual(answer, { text: 'hi' });
  assert.equal(received[0].headers.authorization, undefined);
});

test('HTTP errors are E_HOST with status, transient and the first 500 characters of the body', async () => {
  const cases = [
    [400, false, /check the request options/],
    [401, false, /check the API key/],
    [429, true, /retry later/],
    [500, true, /retry later/],
    [503, true, /retry later/],
  ];
  for (const [status, transient, hint] of cases) {
    const body = JSON.stringify({ error: { message: `failure ${status}`, padding: 'x'.repeat(1000) } });
    answerWith(status, body);
    await assert.rejects(model().complete(REQUEST), (e) => {
      hostError({ status, transient, body: body.slice(0, 500) })(e);
      assert.match(e.message, new RegExp(`HTTP ${status}`));
      assert.match(e.message, hint);
      return true;
    });
  }
});

test('a provider echoing the key in an error body does not leak it', async () => {
  answerWith(401, { error: { message: `Incorrect API key provided: ${API_KEY}` } });
  await assert.rejects(model().complete(REQUEST), (e) => {
    hostError({ status: 401, transient: false })(e);
    assert.match(e.details.body, /\[redacted\]/);
    return true;
  });
});

test('a server that never answers times out: E_HOST transient, status null', async () => {
  handler = () => {}; // never respond
  await assert.rejects(model({ timeoutMs: 150 }).complete(REQUEST), (e) => {
    hostError({ status: null, transient: true })(e);
    assert.equal(e.message, 'model request timed out after 150 ms; retry, or raise timeoutMs');
    return true;
  });
});

test('malformed JSON and missing choices are E_HOST, not transient', async () => {
  answerWith(200, '<html>gateway</html>', 'text/html');
  await assert.rejects(model().complete(REQUEST), (e) => {
    hostError({ status: 200, transient: false, body: '<html>gateway</html>' })(e);
    assert.match(e.message, /not JSON/);
    return true;
  });
  for (const payload of [{}, { choices: [] }, { choices: [{ message: {} }] }, { choices: [{ message: { content: null } }] }, null]) {
    answerWith(200, payload);
    await assert.rejects(model().complete(REQUEST), (e) => {
      hostError({ status: 200, transient: false })(e);
      assert.match(e.message, /choices\[0\]\.message\.content/);
      return true;
    });
  }
});

test('a refused connection is E_HOST transient with status null', async () => {
  const closed = createServer();
  await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = closed.address().port;
  await new Promise((resolve) => closed.close(resolve));
  const m = openAIChatModel({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: API_KEY, model: 'gpt-test' });
  await assert.rejects(m.complete(REQUEST), (e) => {
    hostError({ status: null, transient: true })(e);
    assert.match(e.message, /check baseURL/);
    return true;
  });
});

test('a custom fetch is used, and its errors map to E_HOST transient', async () => {
  const calls = [];
  const m = openAIChatModel({
    baseURL: 'https://example.invalid/v1',
    apiKey: API_KEY,
    model: 'gpt-test',
    fetch: async (url, init) => {
      calls.push({ url, init });
      return new Response(JSON.stringify(ok('via custom fetch')), { status: 200 });
    },
  });
  assert.equal((await m.complete(REQUEST)).text, 'via custom fetch');
  assert.equal(calls[0].url, 'https://example.invalid/v1/chat/completions');
  assert.ok(calls[0].init.signal instanceof AbortSignal);
  const failing = openAIChatModel({ baseURL, apiKey: API_KEY, model: 'm', fetch: () => Promise.reject(new TypeError(`fetch failed for ${API_KEY}`)) });
  await assert.rejects(failing.complete(REQUEST), hostError({ status: null, transient: true }));
});

test('options are validated up front: E_CONFIG with details.path', () => {
  const cases = [
    [undefined, 'options'],
    [{ model: 'm' }, 'baseURL'],
    [{ baseURL: 'api.openai.com/v1', model: 'm' }, 'baseURL'],
    [{ baseURL: 'ftp://x/v1', model: 'm' }, 'baseURL'],
    [{ baseURL: 'https://x/v1' }, 'model'],
    [{ baseURL: 'https://x/v1', model: ' ' }, 'model'],
    [{ baseURL: 'https://x/v1', model: 'm', apiKey: 42 }, 'apiKey'],
    [{ baseURL: 'https://x/v1', model: 'm', timeoutMs: 0 }, 'timeoutMs'],
    [{ baseURL: 'https://x/v1', model: 'm', timeoutMs: '10' }, 'timeoutMs'],
    [{ baseURL: 'https://x/v1', model: 'm', reasoningModel: 'yes' }, 'reasoningModel'],
    [{ baseURL: 'https://x/v1', model: 'm', headers: { a: 1 } }, 'headers.a'],
    [{ baseURL: 'https://x/v1', model: 'm', fetch: 'no' }, 'fetch'],
  ];
  for (const [options, path] of cases) {
    assert.throws(() => openAIChatModel(options), (e) => {
      assert.ok(e instanceof MemcoreError);
      assert.equal(e.code, 'E_CONFIG');
      assert.equal(e.details.path, path, JSON.stringify(options));
      return true;
    });
  }
});

test('a malformed request is E_ARGUMENT before any network call', async () => {
  received.length = 0;
  const m = model();
  await assert.rejects(m.complete({ ...REQUEST, maxOutputTokens: 0 }), (e) => e.code === 'E_ARGUMENT');
  await assert.rejects(m.complete({ ...REQUEST, system: undefined }), (e) => e.code === 'E_ARGUMENT');
  await assert.rejects(m.complete(null), (e) => e.code === 'E_ARGUMENT');
  assert.equal(received.length, 0);
});

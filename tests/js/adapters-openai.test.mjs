// The OpenAI-compatible chat model adapter against mock HTTP servers on 127.0.0.1 that this test
// starts itself (ephemeral ports): request shape, usage mapping, HTTP errors, timeout, bad answers,
// cancellation by request.signal, the response size cap (gzip bomb included), redirects (never to
// another origin), retry-after, credentials in baseURL, and the API key never leaking into errors.
// No real network.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { getEventListeners } from 'node:events';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { MemcoreError } from 'memcore';
import { openAIChatModel } from 'memcore/adapters/openai';
import { typeErrors } from '../support/typecheck.mjs';

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
    assert.match(e.details.body, /\[REDACTED\]/);
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

// A safety net so that a regression fails instead of hanging; nothing asserts on time.
const GUARD = { timeout: 10000 };

// ── cancellation: request.signal ────────────────────────────────────────────────────────────────

const cancelled = (e) => {
  hostError({ status: null, transient: true, cancelled: true })(e);
  assert.match(e.message, /^model request was cancelled/);
  return true;
};

test('an already aborted signal rejects at once, without sending a request', async () => {
  received.length = 0;
  answerWith(200, ok('never'));
  await assert.rejects(model().complete({ ...REQUEST, signal: AbortSignal.abort() }), cancelled);
  assert.equal(received.length, 0);
});

test('aborting while waiting for the response aborts the fetch: E_HOST cancelled, the connection is closed', GUARD, async () => {
  const controller = new AbortController();
  let closed;
  const connectionClosed = new Promise((resolve) => (closed = resolve));
  handler = (req, res) => {
    res.on('close', closed);
    controller.abort(); // the request reached the server; the caller gives up now
  };
  await assert.rejects(model().complete({ ...REQUEST, signal: controller.signal }), cancelled);
  await connectionClosed;
});

test('aborting during the body read stops the read: E_HOST cancelled, the stream is torn down', GUARD, async () => {
  const controller = new AbortController();
  let closed;
  const connectionClosed = new Promise((resolve) => (closed = resolve));
  handler = (req, res) => {
    res.on('close', closed);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"choices":[{"message":{"content":"part'); // and never the rest
  };
  // Abort as soon as the headers are in, i.e. while the adapter reads the body.
  const m = model({
    fetch: async (url, init) => {
      const response = await fetch(url, init);
      setTimeout(() => controller.abort(), 0);
      return response;
    },
  });
  await assert.rejects(m.complete({ ...REQUEST, signal: controller.signal }), cancelled);
  await connectionClosed;
});

test('signal and timeoutMs: whichever fires first decides the error', GUARD, async () => {
  handler = () => {}; // never respond
  const idle = new AbortController(); // never aborted
  await assert.rejects(model({ timeoutMs: 100 }).complete({ ...REQUEST, signal: idle.signal }), (e) => {
    hostError({ status: null, transient: true })(e);
    assert.equal(e.details.cancelled, undefined);
    assert.match(e.message, /timed out after 100 ms/);
    return true;
  });
  const caller = new AbortController();
  handler = () => caller.abort();
  await assert.rejects(model({ timeoutMs: 60000 }).complete({ ...REQUEST, signal: caller.signal }), cancelled);
});

test('a signal reused for many calls keeps no listeners (success, HTTP error, timeout)', async () => {
  const controller = new AbortController();
  const { signal } = controller;
  answerWith(200, ok('fine'));
  for (let i = 0; i < 20; i++) assert.equal((await model().complete({ ...REQUEST, signal })).text, 'fine');
  answerWith(500, 'oops');
  await assert.rejects(model().complete({ ...REQUEST, signal }), hostError({ status: 500 }));
  handler = () => {};
  await assert.rejects(model({ timeoutMs: 50 }).complete({ ...REQUEST, signal }), hostError({ status: null, transient: true }));
  assert.equal(getEventListeners(signal, 'abort').length, 0);

  // Any AbortSignal-like object works, and every listener added is removed with the same function.
  const log = [];
  const like = {
    aborted: false,
    addEventListener: (type, fn) => log.push(['add', type, fn]),
    removeEventListener: (type, fn) => log.push(['remove', type, fn]),
  };
  answerWith(200, ok('fine'));
  await model().complete({ ...REQUEST, signal: like });
  assert.deepEqual(log.map(([op, type]) => `${op} ${type}`), ['add abort', 'remove abort']);
  assert.equal(log[0][2], log[1][2]);
});

test('signal absent, undefined or null works as before; anything not AbortSignal-like is E_ARGUMENT', async () => {
  answerWith(200, ok('fine'));
  for (const signal of [undefined, null]) assert.equal((await model().complete({ ...REQUEST, signal })).text, 'fine');
  received.length = 0;
  for (const signal of [{}, 'abort', 1, true, { aborted: false }, { aborted: 'no', addEventListener() {} }, { addEventListener() {} }]) {
    await assert.rejects(model().complete({ ...REQUEST, signal }), (e) => {
      assert.ok(e instanceof MemcoreError);
      assert.equal(e.code, 'E_ARGUMENT');
      assert.equal(e.details.argument, 'request.signal');
      assert.match(e.message, /request\.signal/);
      return true;
    });
  }
  assert.equal(received.length, 0);
});

// ── response size cap ───────────────────────────────────────────────────────────────────────────

const tooLarge = (limitBytes, status = 200) => (e) => {
  hostError({ status, transient: false, limitBytes })(e);
  assert.match(e.message, new RegExp(`maxResponseBytes \\(${limitBytes} bytes\\)`));
  return true;
};

test('maxResponseBytes: an answer over the cap is refused, one within it is fine', async () => {
  const answer = JSON.stringify(ok('x'.repeat(1000)));
  answerWith(200, answer);
  await assert.rejects(model({ maxResponseBytes: answer.length - 1 }).complete(REQUEST), tooLarge(answer.length - 1));
  assert.equal((await model({ maxResponseBytes: answer.length }).complete(REQUEST)).text, 'x'.repeat(1000));
});

test('maxResponseBytes: an endless body is cut off and its stream cancelled', GUARD, async () => {
  let closed;
  const connectionClosed = new Promise((resolve) => (closed = resolve));
  handler = (req, res) => {
    let open = true;
    res.on('close', () => {
      open = false;
      closed();
    });
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(16 * 1024, 0x20);
    const pump = () => {
      if (open && res.write(chunk)) setImmediate(pump);
      else if (open) res.once('drain', pump);
    };
    pump();
  };
  await assert.rejects(model({ maxResponseBytes: 100000 }).complete(REQUEST), tooLarge(100000));
  await connectionClosed;
});

test('maxResponseBytes bounds a gzip bomb: decompressed bytes are counted (default cap 4 MiB)', GUARD, async () => {
  const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024)); // ~50 KB on the wire, 50 MB inflated
  assert.ok(bomb.length < 200 * 1024);
  handler = (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': bomb.length, connection: 'close' });
    res.end(bomb);
  };
  await assert.rejects(model().complete(REQUEST), tooLarge(4194304));
});

test('error bodies are read up to 64 KiB only: an endless 5xx body still yields the HTTP error', GUARD, async () => {
  handler = (req, res) => {
    let open = true;
    res.on('close', () => (open = false));
    res.writeHead(502, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(16 * 1024, 0x61);
    const pump = () => {
      if (open && res.write(chunk)) setImmediate(pump);
      else if (open) res.once('drain', pump);
    };
    pump();
  };
  await assert.rejects(model().complete(REQUEST), (e) => {
    hostError({ status: 502, transient: true, body: 'a'.repeat(500) })(e);
    assert.equal(e.details.limitBytes, undefined);
    return true;
  });
});

test('UTF-8 split across chunk boundaries decodes correctly (stream read)', async () => {
  const bytes = new TextEncoder().encode(JSON.stringify(ok('Lyon → Zürich 🧠 日本')));
  const m = model({
    fetch: async () =>
      new Response(
        new ReadableStream({
          start(c) {
            for (const b of bytes) c.enqueue(new Uint8Array([b])); // one byte per chunk
            c.close();
          },
        }),
        { status: 200 },
      ),
  });
  assert.equal((await m.complete(REQUEST)).text, 'Lyon → Zürich 🧠 日本');
});

test('without a body stream the body is read with arrayBuffer(), with the same cap', async () => {
  const bytes = new TextEncoder().encode(JSON.stringify(ok('buffered é')));
  const bodyless = { ok: true, status: 200, type: 'basic', headers: new Headers(), body: null, arrayBuffer: async () => bytes.buffer };
  const m = (maxResponseBytes) => model({ maxResponseBytes, fetch: async () => bodyless });
  assert.equal((await m(bytes.length).complete(REQUEST)).text, 'buffered é');
  await assert.rejects(m(bytes.length - 1).complete(REQUEST), tooLarge(bytes.length - 1));
});

test('maxResponseBytes must be a positive integer: E_CONFIG', () => {
  for (const maxResponseBytes of [0, -1, 1.5, '4096', NaN, Infinity, null]) {
    assert.throws(
      () => openAIChatModel({ baseURL, model: 'm', maxResponseBytes }),
      (e) => e instanceof MemcoreError && e.code === 'E_CONFIG' && e.details.path === 'maxResponseBytes',
      String(maxResponseBytes),
    );
  }
});

// ── redirects ───────────────────────────────────────────────────────────────────────────────────

async function startOtherServer() {
  const got = [];
  const other = createServer((req, res) => {
    got.push(req.url);
    res.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
    res.end(JSON.stringify(ok('from the other origin')));
  });
  await new Promise((resolve) => other.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${other.address().port}`;
  const close = async () => {
    other.closeAllConnections();
    await new Promise((resolve) => other.close(resolve));
  };
  return { origin, got, close };
}

function redirectWith(status, location) {
  handler = (req, res) => {
    res.writeHead(status, { location, connection: 'close' });
    res.end();
  };
}

test('a cross-origin redirect is refused and the other origin receives nothing', async (t) => {
  const other = await startOtherServer();
  t.after(other.close);
  const ourOrigin = new URL(baseURL).origin;
  for (const status of [301, 302, 303, 307, 308]) {
    for (const location of [`${other.origin}/v1/chat/completions?token=abc`, `http://someone:pw123@${other.origin.slice(7)}/steal`]) {
      redirectWith(status, location);
      await assert.rejects(model().complete(REQUEST), (e) => {
        hostError({ status, transient: false, redirect: other.origin })(e);
        assert.deepEqual(Object.keys(e.details).sort(), ['redirect', 'status', 'transient']);
        assert.match(e.message, new RegExp(`^refusing a cross-origin redirect from ${ourOrigin} to ${other.origin}(;|$)`));
        for (const secret of ['/v1/chat', 'token', 'abc', 'steal', 'someone', 'pw123']) assert.ok(!e.message.includes(secret), secret);
        return true;
      });
    }
  }
  assert.deepEqual(other.got, []);
});

test('same-origin 307/308 are followed by re-sending the same POST (relative and absolute location)', async () => {
  const origin = new URL(baseURL).origin;
  for (const [status, location] of [
    [307, '/v2/chat/completions'],
    [308, `${origin}/v2/chat/completions`],
  ]) {
    received.length = 0;
    handler = (req, res) => {
      if (req.url === '/v1/chat/completions') res.writeHead(status, { location, connection: 'close' }).end();
      else res.writeHead(200, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify(ok('moved')));
    };
    assert.equal((await model().complete(REQUEST)).text, 'moved');
    assert.deepEqual(received.map((r) => `${r.method} ${r.url}`), ['POST /v1/chat/completions', 'POST /v2/chat/completions']);
    assert.equal(received[1].body, received[0].body);
    assert.equal(received[1].headers.authorization, `Bearer ${API_KEY}`);
  }
});

test('at most 3 redirect hops: 3 are followed, a 4th is "too many redirects"', async () => {
  const chain = (hops) => {
    received.length = 0;
    handler = (req, res) => {
      const n = Number(req.url.split('/').pop()) || 0;
      if (n < hops) res.writeHead(308, { location: `/hop/${n + 1}`, connection: 'close' }).end();
      else res.writeHead(200, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify(ok(`after ${n}`)));
    };
  };
  chain(3);
  assert.equal((await model().complete(REQUEST)).text, 'after 3');
  assert.equal(received.length, 4);
  chain(Infinity);
  await assert.rejects(model().complete(REQUEST), (e) => {
    hostError({ status: 308, transient: false })(e);
    assert.match(e.message, /too many redirects/);
    return true;
  });
  assert.equal(received.length, 4);
});

test('same-origin 301/302/303 are errors (the POST would become a GET), not followed', async () => {
  for (const status of [301, 302, 303]) {
    received.length = 0;
    redirectWith(status, '/v2/chat/completions');
    await assert.rejects(model().complete(REQUEST), (e) => {
      hostError({ status, transient: false })(e);
      assert.match(e.message, new RegExp(`HTTP ${status}`));
      assert.match(e.message, /set baseURL to the final URL/);
      return true;
    });
    assert.equal(received.length, 1);
  }
});

test('a browser-style opaqueredirect is E_HOST "the endpoint redirected"; requests use redirect: manual', async () => {
  const inits = [];
  const m = model({
    fetch: async (url, init) => {
      inits.push(init);
      return { type: 'opaqueredirect', status: 0, ok: false, headers: new Headers(), body: null };
    },
  });
  await assert.rejects(m.complete(REQUEST), (e) => {
    hostError({ status: null, transient: false })(e);
    assert.match(e.message, /the endpoint redirected; set baseURL to the final URL/);
    return true;
  });
  assert.equal(inits[0].redirect, 'manual');
});

test('a 3xx without location is an HTTP error', async () => {
  handler = (req, res) => res.writeHead(300, { connection: 'close' }).end('choose');
  await assert.rejects(model().complete(REQUEST), hostError({ status: 300, transient: false, body: 'choose' }));
});

// ── retry-after ─────────────────────────────────────────────────────────────────────────────────

function answerWithHeaders(status, headers) {
  handler = (req, res) => res.writeHead(status, { 'content-type': 'application/json', connection: 'close', ...headers }).end('{}');
}

test('retry-after: delta-seconds and HTTP-dates become details.retryAfterMs; absent or unparsable → null', async () => {
  const retryAfter = async (status, value) => {
    answerWithHeaders(status, value === undefined ? {} : { 'retry-after': value });
    const e = await model().complete(REQUEST).then(
      () => assert.fail('resolved'),
      (error) => error,
    );
    hostError({ status })(e);
    return e.details.retryAfterMs;
  };
  assert.equal(await retryAfter(429, '7'), 7000);
  assert.equal(await retryAfter(503, '0'), 0);
  assert.equal(await retryAfter(500, ' 2 '), 2000); // any status carrying it
  assert.equal(await retryAfter(503, 'Wed, 21 Oct 2015 07:28:00 GMT'), 0); // in the past
  assert.equal(await retryAfter(429, 'Wednesday, 21-Oct-15 07:28:00 GMT'), 0); // RFC 850, past
  assert.equal(await retryAfter(429, 'Wed Oct 21 07:28:00 2015'), 0); // asctime, past
  // Far future, and huge delta-seconds: clamped to one hour, never a wait of decades (or dropped).
  assert.equal(await retryAfter(503, 'Fri, 01 Jan 2100 00:00:00 GMT'), 3_600_000);
  assert.equal(await retryAfter(429, 'Fri Jan  1 00:00:00 2100'), 3_600_000);
  assert.equal(await retryAfter(429, '9999999999'), 3_600_000);
  assert.equal(await retryAfter(429, '9'.repeat(400)), 3_600_000);
  assert.equal(await retryAfter(429, '3600'), 3_600_000);
  assert.equal(await retryAfter(429, '3599'), 3_599_000);
  assert.equal(await retryAfter(429, undefined), null);
  // Date.parse would accept some of these ('1.5' is a date in V8); the adapter does not.
  for (const bad of ['soon', '1.5', '-3', '', 'Wed, 31 Feb 2015 07:28:00 GMT', '2100-01-01T00:00:00Z']) {
    assert.equal(await retryAfter(503, bad), null, bad);
  }
  assert.equal(await retryAfter(400, undefined), null);
});

// ── credentials ─────────────────────────────────────────────────────────────────────────────────

test('credentials in baseURL are E_CONFIG at construction, shown as *** and never echoed', () => {
  for (const url of ['http://user:KEY-9f8e7d@127.0.0.1/v1', 'https://KEY-9f8e7d@api.example.com/v1', 'https://user:@api.example.com/v1']) {
    assert.throws(() => openAIChatModel({ baseURL: url, model: 'm' }), (e) => {
      assert.ok(e instanceof MemcoreError);
      assert.equal(e.code, 'E_CONFIG');
      assert.deepEqual(e.details, { path: 'baseURL' });
      assert.match(e.message, /\/\/\*\*\*@/);
      assert.match(e.message, /apiKey/);
      const everything = `${e.message}\n${e.stack}`;
      assert.ok(!everything.includes('KEY-9f8e7d') && !everything.includes('user'), everything);
      return true;
    });
  }
  assert.match(
    (() => {
      try {
        openAIChatModel({ baseURL: 'http://user:KEY-9f8e7d@127.0.0.1:8080/v1?x=1', model: 'm' });
      } catch (e) {
        return e.message;
      }
    })(),
    /baseURL http:\/\/\*\*\*@127\.0\.0\.1:8080\/v1\?x=\[REDACTED\] contains credentials/,
  );
  // An unparsable baseURL holding credentials is not echoed either.
  assert.throws(
    () => openAIChatModel({ baseURL: 'http://us er:KEY-9f8e7d@host/v1', model: 'm' }),
    (e) => e.code === 'E_CONFIG' && e.details.path === 'baseURL' && !e.message.includes('KEY-9f8e7d'),
  );
});

test('defence in depth: userinfo and the key are redacted from every message and detail', async () => {
  const failing = model({ fetch: () => Promise.reject(new TypeError(`connect failed via http://bob:hunter2@proxy.local:8080 (${encodeURIComponent(API_KEY)})`)) });
  await assert.rejects(failing.complete(REQUEST), (e) => {
    hostError({ status: null, transient: true })(e);
    assert.match(e.message, /http:\/\/\*\*\*@proxy\.local:8080/);
    assert.ok(!e.message.includes('hunter2') && !e.message.includes('bob'));
    return true;
  });
  answerWith(500, `upstream https://admin:s3cr3t@internal.example/v1 said no; key ${API_KEY}`);
  await assert.rejects(model().complete(REQUEST), (e) => {
    hostError({ status: 500, transient: true })(e);
    assert.equal(e.details.body, 'upstream https://***@internal.example/v1 said no; key [REDACTED]');
    return true;
  });
});

// ── a query string in baseURL (Azure, gateways), and redaction by whole tokens (issue 19) ─────

const GATEWAY_SECRET = 's3cr3t-gw-0042';
const AZURE_KEY = 'azure-k3y-77';
const QUERY = `api-version=2024-06-01&key=${GATEWAY_SECRET}`;
const SHOWN_QUERY = '?api-version=[REDACTED]&key=[REDACTED]';
const gateway = (options = {}) =>
  openAIChatModel({ baseURL: `${baseURL}?${QUERY}`, apiKey: API_KEY, model: 'gpt-test', headers: { 'api-key': AZURE_KEY }, ...options });

/** No query value, no key, no secret header value anywhere in the error. */
function assertNoQuery(e) {
  const everything = `${e.message}\n${JSON.stringify(e.details)}\n${e.stack}`;
  for (const secret of ['2024-06-01', GATEWAY_SECRET, encodeURIComponent(GATEWAY_SECRET), AZURE_KEY, API_KEY]) {
    assert.ok(!everything.includes(secret), `${secret} leaked: ${everything}`);
  }
}

const gatewayError = (expected, shows) => (e) => {
  hostError(expected)(e);
  assertNoQuery(e);
  if (shows) assert.ok(e.message.includes(shows), `the message shows ${shows}: ${e.message}`);
  return true;
};

test('a query string in baseURL stays after the appended path (what the server receives); a fragment is dropped', async () => {
  for (const root of [`${baseURL}?${QUERY}`, `${baseURL}/?${QUERY}`, `${baseURL}///?${QUERY}#section`]) {
    received.length = 0;
    answerWith(200, ok('UPDATE'));
    assert.equal((await openAIChatModel({ baseURL: root, apiKey: API_KEY, model: 'gpt-test' }).complete(REQUEST)).text, 'UPDATE', root);
    assert.equal(received.length, 1);
    assert.equal(received[0].url, `/v1/chat/completions?${QUERY}`, root);
    const query = new URL(received[0].url, 'http://x').searchParams;
    assert.equal(query.get('api-version'), '2024-06-01');
    assert.equal(query.get('key'), GATEWAY_SECRET);
  }
  const calls = [];
  const custom = openAIChatModel({
    baseURL: 'https://gw.example/v1?api-version=2024-06-01&key=s3cr3t',
    model: 'm',
    fetch: async (url) => {
      calls.push(url);
      return new Response(JSON.stringify(ok('x')), { status: 200 });
    },
  });
  await custom.complete(REQUEST);
  assert.deepEqual(calls, ['https://gw.example/v1/chat/completions?api-version=2024-06-01&key=s3cr3t']);
});

test('an HTTP 500 echoing the key, the header key and the query shows none of them; the URL keeps the query names', async () => {
  answerWith(500, `upstream refused /v1/chat/completions?${QUERY} (key ${GATEWAY_SECRET}, api-key ${AZURE_KEY}, bearer ${API_KEY})`);
  const origin = new URL(baseURL).origin;
  await assert.rejects(gateway().complete(REQUEST), (e) => {
    gatewayError({ status: 500, transient: true }, `model request to ${origin}/v1/chat/completions${SHOWN_QUERY} failed with HTTP 500`)(e);
    assert.equal(e.details.body, 'upstream refused /v1/chat/completions?api-version=[REDACTED]&key=[REDACTED] (key [REDACTED], api-key [REDACTED], bearer [REDACTED])');
    return true;
  });
});

test('a network failure, a timeout and a non-JSON answer never show the query values', async () => {
  const closed = createServer();
  await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = closed.address().port;
  await new Promise((resolve) => closed.close(resolve));
  const down = openAIChatModel({ baseURL: `http://127.0.0.1:${port}/v1?${QUERY}`, apiKey: API_KEY, model: 'gpt-test' });
  await assert.rejects(down.complete(REQUEST), gatewayError({ status: null, transient: true }, `http://127.0.0.1:${port}/v1/chat/completions${SHOWN_QUERY} failed before a response`));
  // A custom fetch whose error quotes the URL it was given.
  const quoting = gateway({ fetch: (url) => Promise.reject(new TypeError(`fetch failed: ${url} (${decodeURIComponent(url)})`)) });
  await assert.rejects(quoting.complete(REQUEST), gatewayError({ status: null, transient: true }, SHOWN_QUERY));
  handler = () => {}; // never respond
  await assert.rejects(gateway({ timeoutMs: 150 }).complete(REQUEST), gatewayError({ status: null, transient: true }));
  answerWith(200, `<html>you sent ${QUERY}</html>`, 'text/html');
  await assert.rejects(gateway().complete(REQUEST), (e) => {
    gatewayError({ status: 200, transient: false }, `${SHOWN_QUERY} is not JSON`)(e);
    assert.equal(e.details.body, '<html>you sent api-version=[REDACTED]&key=[REDACTED]</html>');
    return true;
  });
});

test('redirects never show the query values: 302, too many hops, a cross-origin location carrying them', async (t) => {
  const origin = new URL(baseURL).origin;
  redirectWith(302, `/v2/chat/completions?${QUERY}`);
  await assert.rejects(gateway().complete(REQUEST), gatewayError({ status: 302, transient: false }, `${origin}/v1/chat/completions${SHOWN_QUERY} answered HTTP 302`));
  handler = (req, res) => {
    const n = Number(new URL(req.url, origin).pathname.split('/').pop()) || 0;
    res.writeHead(308, { location: `/hop/${n + 1}?${QUERY}`, connection: 'close' }).end();
  };
  await assert.rejects(gateway().complete(REQUEST), gatewayError({ status: 308, transient: false }, `${SHOWN_QUERY} failed: too many redirects`));
  const other = await startOtherServer();
  t.after(other.close);
  redirectWith(307, `${other.origin}/v1/chat/completions?${QUERY}`);
  await assert.rejects(gateway().complete(REQUEST), gatewayError({ status: 307, transient: false, redirect: other.origin }));
  assert.deepEqual(other.got, []);
});

test('a short key is redacted as a whole token only: the words of an error body are not mangled', async () => {
  for (const [key, body, expected] of [
    ['k1', 'k1 is not a key; k12, ok1, k1x and 2k1 are words. Bearer k1, "k1": k1.', '[REDACTED] is not a key; k12, ok1, k1x and 2k1 are words. Bearer [REDACTED], "[REDACTED]": [REDACTED].'],
    ['abc', 'fabcd abc abcdef xabc (abc) key=abc "abc". k1-abc abc_1 abc', 'fabcd [REDACTED] abcdef xabc ([REDACTED]) key=[REDACTED] "[REDACTED]". k1-abc abc_1 [REDACTED]'],
    ['a+b/c', 'key a+b/c or a%2Bb%2Fc, not xa+b/cx', 'key [REDACTED] or [REDACTED], not xa+b/cx'],
  ]) {
    answerWith(401, body, 'text/plain');
    await assert.rejects(openAIChatModel({ baseURL, apiKey: key, model: 'm' }).complete(REQUEST), (e) => {
      assert.equal(e.code, 'E_HOST');
      assert.equal(e.details.body, expected, key);
      return true;
    });
  }
  // A long key is replaced even inside another word: no word holds it by chance.
  answerWith(401, `x${API_KEY}y`, 'text/plain');
  await assert.rejects(model().complete(REQUEST), (e) => e.details.body === 'x[REDACTED]y');
  // A short query value (under 4 characters) is redacted in URLs only, so numbers stay readable.
  answerWith(500, 'HTTP/1.1 upstream 1 failed', 'text/plain');
  await assert.rejects(openAIChatModel({ baseURL: `${baseURL}?debug=1`, model: 'm' }).complete(REQUEST), (e) => {
    assert.equal(e.details.body, 'HTTP/1.1 upstream 1 failed');
    assert.match(e.message, /\/v1\/chat\/completions\?debug=\[REDACTED\] failed with HTTP 500/);
    return true;
  });
});

// ── the adapter's own guarantees, with a custom fetch that does not cooperate ───────────────────

// An endless pull-based body: counts the bytes handed out and whether it was cancelled.
function endlessBody(chunkBytes = 16 * 1024) {
  const state = { pulled: 0, cancelled: false };
  state.stream = new ReadableStream(
    {
      pull(c) {
        state.pulled += chunkBytes;
        c.enqueue(new Uint8Array(chunkBytes).fill(0x61));
      },
      cancel() {
        state.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return state;
}

test('the body read stops right after the cap and cancels the stream (64 KiB for error bodies)', GUARD, async () => {
  for (const [status, maxResponseBytes, limit] of [
    [200, 100000, 100000],
    [500, undefined, 64 * 1024],
  ]) {
    const body = endlessBody();
    const m = model({ maxResponseBytes, fetch: async () => new Response(body.stream, { status }) });
    await assert.rejects(m.complete(REQUEST), (e) => {
      hostError({ status })(e);
      if (status === 500) assert.equal(e.details.body, 'a'.repeat(500));
      return true;
    });
    assert.ok(body.cancelled, 'stream cancelled');
    assert.ok(body.pulled <= limit + 2 * 16 * 1024, `${body.pulled} bytes pulled for a ${limit}-byte cap`);
  }
});

test('a custom fetch that ignores the signal still times out, and is still cancelled', GUARD, async () => {
  const never = model({ timeoutMs: 50, fetch: () => new Promise(() => {}) });
  await assert.rejects(never.complete(REQUEST), hostError({ status: null, transient: true }));
  const controller = new AbortController();
  const body = endlessBody();
  const stalled = model({
    fetch: async () => {
      setTimeout(() => controller.abort(), 0);
      // a body that never yields a byte and ignores the abort
      return new Response(new ReadableStream({ pull: () => new Promise(() => {}), cancel: () => (body.cancelled = true) }), { status: 200 });
    },
  });
  await assert.rejects(stalled.complete({ ...REQUEST, signal: controller.signal }), cancelled);
  assert.ok(body.cancelled, 'the stalled stream was cancelled');

  // A response that arrives after the cancellation is released, not left holding a connection.
  const late = new AbortController();
  let released;
  const wasReleased = new Promise((resolve) => (released = resolve));
  const slow = model({
    fetch: () => {
      setTimeout(() => late.abort(), 0);
      return new Promise((resolve) => setTimeout(() => resolve(new Response(new ReadableStream({ cancel: released }), { status: 200 })), 20));
    },
  });
  await assert.rejects(slow.complete({ ...REQUEST, signal: late.signal }), cancelled);
  await wasReleased;
});

// ── typings ─────────────────────────────────────────────────────────────────────────────────────

test('the typings accept signal and maxResponseBytes, and the model is a core LanguageModel (tsc --strict)', async (t) => {
  const dir = join(fileURLToPath(new URL('../../', import.meta.url)), 'target', 'adapters-openai-types');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'usage.ts');
  writeFileSync(
    file,
    `import { MemcoreError, type LanguageModel, type ModelRequest } from 'memcore';
import { openAIChatModel, type ChatModel, type ChatModelRequest, type ModelErrorDetails } from 'memcore/adapters/openai';

export async function use(request: ModelRequest): Promise<string> {
  const model: ChatModel = openAIChatModel({ baseURL: 'https://api.openai.com/v1', apiKey: 'k', model: 'm', maxResponseBytes: 1 << 20 });
  const core: LanguageModel = model;
  void core;
  const withSignal: ChatModelRequest = { ...request, signal: AbortSignal.timeout(1000) };
  try {
    await model.complete(request);
    return (await model.complete(withSignal)).text;
  } catch (e) {
    if (!(e instanceof MemcoreError) || e.code !== 'E_HOST') throw e;
    const d = e.details as unknown as ModelErrorDetails;
    const wait: number | null | undefined = d.retryAfterMs;
    return [d.status, d.transient, d.cancelled, d.limitBytes, d.redirect, wait].join();
  }
}
`,
  );
  assert.deepEqual(typeErrors(file), []);
});

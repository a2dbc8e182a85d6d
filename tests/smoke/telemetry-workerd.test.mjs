// memcore/telemetry inside workerd (the Workers runtime, through miniflare): a Worker bundled by
// esbuild as wrangler does, with @opentelemetry/api, the OTel SDK's in-memory span exporter and
// a context manager over Workers' AsyncLocalStorage (`nodejs_compat`), serves memcore/server over
// miniflare's real D1 with `telemetry`. The request spans and the D1 store calls under them are
// read back from the Worker; the Prometheus text of the same counters too.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const pkgDir = join(require.resolve('memcore/package.json'), '..');

const WORKER = `
import * as api from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { AsyncLocalStorage } from 'node:async_hooks';
import { openD1 } from 'memcore/adapters/d1';
import { createMemoryHandler } from 'memcore/server';
import { createTelemetry } from 'memcore/telemetry';

// A context manager over Workers' AsyncLocalStorage, as Workers OTel setups write it
// (@opentelemetry/context-async-hooks is CommonJS requiring 'async_hooks', which a bundled
// Worker cannot require).
class WorkerContextManager {
  #storage = new AsyncLocalStorage();
  active() { return this.#storage.getStore() ?? api.ROOT_CONTEXT; }
  with(context, fn, thisArg, ...args) { return this.#storage.run(context, () => fn.call(thisArg, ...args)); }
  bind(context, target) { return typeof target === 'function' ? (...a) => this.with(context, target, undefined, ...a) : target; }
  enable() { return this; }
  disable() { this.#storage.disable(); return this; }
}
const exporter = new InMemorySpanExporter();
api.context.setGlobalContextManager(new WorkerContextManager().enable());
api.trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
const telemetry = createTelemetry({ api });

let handler;
let n = 0;
export default {
  async fetch(request, env) {
    const path = new URL(request.url).pathname;
    if (path === '/_spans') {
      return Response.json(exporter.getFinishedSpans().map((s) => ({
        name: s.name, id: s.spanContext().spanId, parent: s.parentSpanContext?.spanId ?? s.parentSpanId ?? null, attributes: s.attributes,
      })));
    }
    if (path === '/_metrics') return new Response(telemetry.metrics().prometheus());
    handler ??= openD1(env.DB).then((entries) => createMemoryHandler({
      entries,
      authenticate: (req) => {
        const auth = req.headers.get('authorization') ?? '';
        return auth.startsWith('Bearer ') ? { userId: auth.slice(7) } : null;
      },
      now: () => '2026-12-01T10:00:00Z',
      newId: () => 'w-' + ++n,
      telemetry,
    }));
    return (await handler)(request);
  },
};`;

let mf;
let url;

before(async () => {
  const bundled = await build({
    stdin: { contents: WORKER, resolveDir: root, sourcefile: 'worker.js' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker'],
    external: ['*.wasm', 'node:*'],
    logLevel: 'silent',
  });
  mf = new Miniflare({
    modulesRoot: '/app',
    modules: [
      { type: 'ESModule', path: '/app/worker.js', contents: bundled.outputFiles[0].text },
      { type: 'CompiledWasm', path: '/app/wasm/memcore_bg.wasm', contents: readFileSync(join(pkgDir, 'wasm/memcore_bg.wasm')) },
    ],
    compatibilityDate: '2025-09-01',
    compatibilityFlags: ['nodejs_compat'],
    d1Databases: ['DB'],
    host: '127.0.0.1',
    port: 0,
  });
  url = await mf.ready;
});

after(async () => {
  await mf?.dispose();
});

test('a Worker traces each request and its D1 store calls with the OTel SDK; no user id or value is recorded', async () => {
  const put = await fetch(new URL('/usermemorystore/memories', url), {
    method: 'PUT',
    headers: { authorization: 'Bearer ana@example.com', 'content-type': 'application/json' },
    body: JSON.stringify({ userId: 'ana@example.com', key: 'home_city', value: 'Lisbon zq7canary', visibility: 'global' }),
  });
  assert.equal(put.status, 201, await put.clone().text());
  const got = await fetch(new URL('/usermemorystore/memories/ana@example.com/key/home_city', url), { headers: { authorization: 'Bearer ana@example.com' } });
  assert.equal(got.status, 200);
  const spans = await (await fetch(new URL('/_spans', url))).json();
  const [putSpan] = spans.filter((s) => s.name === 'PUT /usermemorystore/memories');
  const [getSpan] = spans.filter((s) => s.name === 'GET /usermemorystore/memories/{userId}/key/{key}');
  assert.ok(putSpan && getSpan, spans.map((s) => s.name).join());
  assert.equal(putSpan.attributes['http.response.status_code'], 201);
  const children = (span) => spans.filter((s) => s.parent === span.id).map((s) => s.name);
  assert.ok(children(putSpan).some((n) => n.startsWith('memcore.store.')), children(putSpan).join());
  assert.ok(children(getSpan).some((n) => n.startsWith('memcore.store.')), children(getSpan).join());
  const recorded = JSON.stringify(spans) + (await (await fetch(new URL('/_metrics', url))).text());
  assert.match(recorded, /memcore_http_requests_total\{method="PUT",route="\/usermemorystore\/memories",status="201"\} 1/);
  for (const content of ['ana@example.com', 'zq7canary', 'home_city', 'Lisbon']) assert.ok(!recorded.includes(content), content);
});

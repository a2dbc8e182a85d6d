// Test hooks around a Fetch-API handler: make it answer late (held until released, or after a
// delay), fail with a chosen status, or never answer. Tests hold a request, look at the page's
// state while it waits, then release it — waiting for states, never for time.

/**
 * @param {(request: Request) => Promise<Response | null>} handler
 * @returns {{ handle: (request: Request) => Promise<Response | null>, faults: Faults }}
 */
export function withFaults(handler) {
  /** method → { promise, release } of the requests currently held back */
  const holds = new Map();
  /** method → { status, code, message, times } answered instead of the handler */
  const failures = new Map();
  /** method → delay in ms (manual use: `serve.mjs --slow`) */
  const delays = new Map();
  const hung = new Set();
  const counts = {};

  const faults = {
    /** Hold every `method` request until `release()`; resolves `arrived` when the first one comes. */
    hold(method) {
      let release;
      let arrivedResolve;
      const promise = new Promise((r) => (release = r));
      const arrived = new Promise((r) => (arrivedResolve = r));
      holds.set(method, { promise, arrivedResolve, release: () => release() });
      return {
        arrived,
        release: () => {
          holds.delete(method);
          release();
        },
      };
    },
    /** Answer the next `times` (default: every) `method` requests with this error instead. */
    fail(method, { status = 500, code = 'E_HOST', message = 'the storage is not answering', times = Infinity } = {}) {
      failures.set(method, { status, code, message, times });
    },
    /** Never answer `method` requests (the client's timeout must end them). */
    hang(method) {
      hung.add(method);
    },
    delay(method, ms) {
      delays.set(method, ms);
    },
    /** Requests seen per method (the faults' ones included). */
    count: (method) => counts[method] ?? 0,
    /** Back to normal: held requests go on, nothing fails, hangs or waits any more. */
    clear() {
      for (const held of holds.values()) {
        held.arrivedResolve();
        held.release();
      }
      for (const method of [...holds.keys()]) holds.delete(method);
      failures.clear();
      delays.clear();
      hung.clear();
    },
  };

  const handle = async (request) => {
    if (!new URL(request.url).pathname.startsWith('/contextmemory/')) return handler(request);
    const method = request.method;
    counts[method] = (counts[method] ?? 0) + 1;
    if (hung.has(method)) return new Promise(() => {});
    const held = holds.get(method);
    if (held) {
      held.arrivedResolve();
      await held.promise;
    }
    const delay = delays.get(method);
    if (delay) await new Promise((r) => setTimeout(r, delay));
    const failure = failures.get(method);
    if (failure && failure.times > 0) {
      failure.times -= 1;
      return new Response(JSON.stringify({ error: { code: failure.code, message: failure.message } }), {
        status: failure.status,
        headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
      });
    }
    return handler(request);
  };
  return { handle, faults };
}

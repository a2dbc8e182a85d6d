// toNodeListener: a Fetch-API handler as a `node:http` request listener, with no dependency on
// Node's modules (the request body is streamed through as it arrives, so the handler's 1 MiB
// limit stops a large upload early).
import { MemcoreError } from '../errors.js';

/**
 * `(req, res) => void` for `http.createServer`, over a `(Request) => Promise<Response>` handler.
 * @example http.createServer(toNodeListener(createMemoryHandler({ entries, authenticate }))).listen(8787);
 */
export function toNodeListener(handler) {
  if (typeof handler !== 'function') {
    throw new MemcoreError('E_ARGUMENT', 'toNodeListener: `handler` must be a function (request) => Promise<Response>', { function: 'toNodeListener', argument: 'handler' });
  }
  return (req, res) => {
    serve(handler, req, res).catch((error) => {
      if (!res.headersSent) {
        res.statusCode = 500;
        res.setHeader('content-type', 'application/json; charset=utf-8');
        res.end(JSON.stringify({ error: { code: 'E_INTERNAL', message: String(error?.message ?? error) } }));
      } else {
        res.destroy();
      }
    });
  };
}

async function serve(handler, req, res) {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    try {
      headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
    } catch {
      // a header the Fetch API cannot hold is dropped
    }
  }
  const host = headers.get('host') ?? 'localhost';
  const scheme = req.socket?.encrypted ? 'https' : 'http';
  let url;
  try {
    url = new URL(req.url ?? '/', `${scheme}://${host}`);
  } catch {
    url = new URL('http://localhost/');
    url.pathname = '/%00invalid';
  }
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const request = new Request(url, {
    method: req.method,
    headers,
    body: hasBody ? bodyOf(req) : undefined,
    duplex: hasBody ? 'half' : undefined,
    signal: controller.signal,
  });
  const response = await handler(request);
  res.statusCode = response.status;
  for (const [name, value] of response.headers) res.setHeader(name, value);
  // Answered before the body was read to its end (401, 413, …): the connection cannot carry
  // another request, so it closes after this answer; the rest of the body is drained meanwhile.
  if (hasBody && !req.complete) {
    res.setHeader('connection', 'close');
    req.resume();
  }
  if (!response.body || req.method === 'HEAD') {
    res.end();
    return;
  }
  for await (const chunk of response.body) res.write(chunk);
  res.end();
}

/** The request body as a ReadableStream; cancelling it drains the rest instead of resetting the connection. */
function bodyOf(req) {
  let open = true;
  return new ReadableStream({
    start(controller) {
      req.on('data', (chunk) => {
        if (!open) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if (controller.desiredSize <= 0) req.pause();
      });
      req.on('end', () => {
        if (open) controller.close();
        open = false;
      });
      req.on('error', (error) => {
        if (open) controller.error(error);
        open = false;
      });
    },
    pull() {
      req.resume();
    },
    cancel() {
      open = false;
      req.resume();
    },
  });
}

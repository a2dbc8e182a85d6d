// A loopback OpenAI-compatible embeddings server over the real local model (model.mjs), so that the
// benchmark and the end-to-end tests measure memcore's bundled `openAIEmbeddings` adapter as it
// would talk to OpenAI, vLLM, TEI or Ollama.
//
//   POST /v1/embeddings { model, input: string | string[], dimensions?, encoding_format? }
//   → { object: 'list', data: [{ object: 'embedding', index, embedding }], model, usage }
//
// Errors use OpenAI's shape `{ error: { message, type, param, code } }` with 400 (a bad request),
// 404 (an unknown route or model) and 413 (a body over the limit). It listens on 127.0.0.1 only.
//
// CLI: node scripts/embeddings/server.mjs [--port N] [--cache DIR]   (prints its URL, then serves)

import http from 'node:http';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadModel, MODEL_ID, DIMENSIONS } from './model.mjs';

/** Default bound of a request body, in bytes (larger bodies answer 413). */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;
/** At most this many texts per request, as OpenAI. */
export const MAX_INPUTS = 2048;
/** Where the benchmark keeps its file cache (git-ignored). */
export const DEFAULT_CACHE_DIR = fileURLToPath(
  new URL('../../target/embeddings-cache/', import.meta.url),
);

class RequestError extends Error {
  constructor(status, message, param = null, code = null) {
    super(message);
    this.status = status;
    this.param = param;
    this.code = code;
  }
}

/** A little-endian f32 byte string of a vector, base64 (OpenAI's `encoding_format: 'base64'`). */
function base64Vector(vector) {
  const bytes = new DataView(new ArrayBuffer(vector.length * 4));
  vector.forEach((x, i) => bytes.setFloat32(i * 4, x, true));
  return Buffer.from(bytes.buffer).toString('base64');
}

/** The request body, decoded and checked. */
function parseRequest(text) {
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    throw new RequestError(400, 'We could not parse the JSON body of your request.');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new RequestError(400, 'The request body must be a JSON object.');
  }
  if (typeof body.model !== 'string' || body.model === '') {
    throw new RequestError(400, "'model' is required: a string.", 'model');
  }
  if (body.model !== MODEL_ID) {
    throw new RequestError(
      404,
      `The model '${body.model.slice(0, 100)}' does not exist; this server has '${MODEL_ID}'.`,
      'model',
      'model_not_found',
    );
  }
  if (body.input === undefined || body.input === null) {
    throw new RequestError(400, "'input' is required: a string or an array of strings.", 'input');
  }
  const texts = typeof body.input === 'string' ? [body.input] : body.input;
  if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) {
    throw new RequestError(400, "'input' must be a string or an array of strings.", 'input');
  }
  if (texts.length === 0) {
    throw new RequestError(400, "'input' must not be an empty array.", 'input');
  }
  if (texts.length > MAX_INPUTS) {
    throw new RequestError(400, `'input' has ${texts.length} texts; at most ${MAX_INPUTS}.`, 'input');
  }
  if (texts.some((t) => t === '')) {
    throw new RequestError(400, "'input' must not contain an empty string.", 'input');
  }
  if (body.dimensions !== undefined && body.dimensions !== DIMENSIONS) {
    throw new RequestError(
      400,
      `'dimensions' must be ${DIMENSIONS} for ${MODEL_ID} (it cannot shorten its vectors).`,
      'dimensions',
    );
  }
  const format = body.encoding_format ?? 'float';
  if (format !== 'float' && format !== 'base64') {
    throw new RequestError(400, "'encoding_format' must be 'float' or 'base64'.", 'encoding_format');
  }
  return { texts, format };
}

/**
 * Starts the server on 127.0.0.1.
 *
 * @param {{ port?: number, host?: string, dir?: string, cacheDir?: string | null, maxBodyBytes?: number }} [options]
 *   `dir`: the model folder (model.mjs's default); `cacheDir`: a file cache of vectors keyed by
 *   sha256 of model and text (off unless given; `DEFAULT_CACHE_DIR` is the benchmark's).
 * @returns {Promise<{ url: string, close(): Promise<void>, stats: { requests: number, texts: number, embedded: number, memoryHits: number, fileHits: number } }>}
 *   `url` is the base URL for an OpenAI client (`…/v1`).
 * @example
 * const server = await startEmbeddingServer();
 * const embed = openAIEmbeddings({ baseURL: server.url, apiKey: 'local', model: 'all-minilm-l6-v2-int8' });
 * // …
 * await server.close();
 */
export async function startEmbeddingServer({
  port = 0,
  host = '127.0.0.1',
  dir,
  cacheDir = null,
  maxBodyBytes = MAX_BODY_BYTES,
} = {}) {
  if (host !== '127.0.0.1') {
    throw new Error(`startEmbeddingServer: host must be 127.0.0.1 (loopback only), not ${host}`);
  }
  const model = await loadModel(dir);
  const memory = new Map();
  const stats = { requests: 0, texts: 0, embedded: 0, memoryHits: 0, fileHits: 0 };
  if (cacheDir) await mkdir(cacheDir, { recursive: true });

  const cacheFile = (text) => {
    const key = createHash('sha256').update(`${MODEL_ID}\n${text}`).digest('hex');
    return path.join(cacheDir, key.slice(0, 2), `${key}.f32`);
  };
  async function readCached(text) {
    if (!cacheDir) return null;
    try {
      const bytes = await readFile(cacheFile(text));
      if (bytes.length !== DIMENSIONS * 4) return null;
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
      return Float32Array.from({ length: DIMENSIONS }, (_, i) => view.getFloat32(i * 4, true));
    } catch {
      return null;
    }
  }
  async function writeCached(text, vector) {
    if (!cacheDir) return;
    const file = cacheFile(text);
    await mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, Buffer.from(base64Vector(vector), 'base64'));
    await rename(tmp, file);
  }

  // One forward pass at a time: the wasm session runs on one thread anyway.
  let queue = Promise.resolve();
  const serially = (task) => {
    const run = queue.then(task);
    queue = run.catch(() => {});
    return run;
  };

  async function vectorsOf(texts) {
    const missing = [];
    for (const text of new Set(texts)) {
      if (memory.has(text)) {
        stats.memoryHits++;
        continue;
      }
      const cached = await readCached(text);
      if (cached) {
        stats.fileHits++;
        memory.set(text, cached);
      } else {
        missing.push(text);
      }
    }
    if (missing.length > 0) {
      const made = await serially(() => model.embed(missing));
      stats.embedded += missing.length;
      for (let i = 0; i < missing.length; i++) {
        memory.set(missing[i], made[i]);
        await writeCached(missing[i], made[i]);
      }
    }
    return texts.map((t) => memory.get(t));
  }

  async function answer(req) {
    const route = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || route !== '/v1/embeddings') {
      throw new RequestError(404, `Unknown request URL: ${req.method} ${route.slice(0, 200)}.`);
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBodyBytes) {
      throw new RequestError(413, `The request body is over ${maxBodyBytes} bytes.`);
    }
    const chunks = [];
    let size = 0;
    for await (const chunk of req) {
      size += chunk.length;
      if (size > maxBodyBytes) {
        throw new RequestError(413, `The request body is over ${maxBodyBytes} bytes.`);
      }
      chunks.push(chunk);
    }
    const { texts, format } = parseRequest(Buffer.concat(chunks).toString('utf8'));
    stats.texts += texts.length;
    const vectors = await vectorsOf(texts);
    const tokens = texts.reduce((sum, t) => sum + model.countTokens(t), 0);
    return {
      object: 'list',
      data: vectors.map((v, index) => ({
        object: 'embedding',
        index,
        embedding: format === 'base64' ? base64Vector(v) : Array.from(v),
      })),
      model: MODEL_ID,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    };
  }

  const server = http.createServer((req, res) => {
    stats.requests++;
    const send = (status, body) => {
      const text = JSON.stringify(body);
      res.writeHead(status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
        // A body not read to its end cannot be followed by another request on this connection.
        ...(status === 413 ? { connection: 'close' } : {}),
      });
      res.end(text);
    };
    const remote = req.socket.remoteAddress;
    if (remote !== '127.0.0.1' && remote !== '::ffff:127.0.0.1') {
      req.socket.destroy();
      return;
    }
    answer(req).then(
      (body) => send(200, body),
      (error) => {
        if (error instanceof RequestError) {
          send(error.status, {
            error: {
              message: error.message,
              type: 'invalid_request_error',
              param: error.param,
              code: error.code,
            },
          });
        } else {
          send(500, {
            error: { message: `embedding failed: ${error.message}`, type: 'server_error', param: null, code: null },
          });
        }
      },
    );
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const { port: bound } = server.address();
  return {
    url: `http://127.0.0.1:${bound}/v1`,
    stats,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const cache = args.includes('--cache') ? (option('--cache') ?? DEFAULT_CACHE_DIR) : null;
  const server = await startEmbeddingServer({ port: Number(option('--port') ?? 0), cacheDir: cache });
  console.log(server.url);
  const stop = () => server.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

/**
 * Embeds texts through a running server's OpenAI-compatible API (`url` from
 * `startEmbeddingServer`), 32 per request, base64: one Float32Array per text, in order.
 */
export async function embedAll(url, texts) {
  const out = [];
  for (let i = 0; i < texts.length; i += 32) {
    const response = await fetch(`${url}/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL_ID, input: texts.slice(i, i + 32), encoding_format: 'base64' }),
    });
    const body = await response.json();
    if (!response.ok) throw new Error(`embeddings: ${response.status} ${body.error?.message}`);
    for (const { embedding } of body.data) {
      const bytes = Buffer.from(embedding, 'base64');
      out.push(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4).slice());
    }
  }
  return out;
}

// Language-model adapter for OpenAI-compatible chat completions over `fetch` (SPEC §5). Works in
// every runtime with a global `fetch` (Node ≥ 18, browsers, workers) or with an injected one.
import { MemcoreError } from '../errors.js';

const BODY_EXCERPT = 500;

/**
 * A language model (`{ complete(request) }`) backed by `POST ${baseURL}/chat/completions`.
 *
 * Errors are `MemcoreError('E_HOST')` with `details.transient` (worth retrying later: timeouts,
 * network errors, 429, 5xx) and `details.status` (HTTP status or `null`); HTTP errors also carry
 * `details.body`, the first 500 characters of the response. The API key never appears in errors.
 * Bad options throw `E_CONFIG` with `details.path` when the model is created.
 *
 * @example
 * const model = openAIChatModel({ baseURL: 'https://api.openai.com/v1', apiKey: process.env.OPENAI_API_KEY, model: 'gpt-4o-mini' });
 * const { text, usage } = await model.complete({ purpose: 'gate', system: 'Answer UPDATE or NOOP.', user: '…', maxOutputTokens: 4 });
 */
export function openAIChatModel(options) {
  const config = validate(options);
  const url = `${config.baseURL.replace(/\/+$/, '')}/chat/completions`;

  async function complete(request) {
    checkRequest(request);
    const body = {
      model: config.model,
      messages: [
        { role: 'system', content: request.system },
        { role: 'user', content: request.user },
      ],
    };
    if (config.reasoningModel) {
      body.max_completion_tokens = request.maxOutputTokens;
    } else {
      body.max_tokens = request.maxOutputTokens;
      body.temperature = 0;
    }
    const headers = { ...config.headers, 'content-type': 'application/json' };
    if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, config.timeoutMs);
    try {
      let response;
      try {
        response = await config.fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal: controller.signal });
      } catch (error) {
        if (timedOut) throw timeoutError(config.timeoutMs);
        throw new MemcoreError(
          'E_HOST',
          `model request to ${url} failed before a response (${redact(describe(error), config.apiKey)}); check baseURL and the network, then retry`,
          { status: null, transient: true },
        );
      }
      let raw;
      try {
        raw = await response.text();
      } catch (error) {
        if (timedOut) throw timeoutError(config.timeoutMs);
        throw new MemcoreError('E_HOST', `reading the model response from ${url} failed (${redact(describe(error), config.apiKey)}); retry`, {
          status: response.status,
          transient: true,
        });
      }
      if (!response.ok) throw httpError(url, response.status, redact(raw, config.apiKey));
      return parseAnswer(url, response.status, raw, config.apiKey);
    } finally {
      clearTimeout(timer);
    }
  }

  return { complete };
}

function validate(options) {
  if (options === null || typeof options !== 'object') {
    throw configError('options', 'openAIChatModel needs options like { baseURL: "https://api.openai.com/v1", apiKey, model: "gpt-4o-mini" }');
  }
  const { baseURL, apiKey, model, timeoutMs = 30000, reasoningModel = false, headers = {}, fetch: customFetch } = options;
  if (typeof baseURL !== 'string' || baseURL.length === 0) {
    throw configError('baseURL', 'openAIChatModel: baseURL is required, e.g. "https://api.openai.com/v1"');
  }
  let parsed;
  try {
    parsed = new URL(baseURL);
  } catch {
    throw configError('baseURL', `openAIChatModel: baseURL ${JSON.stringify(baseURL)} is not an absolute URL; use e.g. "https://api.openai.com/v1"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw configError('baseURL', 'openAIChatModel: baseURL must start with http:// or https://');
  }
  if (apiKey !== undefined && apiKey !== null && typeof apiKey !== 'string') {
    throw configError('apiKey', 'openAIChatModel: apiKey must be a string (or absent for endpoints without auth)');
  }
  if (typeof model !== 'string' || model.trim().length === 0) {
    throw configError('model', 'openAIChatModel: model is required, e.g. "gpt-4o-mini"');
  }
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw configError('timeoutMs', 'openAIChatModel: timeoutMs must be a positive number of milliseconds');
  }
  if (typeof reasoningModel !== 'boolean') {
    throw configError('reasoningModel', 'openAIChatModel: reasoningModel must be true or false');
  }
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) {
    throw configError('headers', 'openAIChatModel: headers must be an object of header name → string value');
  }
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') throw configError(`headers.${name}`, `openAIChatModel: header ${name} must be a string`);
  }
  const fetchFn = customFetch ?? globalThis.fetch;
  if (typeof fetchFn !== 'function') {
    throw configError('fetch', 'openAIChatModel: no fetch in this runtime; pass { fetch } explicitly');
  }
  return {
    baseURL,
    apiKey: apiKey ?? null,
    model,
    timeoutMs,
    reasoningModel,
    headers: lowerCaseKeys(headers),
    // Called unbound: some runtimes reject `fetch` invoked with a foreign `this`.
    fetch: (...args) => fetchFn(...args),
  };
}

function checkRequest(request) {
  const bad = (argument, what) =>
    new MemcoreError('E_ARGUMENT', `complete: request.${argument} must be ${what}`, { function: 'complete', argument: `request.${argument}` });
  if (request === null || typeof request !== 'object') {
    throw new MemcoreError('E_ARGUMENT', 'complete: request must be { purpose, system, user, maxOutputTokens }', {
      function: 'complete',
      argument: 'request',
    });
  }
  if (typeof request.system !== 'string') throw bad('system', 'a string');
  if (typeof request.user !== 'string') throw bad('user', 'a string');
  if (!Number.isInteger(request.maxOutputTokens) || request.maxOutputTokens <= 0) throw bad('maxOutputTokens', 'a positive integer');
}

function parseAnswer(url, status, raw, apiKey) {
  let json;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new MemcoreError('E_HOST', `model response from ${url} is not JSON; check that baseURL points at an OpenAI-compatible API`, {
      status,
      transient: false,
      body: redact(raw, apiKey).slice(0, BODY_EXCERPT),
    });
  }
  const content = json?.choices?.[0]?.message?.content;
  if (typeof content !== 'string') {
    throw new MemcoreError('E_HOST', `model response from ${url} has no choices[0].message.content; check the model name and endpoint`, {
      status,
      transient: false,
      body: redact(raw, apiKey).slice(0, BODY_EXCERPT),
    });
  }
  const answer = { text: content };
  const usage = json.usage;
  if (usage && Number.isFinite(usage.prompt_tokens) && Number.isFinite(usage.completion_tokens)) {
    answer.usage = { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens };
  }
  return answer;
}

function httpError(url, status, body) {
  const transient = status === 429 || status >= 500;
  const hint =
    status === 401 || status === 403
      ? 'check the API key'
      : status === 404
        ? 'check baseURL and the model name'
        : status === 429
          ? 'rate limited; retry later'
          : status >= 500
            ? 'the provider failed; retry later'
            : 'check the request options (model, token limits)';
  return new MemcoreError('E_HOST', `model request to ${url} failed with HTTP ${status}; ${hint}`, {
    status,
    transient,
    body: body.slice(0, BODY_EXCERPT),
  });
}

function timeoutError(timeoutMs) {
  return new MemcoreError('E_HOST', `model request timed out after ${timeoutMs} ms; retry, or raise timeoutMs`, {
    transient: true,
    status: null,
  });
}

function configError(path, message) {
  return new MemcoreError('E_CONFIG', message, { path });
}

function describe(error) {
  const cause = error?.cause;
  const code = cause?.code ?? error?.code;
  return [error?.message ?? String(error), code].filter(Boolean).join(': ');
}

// Providers sometimes echo the key (or part of it) in error bodies; never pass it on.
function redact(text, apiKey) {
  if (!apiKey) return text;
  return text.split(apiKey).join('[redacted]');
}

function lowerCaseKeys(headers) {
  const out = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

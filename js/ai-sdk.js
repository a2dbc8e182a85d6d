// `memcore/ai-sdk`: the four memory tools as a Vercel AI SDK tool set (`ai` ≥ 5: `tool()` with
// `inputSchema: jsonSchema(…)`). The SDK does not validate arguments against a `jsonSchema()`
// without a `validate` function, so every argument goes to the core, which answers each problem
// in the tool's own words; `execute` resolves to that exact string and never rejects.
import { embedMany, generateText, jsonSchema, tool } from 'ai';
import { MemcoreError } from './errors.js';
import { memoryToolSpecs } from './tool-sets.js';

/**
 * The tool set `{ rememberFact, recallMemories, searchMemory, forgetFact }` for
 * `generateText`/`streamText`, over one `createMemoryTools` object (one user, agent and turn).
 * @example
 * const memory = createMemoryTools({ store, userId, agentId });
 * const { text } = await generateText({ model, tools: aiSdkMemoryTools(memory), stopWhen: stepCountIs(5), prompt });
 */
export function aiSdkMemoryTools(memoryTools) {
  const set = {};
  for (const spec of memoryToolSpecs('aiSdkMemoryTools', memoryTools)) {
    set[spec.name] = tool({
      description: spec.description,
      inputSchema: jsonSchema(spec.inputSchema),
      execute: (input) => spec.call(input),
    });
  }
  return set;
}

/** The options `aiSdkModel` and `aiSdkEmbedder` accept (anything else is `E_CONFIG`). */
const MODEL_OPTIONS = ['maxRetries', 'settings', 'telemetry'];
const EMBEDDER_OPTIONS = ['maxRetries', 'model', 'dimensions', 'maxBatch', 'telemetry'];

function config(fn, options, allowed) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) throw new MemcoreError('E_CONFIG', `${fn}: options must be an object`, { path: 'options' });
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) throw new MemcoreError('E_CONFIG', `${fn}: unknown option ${key} (known: ${allowed.join(', ')})`, { path: key });
  }
  if (options.maxRetries !== undefined && (!Number.isSafeInteger(options.maxRetries) || options.maxRetries < 0 || options.maxRetries > 10)) {
    throw new MemcoreError('E_CONFIG', `${fn}: maxRetries must be an integer from 0 to 10`, { path: 'maxRetries' });
  }
  if (options.telemetry !== undefined && typeof options.telemetry !== 'boolean') {
    throw new MemcoreError('E_CONFIG', `${fn}: telemetry must be true or false`, { path: 'telemetry' });
  }
  return options;
}

/**
 * A failure of the AI SDK as memcore's `E_HOST`, classified for the core's retry rules:
 * `details.transient` for an abort, a timeout, a network error, 429 or 5xx, or an error the SDK
 * calls retryable (after its own retries: `RetryError`'s last error); `details.status` the HTTP
 * status (or `null`); `details.cancelled` for an abort.
 */
function sdkFailure(fn, error, signal) {
  const last = error?.lastError ?? error;
  const status = typeof last?.statusCode === 'number' ? last.statusCode : null;
  const cancelled = signal?.aborted === true || error?.name === 'AbortError' || last?.name === 'AbortError';
  const timedOut = error?.name === 'TimeoutError' || last?.name === 'TimeoutError';
  const retryable = last?.isRetryable === true;
  const transient = cancelled || timedOut || retryable || status === 429 || (status !== null && status >= 500);
  let message;
  try {
    message = error instanceof Error ? error.message : String(error);
  } catch {
    message = 'it failed without a message';
  }
  return new MemcoreError('E_HOST', `${fn}: ${message}`, { status, transient, ...(cancelled ? { cancelled: true } : {}), name: error?.name ?? null });
}

/**
 * memcore's language model (`MemoryModel`: `{ complete(request) }`) over an AI SDK language model
 * (`ai` ≥ 5: a provider's model, `gateway('openai/gpt-4o-mini')`, a model id string the AI SDK
 * resolves): each call is one `generateText({ model, system, prompt, maxOutputTokens,
 * abortSignal })`, so the app's provider, gateway, retries and telemetry carry memcore's calls.
 * Usage is mapped (`inputTokens`, `outputTokens`); failures become `E_HOST` with
 * `details.transient` (abort, timeout, network, 429, 5xx, or what the SDK calls retryable) and
 * `details.status`.
 *
 * Options: `maxRetries` (0–10, default 2: the AI SDK's own retries), `settings` (more
 * `generateText` call settings: `temperature`, `providerOptions`, `headers`, …; memcore's own —
 * `model`, `system`, `prompt`, `messages`, `maxOutputTokens`, `abortSignal` — cannot be
 * overridden), `telemetry` (default true: `experimental_telemetry` with `functionId`
 * `memcore.<purpose>` — `gate`, `consolidate`, `condense`, `dream` — and `metadata.purpose`).
 * @example
 * import { openai } from '@ai-sdk/openai';
 * const memory = new ContextMemory({ storage, model: aiSdkModel(openai('gpt-4o-mini')) });
 */
export function aiSdkModel(languageModel, options) {
  const fn = 'aiSdkModel';
  if (languageModel === undefined || languageModel === null) throw new MemcoreError('E_CONFIG', `${fn}: pass an AI SDK language model`, { path: 'languageModel' });
  const { maxRetries = 2, settings = {}, telemetry = true } = config(fn, options, MODEL_OPTIONS);
  if (settings === null || typeof settings !== 'object' || Array.isArray(settings)) throw new MemcoreError('E_CONFIG', `${fn}: settings must be an object`, { path: 'settings' });
  const reserved = ['model', 'system', 'prompt', 'messages', 'maxOutputTokens', 'abortSignal'].filter((k) => k in settings);
  if (reserved.length > 0) throw new MemcoreError('E_CONFIG', `${fn}: settings may not set ${reserved.join(', ')} (memcore's own)`, { path: `settings.${reserved[0]}` });
  return {
    async complete({ purpose, system, user, maxOutputTokens, signal }) {
      try {
        const result = await generateText({
          ...settings,
          model: languageModel,
          system,
          prompt: user,
          maxOutputTokens,
          abortSignal: signal,
          maxRetries,
          ...(telemetry ? { experimental_telemetry: { isEnabled: settings.experimental_telemetry?.isEnabled ?? false, ...settings.experimental_telemetry, functionId: `memcore.${purpose}`, metadata: { ...settings.experimental_telemetry?.metadata, purpose } } } : {}),
        });
        return { text: result.text, usage: { inputTokens: result.usage?.inputTokens ?? 0, outputTokens: result.usage?.outputTokens ?? 0 } };
      } catch (error) {
        throw sdkFailure(fn, error, signal);
      }
    },
  };
}

/**
 * memcore's embedder (the Embedder contract: `{ model, dimensions?, maxBatch, embed(request) }`)
 * over an AI SDK embedding model: each call is one `embedMany({ model, values, abortSignal })`.
 * The embedder's `model` id (what stored vectors are tagged with) is `options.model`, else the
 * embedding model's `provider:modelId`; `options.dimensions`, when given, is checked on every
 * vector. Failures as `aiSdkModel`'s.
 *
 * Options: `model`, `dimensions`, `maxBatch` (default the model's `maxEmbeddingsPerCall`, else
 * 64), `maxRetries` (0–10, default 2), `telemetry` (default true: `functionId`
 * `memcore.embed.<purpose>`).
 * @example
 * import { openai } from '@ai-sdk/openai';
 * const embedder = aiSdkEmbedder(openai.embedding('text-embedding-3-small'));
 */
export function aiSdkEmbedder(embeddingModel, options) {
  const fn = 'aiSdkEmbedder';
  if (embeddingModel === undefined || embeddingModel === null) throw new MemcoreError('E_CONFIG', `${fn}: pass an AI SDK embedding model`, { path: 'embeddingModel' });
  const picked = config(fn, options, EMBEDDER_OPTIONS);
  const { maxRetries = 2, telemetry = true, dimensions } = picked;
  const named = typeof embeddingModel === 'string' ? embeddingModel : [embeddingModel.provider, embeddingModel.modelId].filter((p) => typeof p === 'string' && p !== '').join(':');
  const model = picked.model ?? named;
  if (typeof model !== 'string' || model === '') throw new MemcoreError('E_CONFIG', `${fn}: the embedding model has no id: pass options.model`, { path: 'model' });
  if (dimensions !== undefined && (!Number.isSafeInteger(dimensions) || dimensions < 1 || dimensions > 8192)) {
    throw new MemcoreError('E_CONFIG', `${fn}: dimensions must be an integer from 1 to 8192`, { path: 'dimensions' });
  }
  const own = typeof embeddingModel?.maxEmbeddingsPerCall === 'number' ? embeddingModel.maxEmbeddingsPerCall : undefined;
  const maxBatch = picked.maxBatch ?? Math.min(own ?? 64, 2048);
  if (!Number.isSafeInteger(maxBatch) || maxBatch < 1 || maxBatch > 2048) throw new MemcoreError('E_CONFIG', `${fn}: maxBatch must be an integer from 1 to 2048`, { path: 'maxBatch' });
  return {
    model,
    ...(dimensions === undefined ? {} : { dimensions }),
    maxBatch,
    async embed({ texts, purpose, signal }) {
      let embeddings;
      try {
        ({ embeddings } = await embedMany({
          model: embeddingModel,
          values: texts,
          abortSignal: signal,
          maxRetries,
          ...(telemetry ? { experimental_telemetry: { isEnabled: false, functionId: `memcore.embed.${purpose}`, metadata: { purpose } } } : {}),
        }));
      } catch (error) {
        throw sdkFailure(fn, error, signal);
      }
      if (!Array.isArray(embeddings) || embeddings.length !== texts.length) {
        throw new MemcoreError('E_HOST', `${fn}: the model answered ${embeddings?.length ?? 'no'} vectors for ${texts.length} texts`, { transient: false, status: null });
      }
      if (dimensions !== undefined) {
        const wrong = embeddings.findIndex((v) => v?.length !== dimensions);
        if (wrong >= 0) throw new MemcoreError('E_HOST', `${fn}: vector ${wrong} has ${embeddings[wrong]?.length} dimensions, not ${dimensions}`, { transient: false, status: null });
      }
      return { vectors: embeddings.map((v) => Float32Array.from(v)), model };
    },
  };
}

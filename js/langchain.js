// `memcore/langchain`: the four memory tools as LangChain.js tools (`@langchain/core/tools`
// `tool()` with the core's JSON schema), for `model.bindTools(tools)`, agents and `ToolNode`.
//
// Unlike the AI SDK and the Agents SDK, LangChain validates the arguments against a JSON schema
// before the function runs: a call the schema refuses (a category outside the list, a missing
// `key`, a number for `query`) throws `ToolInputParsingException` from `invoke` (LangChain's
// agents turn it into an error `ToolMessage`) and reaches neither the core nor the store. Every
// call the schema accepts gets the core's exact answer. The schema cannot be hidden from that
// check without hiding it from the model too: LangChain's providers send `tool.schema` as it is.
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { MemcoreError } from './errors.js';
import { memoryToolSpecs } from './tool-sets.js';

/**
 * The four tools (`DynamicStructuredTool`s) over one `createMemoryTools` object (one user, agent
 * and turn). Each resolves to the exact answer string — a `ToolMessage` with that content when
 * invoked with a tool call — and rejects only when LangChain's schema check refuses the arguments.
 * @example
 * const memory = createMemoryTools({ store, userId, agentId });
 * const tools = langChainMemoryTools(memory);
 * const ai = await model.bindTools(tools).invoke(messages);
 * for (const call of ai.tool_calls ?? []) messages.push(await tools.find((t) => t.name === call.name).invoke(call));
 */
export function langChainMemoryTools(memoryTools) {
  return memoryToolSpecs('langChainMemoryTools', memoryTools).map((spec) =>
    tool((input) => spec.call(input), { name: spec.name, description: spec.description, schema: spec.inputSchema }),
  );
}

function options(fn, given, allowed) {
  if (given === undefined || given === null) return {};
  if (typeof given !== 'object' || Array.isArray(given)) throw new MemcoreError('E_CONFIG', `${fn}: options must be an object`, { path: 'options' });
  for (const key of Object.keys(given)) {
    if (!allowed.includes(key)) throw new MemcoreError('E_CONFIG', `${fn}: unknown option ${key} (known: ${allowed.join(', ')})`, { path: key });
  }
  return given;
}

/**
 * A LangChain failure as memcore's `E_HOST`: `details.transient` for an abort, a timeout, a
 * network error, 429 or 5xx; `details.status` the HTTP status a provider error carries (`status`,
 * `statusCode` or `response.status`), else `null`; `details.cancelled` for an abort.
 */
function chainFailure(fn, error, signal) {
  const read = (f) => {
    try {
      return f();
    } catch {
      return undefined;
    }
  };
  const raw = read(() => error?.status ?? error?.statusCode ?? error?.response?.status);
  const status = typeof raw === 'number' ? raw : null;
  const name = read(() => error?.name) ?? null;
  const message = read(() => (error instanceof Error ? error.message : String(error))) ?? 'it failed without a message';
  const cancelled = signal?.aborted === true || name === 'AbortError' || /^abort/i.test(message);
  const network = ['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EAI_AGAIN'].includes(read(() => error?.code ?? error?.cause?.code));
  const transient = cancelled || name === 'TimeoutError' || network || status === 429 || (status !== null && status >= 500);
  return new MemcoreError('E_HOST', `${fn}: ${message}`, { status, transient, ...(cancelled ? { cancelled: true } : {}), name });
}

/** The text of a LangChain message: its `text`, else its string content, else its text blocks. */
function messageText(message) {
  if (typeof message === 'string') return message;
  if (typeof message?.text === 'string') return message.text;
  const content = message?.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part === 'string' ? part : part?.type === 'text' ? part.text ?? '' : '')).join('');
  return '';
}

/**
 * memcore's language model (`MemoryModel`) over a LangChain chat model (any `Runnable` taking
 * messages: `ChatOpenAI`, `ChatAnthropic`, a chain, …): each call is one
 * `invoke([SystemMessage(system), HumanMessage(user)], { signal, runName: 'memcore.<purpose>',
 * tags: ['memcore', 'memcore.<purpose>'], metadata: { purpose } })`, so the app's model,
 * callbacks and tracing (LangSmith) carry memcore's calls. `usage_metadata` is mapped to usage.
 * Failures become `E_HOST` with `details.transient` (abort, timeout, network error, 429, 5xx)
 * and `details.status`.
 *
 * LangChain has no call option for an output budget common to every model: pass `budget`, a
 * function from memcore's `maxOutputTokens` (and the purpose) to more call options, for a model
 * whose calls take one (e.g. `(n) => ({ maxTokens: n })` where the model accepts it); without it
 * the model's own limit applies (memcore still refuses an answer over twice its budget).
 * `callOptions` are merged into every call.
 * @example
 * import { ChatOpenAI } from '@langchain/openai';
 * const memory = new ContextMemory({ storage, model: langChainModel(new ChatOpenAI({ model: 'gpt-4o-mini' })) });
 */
export function langChainModel(chatModel, given) {
  const fn = 'langChainModel';
  if (chatModel === null || typeof chatModel?.invoke !== 'function') throw new MemcoreError('E_CONFIG', `${fn}: pass a LangChain chat model (with invoke)`, { path: 'chatModel' });
  const { budget, callOptions = {} } = options(fn, given, ['budget', 'callOptions']);
  if (budget !== undefined && typeof budget !== 'function') throw new MemcoreError('E_CONFIG', `${fn}: budget must be a function (maxOutputTokens, purpose) => call options`, { path: 'budget' });
  if (callOptions === null || typeof callOptions !== 'object' || Array.isArray(callOptions)) throw new MemcoreError('E_CONFIG', `${fn}: callOptions must be an object`, { path: 'callOptions' });
  return {
    async complete({ purpose, system, user, maxOutputTokens, signal }) {
      try {
        const extra = budget ? budget(maxOutputTokens, purpose) ?? {} : {};
        const message = await chatModel.invoke([new SystemMessage(system), new HumanMessage(user)], {
          ...callOptions,
          ...extra,
          signal,
          runName: `memcore.${purpose}`,
          tags: [...(callOptions.tags ?? []), 'memcore', `memcore.${purpose}`],
          metadata: { ...callOptions.metadata, purpose },
        });
        const used = message?.usage_metadata;
        return { text: messageText(message), usage: { inputTokens: used?.input_tokens ?? 0, outputTokens: used?.output_tokens ?? 0 } };
      } catch (error) {
        throw chainFailure(fn, error, signal);
      }
    },
  };
}

/**
 * memcore's embedder (the Embedder contract) over LangChain `Embeddings`: documents through
 * `embedDocuments(texts)`, queries through `embedQuery(text)` (models that embed the two
 * differently keep doing so). The `model` id stored vectors are tagged with is `options.model`,
 * else the embeddings' `model` or `modelName`; `dimensions`, when given, is checked on every
 * vector. LangChain's embeddings take no abort signal: an aborted `signal` is honoured before
 * and after the call. Failures as `langChainModel`'s.
 * @example
 * import { OpenAIEmbeddings } from '@langchain/openai';
 * const embedder = langChainEmbedder(new OpenAIEmbeddings({ model: 'text-embedding-3-small' }));
 */
export function langChainEmbedder(embeddings, given) {
  const fn = 'langChainEmbedder';
  if (embeddings === null || typeof embeddings?.embedDocuments !== 'function' || typeof embeddings?.embedQuery !== 'function') {
    throw new MemcoreError('E_CONFIG', `${fn}: pass LangChain Embeddings (with embedDocuments and embedQuery)`, { path: 'embeddings' });
  }
  const picked = options(fn, given, ['model', 'dimensions', 'maxBatch']);
  const model = picked.model ?? embeddings.model ?? embeddings.modelName;
  if (typeof model !== 'string' || model === '') throw new MemcoreError('E_CONFIG', `${fn}: the embeddings name no model: pass options.model`, { path: 'model' });
  const { dimensions, maxBatch = 64 } = picked;
  if (dimensions !== undefined && (!Number.isSafeInteger(dimensions) || dimensions < 1 || dimensions > 8192)) throw new MemcoreError('E_CONFIG', `${fn}: dimensions must be an integer from 1 to 8192`, { path: 'dimensions' });
  if (!Number.isSafeInteger(maxBatch) || maxBatch < 1 || maxBatch > 2048) throw new MemcoreError('E_CONFIG', `${fn}: maxBatch must be an integer from 1 to 2048`, { path: 'maxBatch' });
  return {
    model,
    ...(dimensions === undefined ? {} : { dimensions }),
    maxBatch,
    async embed({ texts, purpose, signal }) {
      const aborted = () => {
        if (signal?.aborted) throw chainFailure(fn, Object.assign(new Error('aborted'), { name: 'AbortError' }), signal);
      };
      let vectors;
      try {
        aborted();
        vectors = purpose === 'query' ? await Promise.all(texts.map((t) => embeddings.embedQuery(t))) : await embeddings.embedDocuments(texts);
        aborted();
      } catch (error) {
        throw error instanceof MemcoreError ? error : chainFailure(fn, error, signal);
      }
      if (!Array.isArray(vectors) || vectors.length !== texts.length) {
        throw new MemcoreError('E_HOST', `${fn}: the embeddings answered ${vectors?.length ?? 'no'} vectors for ${texts.length} texts`, { transient: false, status: null });
      }
      if (dimensions !== undefined) {
        const wrong = vectors.findIndex((v) => v?.length !== dimensions);
        if (wrong >= 0) throw new MemcoreError('E_HOST', `${fn}: vector ${wrong} has ${vectors[wrong]?.length} dimensions, not ${dimensions}`, { transient: false, status: null });
      }
      return { vectors: vectors.map((v) => Float32Array.from(v)), model };
    },
  };
}

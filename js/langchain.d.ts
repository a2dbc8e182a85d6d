// Typings for `memcore/langchain` (LangChain.js, `@langchain/core` 1.x): the memory tools, and the host's model and embedder.
import type { DynamicStructuredTool } from '@langchain/core/tools';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { Embedder, MemoryModel } from './index.js';
import type { MemoryTools } from './tool-sets.js';

export type { ForgetFactInput, RecallMemoriesInput, RememberFactInput, SearchMemoryInput } from './tool-sets.js';

/**
 * The four tools over one `createMemoryTools` object (one user, agent and turn:
 * `maxWritesPerTurn` counts every tool call of an agent invocation). Each resolves to the exact
 * answer string (a `ToolMessage` with it as content when invoked with a tool call); LangChain's own
 * schema check rejects with `ToolInputParsingException` first. Throws `E_ARGUMENT` for anything else.
 * @example
 * const tools = langChainMemoryTools(createMemoryTools({ store, userId, agentId }));
 * const ai = await model.bindTools(tools).invoke(messages);
 */
export function langChainMemoryTools(memoryTools: MemoryTools): DynamicStructuredTool[];

/** Options of {@link langChainModel}. */
export interface LangChainModelOptions {
  /** More call options for memcore's output budget, where the model takes one: e.g. `(n) => ({ maxTokens: n })`. */
  budget?: (maxOutputTokens: number, purpose: string) => Record<string, unknown> | undefined;
  /** Call options merged into every call (`tags` and `metadata` are extended, not replaced). */
  callOptions?: Record<string, unknown>;
}

/**
 * memcore's language model over a LangChain chat model (any `BaseChatModel`: `ChatOpenAI`,
 * `ChatAnthropic`, …): each call one `invoke([system, human],
 * { signal, runName: 'memcore.<purpose>', tags, metadata })`; `usage_metadata` mapped; failures
 * `E_HOST` with `details.transient` and `details.status`.
 * @example
 * const memory = new ContextMemory({ storage, model: langChainModel(new ChatOpenAI({ model: 'gpt-4o-mini' })) });
 */
export function langChainModel(chatModel: Pick<BaseChatModel, 'invoke'>, options?: LangChainModelOptions): MemoryModel;

/** Options of {@link langChainEmbedder}. */
export interface LangChainEmbedderOptions {
  /** The id stored vectors are tagged with (default the embeddings' `model` or `modelName`). */
  model?: string;
  /** Checked on every vector when given (1–8192). */
  dimensions?: number;
  /** Texts per `embedDocuments` call (1–2048, default 64). */
  maxBatch?: number;
}

/**
 * memcore's embedder over LangChain `Embeddings` (documents: `embedDocuments`, queries:
 * `embedQuery`).
 * @example
 * const embedder = langChainEmbedder(new OpenAIEmbeddings({ model: 'text-embedding-3-small' }));
 */
export function langChainEmbedder(embeddings: { embedDocuments(texts: string[]): Promise<number[][]>; embedQuery(text: string): Promise<number[]> }, options?: LangChainEmbedderOptions): Embedder;

// Typings for `memcore/ai-sdk` (Vercel AI SDK, `ai` 5–7): the memory tools, and the host's model and embedder.
import type { EmbeddingModel, LanguageModel as AiSdkLanguageModel, Tool, CallSettings } from 'ai';
import type { Embedder, MemoryModel } from './index.js';
import type { ForgetFactInput, MemoryHistoryInput, MemoryTools, RecallMemoriesInput, RememberFactInput, SearchMemoryInput } from './tool-sets.js';

export type { ForgetFactInput, MemoryHistoryInput, RecallMemoriesInput, RememberFactInput, SearchMemoryInput } from './tool-sets.js';

/** The tools as an AI SDK tool set (a `ToolSet`): the four, and `memoryHistory` when the config's history is on (the default); each `execute` resolves to the exact answer string. */
export type AiSdkMemoryToolSet = {
  rememberFact: Tool<RememberFactInput, string>;
  recallMemories: Tool<RecallMemoriesInput, string>;
  searchMemory: Tool<SearchMemoryInput, string>;
  forgetFact: Tool<ForgetFactInput, string>;
  memoryHistory?: Tool<MemoryHistoryInput, string>;
};

/**
 * The tool set for `generateText`/`streamText` over one `createMemoryTools` object (one user,
 * agent and turn: `maxWritesPerTurn` counts every step of the call). Throws `E_ARGUMENT` for
 * anything else.
 * @example
 * const memory = createMemoryTools({ store, userId, agentId });
 * const { text } = await generateText({ model, tools: aiSdkMemoryTools(memory), stopWhen: stepCountIs(5), prompt });
 */
export function aiSdkMemoryTools(memoryTools: MemoryTools): AiSdkMemoryToolSet;

/** Options of {@link aiSdkModel}. */
export interface AiSdkModelOptions {
  /** The AI SDK's retries of one call (0–10, default 2). */
  maxRetries?: number;
  /** More `generateText` settings (`temperature`, `providerOptions`, `headers`, `experimental_telemetry`, …); memcore's own (`model`, `system`, `prompt`, `messages`, `maxOutputTokens`, `abortSignal`) cannot be set here. */
  settings?: Record<string, unknown> & Partial<CallSettings>;
  /** Name each call's telemetry span `memcore.<purpose>` with `metadata.purpose` (default true; recorded when `settings.experimental_telemetry.isEnabled`). */
  telemetry?: boolean;
}

/**
 * memcore's language model over an AI SDK language model: each call one `generateText` with
 * memcore's system prompt, user prompt, output budget and abort signal, so the app's provider,
 * gateway, retries and telemetry carry it. Usage mapped; failures `E_HOST` with
 * `details.transient` (abort, timeout, network, 429, 5xx, retryable) and `details.status`.
 * @example
 * import { openai } from '@ai-sdk/openai';
 * const memory = new ContextMemory({ storage, model: aiSdkModel(openai('gpt-4o-mini')) });
 */
export function aiSdkModel(languageModel: AiSdkLanguageModel, options?: AiSdkModelOptions): MemoryModel & { complete: Exclude<MemoryModel, Function>['complete'] };

/** Options of {@link aiSdkEmbedder}. */
export interface AiSdkEmbedderOptions {
  /** The id stored vectors are tagged with (default `provider:modelId`). */
  model?: string;
  /** Checked on every vector when given (1–8192). */
  dimensions?: number;
  /** Texts per call (1–2048, default the model's `maxEmbeddingsPerCall`, else 64). */
  maxBatch?: number;
  /** The AI SDK's retries (0–10, default 2). */
  maxRetries?: number;
  /** Name each call's telemetry span `memcore.embed.<purpose>` (default true). */
  telemetry?: boolean;
}

/**
 * memcore's embedder (the Embedder contract) over an AI SDK embedding model: each call one
 * `embedMany`. Failures as {@link aiSdkModel}'s.
 * @example
 * import { openai } from '@ai-sdk/openai';
 * const embedder = aiSdkEmbedder(openai.embedding('text-embedding-3-small'));
 */
export function aiSdkEmbedder(embeddingModel: EmbeddingModel, options?: AiSdkEmbedderOptions): Embedder;

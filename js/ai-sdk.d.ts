// Typings for `memcore/ai-sdk` (Vercel AI SDK, `ai` 5–7).
import type { Tool } from 'ai';
import type { ForgetFactInput, MemoryTools, RecallMemoriesInput, RememberFactInput, SearchMemoryInput } from './tool-sets.js';

export type { ForgetFactInput, RecallMemoriesInput, RememberFactInput, SearchMemoryInput } from './tool-sets.js';

/** The four tools as an AI SDK tool set (a `ToolSet`); each `execute` resolves to the exact answer string. */
export type AiSdkMemoryToolSet = {
  rememberFact: Tool<RememberFactInput, string>;
  recallMemories: Tool<RecallMemoriesInput, string>;
  searchMemory: Tool<SearchMemoryInput, string>;
  forgetFact: Tool<ForgetFactInput, string>;
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

// Typings for `memcore/langchain` (LangChain.js, `@langchain/core` 1.x).
import type { DynamicStructuredTool } from '@langchain/core/tools';
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

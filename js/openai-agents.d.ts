// Typings for `memcore/openai-agents` (OpenAI Agents SDK for JS, `@openai/agents`).
import type { FunctionTool } from '@openai/agents';
import type { MemoryTools } from './tool-sets.js';

export type { ForgetFactInput, RecallMemoriesInput, RememberFactInput, SearchMemoryInput } from './tool-sets.js';

/**
 * The four non-strict function tools for `new Agent({ tools })` over one `createMemoryTools`
 * object (one user, agent and turn: `maxWritesPerTurn` counts every tool call of a `run`). Each
 * resolves to the exact answer string. Throws `E_ARGUMENT` for anything else.
 * @example
 * const memory = createMemoryTools({ store, userId, agentId });
 * const agent = new Agent({ name: 'Assistant', instructions, tools: openAIAgentsMemoryTools(memory) });
 * const result = await run(agent, userMessage);
 */
export function openAIAgentsMemoryTools<Context = unknown>(memoryTools: MemoryTools): FunctionTool<Context, any, string>[];

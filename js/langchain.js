// `memcore/langchain`: the four memory tools as LangChain.js tools (`@langchain/core/tools`
// `tool()` with the core's JSON schema), for `model.bindTools(tools)`, agents and `ToolNode`.
//
// Unlike the AI SDK and the Agents SDK, LangChain validates the arguments against a JSON schema
// before the function runs: a call the schema refuses (a category outside the list, a missing
// `key`, a number for `query`) throws `ToolInputParsingException` from `invoke` (LangChain's
// agents turn it into an error `ToolMessage`) and reaches neither the core nor the store. Every
// call the schema accepts gets the core's exact answer. The schema cannot be hidden from that
// check without hiding it from the model too: LangChain's providers send `tool.schema` as it is.
import { tool } from '@langchain/core/tools';
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

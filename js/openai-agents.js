// `memcore/openai-agents`: the four memory tools as OpenAI Agents SDK function tools
// (`@openai/agents` `tool()`). They are non-strict (`strict: false`): a remembered `value` is any
// JSON value, which strict mode cannot express, and a non-strict JSON schema is only parsed as
// JSON by the SDK, never validated, so every argument goes to the core, which answers each
// problem in the tool's own words. `execute` resolves to that exact string and never rejects.
import { tool } from '@openai/agents';
import { memoryToolSpecs } from './tool-sets.js';

/**
 * The four tools for `new Agent({ tools })`, over one `createMemoryTools` object (one user,
 * agent and turn).
 * @example
 * const memory = createMemoryTools({ store, userId, agentId });
 * const agent = new Agent({ name: 'Assistant', instructions, tools: openAIAgentsMemoryTools(memory) });
 * const result = await run(agent, userMessage);
 */
export function openAIAgentsMemoryTools(memoryTools) {
  return memoryToolSpecs('openAIAgentsMemoryTools', memoryTools).map((spec) =>
    tool({
      name: spec.name,
      description: spec.description,
      parameters: spec.inputSchema,
      strict: false,
      execute: (input) => spec.call(input),
    }),
  );
}

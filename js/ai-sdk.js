// `memcore/ai-sdk`: the four memory tools as a Vercel AI SDK tool set (`ai` ≥ 5: `tool()` with
// `inputSchema: jsonSchema(…)`). The SDK does not validate arguments against a `jsonSchema()`
// without a `validate` function, so every argument goes to the core, which answers each problem
// in the tool's own words; `execute` resolves to that exact string and never rejects.
import { jsonSchema, tool } from 'ai';
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

// The four memory tools as framework-neutral specs, read from a `createMemoryTools` object: the
// names, descriptions and JSON schemas are its own `definitions.mcp` (made by the core), and every
// call goes to its `call`, whose answer is the exact tool string. `memcore/ai-sdk`,
// `memcore/openai-agents` and `memcore/langchain` only wrap these in their framework's `tool()`.
import { MemcoreError } from './errors.js';

/**
 * `[{ name, description, inputSchema, call(args) }]` for the tools object `memoryTools`. Each
 * schema is a copy: a framework that rewrites a schema cannot change `memoryTools.definitions`.
 */
export function memoryToolSpecs(fn, memoryTools) {
  let definitions;
  let call;
  try {
    call = memoryTools.call;
    definitions = memoryTools.definitions.mcp;
  } catch {
    // null, undefined, a revoked Proxy: the checks below say what was expected
  }
  if (typeof call !== 'function' || !Array.isArray(definitions)) {
    throw new MemcoreError(
      'E_ARGUMENT',
      `${fn}: \`memoryTools\` must be the object createMemoryTools({ store, userId, agentId, … }) returns (one per user turn)`,
      { function: fn, argument: 'memoryTools' },
    );
  }
  return definitions.map(({ name, description, inputSchema }) => ({
    name,
    description,
    inputSchema: structuredClone(inputSchema),
    call: (args) => memoryTools.call(name, args),
  }));
}

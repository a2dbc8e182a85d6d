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
  const misuse = () =>
    new MemcoreError(
      'E_ARGUMENT',
      `${fn}: \`memoryTools\` must be the object createMemoryTools({ store, userId, agentId, … }) returns (one per user turn)`,
      { function: fn, argument: 'memoryTools' },
    );
  let specs;
  try {
    const { call } = memoryTools;
    const definitions = memoryTools.definitions.mcp;
    if (typeof call !== 'function' || !Array.isArray(definitions)) throw misuse();
    specs = definitions.map(({ name, description, inputSchema }) => {
      if (typeof name !== 'string' || typeof description !== 'string' || inputSchema === null || typeof inputSchema !== 'object') throw misuse();
      return { name, description, inputSchema: structuredClone(inputSchema), call: (args) => memoryTools.call(name, args) };
    });
  } catch {
    // null, undefined, a revoked Proxy, a getter that throws, definitions of another shape
    throw misuse();
  }
  return specs;
}

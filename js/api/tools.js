// The LLM memory tools (behaviour §2.5)
import { argumentError, fields, handle, invoke, json, live, remakeable, runTask } from '../wire.js';
import { entryOptions, parsed, storeArg } from './arguments.js';
import { telemetryOption, toolSpan, UNKNOWN_TOOL } from '../telemetry/core.js';

/**
 * The four LLM tools for one user, agent and turn. Calls run one at a time (in order, in the
 * core), so `maxWritesPerTurn` holds even when a model loop fires them in parallel.
 */
export function createMemoryTools(options) {
  const fn = 'createMemoryTools';
  if (options === undefined || options === null) throw argumentError(fn, 'options', 'must be an object like { store, userId, agentId }');
  const { store } = fields(fn, 'options', options, ['store']);
  storeArg(fn, 'store', store);
  const [o, hosts] = entryOptions(fn, options, true, ['telemetry']);
  // memcore/telemetry (optional): a span per call, and the answers counted by tool and kind.
  const telemetry = telemetryOption(fn, fields(fn, 'options', options, ['telemetry']).telemetry);
  const owner = {};
  // Made again after a failed instance (the count of writes starts over; an InMemoryEntryStore of
  // the failed instance answers E_INTERNAL through the tools' failure answers).
  const make = () => {
    const s = storeArg(fn, 'store', store);
    return invoke((g) => g.createMemoryTools(s, o, hosts));
  };
  const h = remakeable(handle(owner, make, (g, id) => g.toolsFree(id), 'MemoryTools'));
  const id = () => live(h);
  const first = id();
  const definitions = parsed(invoke((g) => g.toolsDefinitions(first)));
  // Telemetry names only the tools the core defines: any other name a model makes up is one label,
  // `_unknown` (no unbounded label set, no channel for content).
  const known = new Set((definitions?.mcp ?? []).map((d) => d?.name).filter((n) => typeof n === 'string'));
  const run = (name, args) => {
    let shown;
    try {
      shown = typeof name === 'string' ? name : String(name);
    } catch {
      shown = typeof name;
    }
    let a;
    try {
      a = json(fn, 'args', args) ?? 'null';
    } catch {
      a = undefined; // cannot be read as JSON: the tools answer "Invalid arguments"
    }
    let tools;
    try {
      tools = id();
    } catch (error) {
      return Promise.resolve(failure(shown, error));
    }
    const call = () => runTask((g) => g.toolsCall(tools, shown, a)).catch((error) => failure(shown, error));
    if (!telemetry) return call();
    return toolSpan(telemetry, known.has(shown) ? shown : UNKNOWN_TOOL, call);
  };
  // Only a failed instance gets here (the core answers every other problem itself).
  const failure = (shown, error) => {
    let answer;
    try {
      answer = invoke((g) => g.toolFailure(shown, error.message));
    } catch {
      answer = `❌ Failed to store memory: ${error.message}`;
    }
    return { text: answer, wrote: false };
  };
  return Object.freeze({
    // Keeps the handle alive as long as the tools object: it is freed when both are collected.
    [Symbol.for('memcore.handle')]: owner,
    definitions,
    /** Run a tool; resolves to the exact answer text for the model. Never rejects. */
    call: async (name, args) => (await run(name, args)).text,
    /** Run a tool; resolves to `{ text, wrote }`. Never rejects. */
    run,
    /** Start the next turn: `maxWritesPerTurn` counts from zero again. */
    newTurn: () => {
      const tools = id();
      invoke((g) => g.toolsNewTurn(tools));
    },
    get writesThisTurn() {
      const tools = id();
      return invoke((g) => g.toolsWritesThisTurn(tools));
    },
  });
}


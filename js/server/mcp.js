// The MCP endpoint of memcore/server: behaviour §2.8's eight tools on the official SDK's McpServer,
// served by its Fetch-API (web-standard) Streamable HTTP transport in stateless mode with JSON
// answers — a fresh server and transport per HTTP request, so the same code runs in Node and
// inside a Worker, and every tool call carries the principal of its own request. The tools call
// the same operations as REST (./operations.js). The tools' names, descriptions, argument schemas
// and the rules met before a tool runs (administrators only, the confirmation word) are the core's
// (src/entries/mcp_tools.rs); this file maps the JSON schemas onto zod, the schema language the
// SDK reads (it lists them back as the same JSON schemas), and each tool onto its operation.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { z } from 'zod';
import { version } from '../api.js';
import { mcpToolDefinitions } from '../api/mcp.js';
import { HttpFailure, readJson, thrownMessage } from './http.js';
import { mayAct } from './principal.js';
import { hasScope, missingScopeMessage, toolScope, toolWrites } from './scopes.js';
import { MCP_TOOL_NAMES } from './mcp-tools.js';
import { answerOf, FORBIDDEN_MESSAGE } from './outcomes.js';
import { answerKind } from '../telemetry/core.js';


// The SDK never asks the client for input here (no elicitation), so it needs no JSON-schema
// validator; one that refuses keeps Ajv (which compiles with `new Function`, refused in Workers)
// out of the request path.
export const noValidator = { getValidator: () => () => ({ valid: false, data: undefined, errorMessage: 'not used' }) };

function answer(value) {
  return { content: [{ type: 'text', text: JSON.stringify(value) }] };
}

function toolError(code, message, extra = {}) {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: { code, message, ...extra } }) }] };
}

const FORBIDDEN = () => toolError('E_FORBIDDEN', FORBIDDEN_MESSAGE);

/** The tool answer of a core outcome, from the table REST answers by too (./outcomes.js). */
function toolAnswer(kind, name, outcome) {
  const found = answerOf(kind, name, outcome, 'mcp');
  if (found.error) return toolError(found.error.code, found.error.message, found.error.extra);
  return answer(found.body);
}

const refused = ({ code, message }) => toolError(code, message);

/**
 * Run a tool body after the rules of its definition: the principal holds the tool's scope
 * (./scopes.js), acts on its own user (admins on
 * any), an admin-only tool refuses everyone else, a confirmation argument must be the word. A store
 * failure or misuse becomes a tool error, never a thrown protocol error.
 */
function guarded(principal, tool, body, hooks) {
  return async (args) => {
    try {
      const scope = toolScope(tool.name);
      if (!hasScope(principal, scope)) return toolError('E_FORBIDDEN', missingScopeMessage(scope), { missingScope: scope });
      // A write counts against the principal's writes per minute (the handler's limits).
      if (toolWrites(tool.name)) {
        try {
          hooks.chargeWrite?.();
        } catch (error) {
          return toolError(error.code, error.message, { retryAfterSeconds: error.extra?.retryAfterSeconds });
        }
      }
      if (typeof args.userId === 'string' && !mayAct(principal, args.userId)) return FORBIDDEN();
      if (tool.adminOnly && !principal.admin) return refused(tool.adminOnly);
      if (tool.confirmation && args[tool.confirmation.argument] !== tool.confirmation.word) return refused(tool.confirmation.refusal);
      return await body(args);
    } catch (error) {
      let code = 'E_INTERNAL';
      let message = 'the tool failed';
      try {
        if (typeof error?.code === 'string') code = error.code;
        message = thrownMessage(error, message);
      } catch {
        // a hostile thrown value
      }
      return toolError(code, message);
    }
  };
}

/**
 * What each tool does: `run(args, principal, ops)` answers one call whose arguments passed the
 * schema and the definition's rules.
 */
const RUNS = {
  list_user_memories: async ({ userId, asOf }, _principal, ops) => answer({ entries: await ops.list(userId, asOf) }),
  get_visible_memories: async (args, _principal, ops) => {
    const found = await ops.visible(args);
    return toolAnswer('visible', found.violations ? 'violations' : 'found', found);
  },
  search_user_memories: async ({ userId, query, mode, limit, asOf }, _principal, ops) => answer({ entries: await ops.search(userId, query, { mode, limit, asOf }) }),
  get_memory_by_key: async ({ userId, key, agentId, asOf }, _principal, ops) => {
    const entry = await ops.byKey(userId, key, agentId, asOf);
    return toolAnswer('byKey', entry ? 'found' : 'missing', { entry, key });
  },
  count_user_memories: async ({ userId, asOf }, _principal, ops) => answer({ count: await ops.count(userId, asOf) }),
  upsert_user_memory: async (args, principal, ops) => {
    const outcome = await ops.upsert(args, 'mcp', principal);
    return toolAnswer('upsert', outcome.outcome, outcome);
  },
  delete_user_memory: async ({ entryId }, principal, ops) => {
    const outcome = await ops.deleteEntry(entryId, principal);
    return toolAnswer('deleteEntry', outcome.outcome, outcome);
  },
  delete_all_user_memories: async ({ userId }, principal, ops) => answer({ deleted: await ops.deleteAll(userId, principal) }),
  delete_user_data: async ({ userId }, principal, ops) => answer(await ops.erase(userId, principal)),
  get_memory_history: async ({ userId, key, entryId }, _principal, ops) => answer(await ops.history(userId, { key, entryId })),
  search_user_episodes: async ({ userId, query, mode, limit, conversationId, asOf }, _principal, ops) => answer({ episodes: await ops.episodes(userId, query, { mode, limit, conversationId, asOf }) }),
};

const SAFE_INTEGER = { minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };

/**
 * The zod type of one argument's JSON schema — exactly the forms the core writes; any other is a
 * build error here, not a silently looser check. `z.number().int()` is zod's JSON-safe integer.
 */
export function zodOf(schema, where) {
  const unsupported = () => new Error(`memcore/server: the MCP schema of ${where} has a form the server cannot map: ${JSON.stringify(schema)}`);
  if (schema.enum) return z.enum(schema.enum);
  // Any JSON value but null (rememberFact's `value`): each of its types, the core checks the rest.
  if (Array.isArray(schema.anyOf) && schema.type === undefined) {
    const plain = { string: z.string(), number: z.number(), boolean: z.boolean(), object: z.record(z.string(), z.unknown()) };
    const types = schema.anyOf.map((s) => (s.type === 'array' && s.items && Object.keys(s.items).length === 0 ? z.array(z.unknown()) : plain[s.type]));
    if (types.length < 2 || types.some((type) => type === undefined)) throw unsupported();
    return z.union(types);
  }
  switch (schema.type) {
    case undefined:
      return z.unknown();
    case 'string':
      return schema.minLength === undefined ? z.string() : z.string().min(schema.minLength);
    case 'integer':
      if (schema.minimum !== SAFE_INTEGER.minimum || schema.maximum !== SAFE_INTEGER.maximum) throw unsupported();
      return z.number().int();
    case 'array':
      return z.array(zodOf(schema.items, `${where}[]`));
    default:
      throw unsupported();
  }
}

/** The strict zod object of a tool's input schema: an argument it does not know is an error. */
export function zodObjectOf({ name, inputSchema }) {
  const shape = {};
  for (const [argument, schema] of Object.entries(inputSchema.properties)) {
    let type = zodOf(schema, `${name}.${argument}`);
    if (!(inputSchema.required ?? []).includes(argument)) type = type.optional();
    if (schema.description !== undefined) type = type.describe(schema.description);
    shape[argument] = type;
  }
  return z.object(shape).strict();
}

// The tools, built once per process on the first request: zod schemas are costly to construct and
// the SDK reads them per server, so every request's server gets these same objects.
let tools;
function mcpTools() {
  if (tools) return tools;
  const defined = mcpToolDefinitions();
  // One list of names: the one every runtime can import without the SDK (mcp-tools.js).
  if (defined.map((t) => t.name).join() !== MCP_TOOL_NAMES.join()) throw new Error('memcore/server: MCP_TOOL_NAMES and the core\'s tools disagree');
  tools = defined.map((tool) => Object.freeze({ ...tool, run: RUNS[tool.name], zodSchema: zodObjectOf(tool) }));
  return tools;
}

function register(server, principal, ops, hooks) {
  for (const tool of mcpTools()) {
    server.registerTool(tool.name, { description: tool.description, inputSchema: tool.zodSchema }, mcpToolSpan(hooks.telemetry, tool.name, guarded(principal, tool, (args) => tool.run(args, principal, ops), hooks)));
  }
}

/** Answer one HTTP request to the MCP endpoint (`hooks.chargeWrite()`: the handler's write limit, throws when over). */
export async function mcpResponse(request, principal, ops, hooks = {}) {
  if (request.method !== 'POST') {
    // Stateless: no server-initiated stream (GET) and no session to end (DELETE).
    throw new HttpFailure(405, `${request.method} is not allowed on the MCP endpoint (stateless: POST only)`, { headers: { allow: 'POST' } });
  }
  const parsedBody = await readJson(request);
  const server = new McpServer({ name: 'memcore', version: version() }, { jsonSchemaValidator: noValidator });
  register(server, principal, ops, hooks);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    return await transport.handleRequest(request, { parsedBody });
  } finally {
    await server.close().catch(() => {});
  }
}

/**
 * An MCP tool's body as a span `execute_tool <name>` (GenAI and MCP conventions) with its answer
 * counted, when the handler has a telemetry (memcore/telemetry); the body itself otherwise.
 */
export function mcpToolSpan(telemetry, name, body) {
  if (!telemetry) return body;
  return (args) => telemetry.operation(`execute_tool ${name}`, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'mcp.method.name': 'tools/call' }, () => body(args), (error, result) => {
    let answer = 'failed';
    if (error === undefined) {
      try {
        // An agent tool's answer text is counted by its mark (✅ ok, ⚠️ refused, ❌ failed).
        const kind = result?.isError ? null : answerKind(result?.content?.[0]?.text);
        answer = result?.isError ? `error:${JSON.parse(result.content[0].text).error.code}` : kind === 'answered' ? 'ok' : kind;
      } catch {
        answer = result?.isError ? 'error' : 'ok';
      }
    }
    if (!/^(ok|refused|error|failed|error:E_[A-Z_]{1,40})$/.test(answer)) answer = 'error';
    telemetry.record('tools', { tool: name, answer });
    return answer === 'ok' ? 'ok' : 'error';
  });
}

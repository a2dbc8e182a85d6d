// The MCP endpoint of memcore/server: SPEC §2.8's eight tools on the official SDK's McpServer,
// served by its Fetch-API (web-standard) Streamable HTTP transport in stateless mode with JSON
// answers — a fresh server and transport per HTTP request, so the same code runs in Node and
// inside a Worker, and every tool call carries the principal of its own request. The tools call
// the same operations as REST (./operations.js); arguments are checked by zod schemas the SDK
// turns into the tools' JSON schemas.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { z } from 'zod';
import { version } from '../api.js';
import { HttpFailure, readJson } from './http.js';
import { mayAct } from './principal.js';
import { MCP_TOOL_NAMES } from './mcp-tools.js';
import { answerOf, FORBIDDEN_MESSAGE } from './outcomes.js';


const id = (what) => z.string().min(1).describe(what);
const userId = id('The user whose memories these are.');

// The SDK never asks the client for input here (no elicitation), so it needs no JSON-schema
// validator; one that refuses keeps Ajv (which compiles with `new Function`, refused in Workers)
// out of the request path.
const noValidator = { getValidator: () => () => ({ valid: false, data: undefined, errorMessage: 'not used' }) };

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

/** Run a tool body; a store failure or misuse becomes a tool error, never a thrown protocol error. */
function guarded(principal, body) {
  return async (args) => {
    try {
      if (typeof args.userId === 'string' && !mayAct(principal, args.userId)) return FORBIDDEN();
      return await body(args);
    } catch (error) {
      let code = 'E_INTERNAL';
      let message = 'the tool failed';
      try {
        if (typeof error?.code === 'string') code = error.code;
        if (typeof error?.message === 'string') message = error.message;
      } catch {
        // a hostile thrown value
      }
      return toolError(code, message);
    }
  };
}

// The tools, built once per process: zod schemas are costly to construct and the SDK reads
// them per server, so every request's server gets these same objects. Schemas are strict: an
// argument a tool does not know (a typo, REST's `sourceAgentId`) is an error, not ignored.
// `run(args, principal, ops)` answers one call.
const TOOLS = [
  {
    name: 'list_user_memories',
    description: 'Every memory entry of a user, all visibilities, most recently updated first.',
    shape: { userId },
    run: async ({ userId }, _principal, ops) => answer({ entries: await ops.list(userId) }),
  },
  {
    name: 'get_visible_memories',
    description: 'The entries one agent sees (global, its own self entries, group entries of its group), in recall order.',
    shape: {
      userId,
      agentId: id('The agent that looks.'),
      groupId: z.string().optional().describe('The group the agent is in, if any.'),
      order: z.enum(['most_recent', 'most_accessed']).optional(),
      limit: z.number().int().optional().describe('At most this many (1-1000).'),
    },
    run: async (args, _principal, ops) => {
      const found = await ops.visible(args);
      return toolAnswer('visible', found.violations ? 'violations' : 'found', found);
    },
  },
  {
    name: 'search_user_memories',
    description: "A user's entries whose key or value contains every word of the query (case-insensitive).",
    shape: { userId, query: z.string().describe('Words to find.') },
    run: async ({ userId, query }, _principal, ops) => answer({ entries: await ops.search(userId, query) }),
  },
  {
    name: 'get_memory_by_key',
    description: "The entry with a key: the agent's own self/group entry when agentId is given and has one, else the global entry.",
    shape: { userId, key: id('The key.'), agentId: z.string().optional() },
    run: async ({ userId, key, agentId }, _principal, ops) => {
      const entry = await ops.byKey(userId, key, agentId);
      return toolAnswer('byKey', entry ? 'found' : 'missing', { entry, key });
    },
  },
  {
    name: 'count_user_memories',
    description: "How many entries count toward the user's cap (all but _gdpr_ entries).",
    shape: { userId },
    run: async ({ userId }, _principal, ops) => answer({ count: await ops.count(userId) }),
  },
  {
    name: 'upsert_user_memory',
    description: 'Create or update one entry (write rules, identity and the per-user cap apply).',
    shape: {
      userId,
      key: z.string().describe('At most 255 characters; _gdpr_ keys are reserved.'),
      value: z.unknown().optional().describe('Any JSON value (at most 64 KiB as JSON).'),
      category: z.string().optional().describe('preference, fact, context, legacy or property (default fact).'),
      visibility: z.enum(['self', 'group', 'global']),
      agentId: z.string().optional().describe('Required for self and group entries.'),
      groupIds: z.array(z.string()).optional().describe('Required (non-empty) for group entries.'),
      sourceConversationId: z.string().optional(),
    },
    run: async (args, _principal, ops) => {
      const outcome = await ops.upsert(args, 'mcp');
      return toolAnswer('upsert', outcome.outcome, outcome);
    },
  },
  {
    name: 'delete_user_memory',
    description: 'Delete one entry by id.',
    shape: { entryId: id('The entry id.') },
    run: async ({ entryId }, principal, ops) => {
      const outcome = await ops.deleteEntry(entryId, principal);
      return toolAnswer('deleteEntry', outcome.outcome, outcome);
    },
  },
  {
    name: 'delete_all_user_memories',
    description: 'Delete every entry of a user except _gdpr_ entries. Requires confirmation: "CONFIRM".',
    shape: { userId, confirmation: z.string().optional().describe('Must be exactly "CONFIRM".') },
    run: async ({ userId, confirmation }, _principal, ops) => {
      if (confirmation !== 'CONFIRM') return toolError('E_BAD_REQUEST', 'confirmation must be exactly "CONFIRM"');
      return answer({ deleted: await ops.deleteAll(userId) });
    },
  },
  {
    name: 'delete_user_data',
    description: 'GDPR Art. 17 (administrators only): erase everything of a user — every entry, _gdpr_ ones included, and the profile. Requires confirmation: "CONFIRM".',
    shape: { userId, confirmation: z.string().optional().describe('Must be exactly "CONFIRM".') },
    run: async ({ userId, confirmation }, principal, ops) => {
      if (!principal.admin) return toolError('E_FORBIDDEN', 'delete_user_data is for administrators');
      if (confirmation !== 'CONFIRM') return toolError('E_BAD_REQUEST', 'confirmation must be exactly "CONFIRM"');
      return answer(await ops.erase(userId));
    },
  },
].map((tool) => Object.freeze({ ...tool, inputSchema: z.object(tool.shape).strict() }));

function register(server, principal, ops) {
  for (const tool of TOOLS) {
    server.registerTool(tool.name, { description: tool.description, inputSchema: tool.inputSchema }, guarded(principal, (args) => tool.run(args, principal, ops)));
  }
}

/** Answer one HTTP request to the MCP endpoint. */
export async function mcpResponse(request, principal, ops) {
  if (request.method !== 'POST') {
    // Stateless: no server-initiated stream (GET) and no session to end (DELETE).
    throw new HttpFailure(405, `${request.method} is not allowed on the MCP endpoint (stateless: POST only)`, { headers: { allow: 'POST' } });
  }
  const parsedBody = await readJson(request);
  const server = new McpServer({ name: 'memcore', version: version() }, { jsonSchemaValidator: noValidator });
  register(server, principal, ops);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    return await transport.handleRequest(request, { parsedBody });
  } finally {
    await server.close().catch(() => {});
  }
}

// One list of names: the one every runtime can import without the SDK (mcp-tools.js).
if (TOOLS.map((t) => t.name).join() !== MCP_TOOL_NAMES.join()) throw new Error('memcore/server: MCP_TOOL_NAMES and the tools disagree');

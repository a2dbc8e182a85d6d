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

/** The tool names, in definition order (SPEC §2.8). */
export const MCP_TOOL_NAMES = Object.freeze([
  'list_user_memories',
  'get_visible_memories',
  'search_user_memories',
  'get_memory_by_key',
  'count_user_memories',
  'upsert_user_memory',
  'delete_user_memory',
  'delete_all_user_memories',
]);

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

const FORBIDDEN = () => toolError('E_FORBIDDEN', "the principal may not act on another user's memory");

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

function register(server, principal, ops) {
  const tool = (name, description, shape, body) =>
    server.registerTool(name, { description, inputSchema: shape }, guarded(principal, body));

  tool('list_user_memories', "Every memory entry of a user, all visibilities, most recently updated first.", { userId }, async ({ userId }) =>
    answer({ entries: await ops.list(userId) }),
  );
  tool(
    'get_visible_memories',
    'The entries one agent sees (global, its own self entries, group entries of its group), in recall order.',
    {
      userId,
      agentId: id('The agent that looks.'),
      groupId: z.string().optional().describe('The group the agent is in, if any.'),
      order: z.enum(['most_recent', 'most_accessed']).optional(),
      limit: z.number().int().optional().describe('At most this many (1-1000).'),
    },
    async (args) => {
      const found = await ops.visible(args);
      if (found.violations) return toolError('E_BAD_REQUEST', 'the query is not valid', { violations: found.violations });
      return answer({ entries: found.entries });
    },
  );
  tool(
    'search_user_memories',
    "A user's entries whose key or value contains every word of the query (case-insensitive).",
    { userId, query: z.string().describe('Words to find.') },
    async ({ userId, query }) => answer({ entries: await ops.search(userId, query) }),
  );
  tool(
    'get_memory_by_key',
    "The entry with a key: the agent's own self/group entry when agentId is given and has one, else the global entry.",
    { userId, key: id('The key.'), agentId: z.string().optional() },
    async ({ userId, key, agentId }) => {
      const entry = await ops.byKey(userId, key, agentId);
      if (!entry) return toolError('E_NOT_FOUND', `no memory with key '${key}'`);
      return answer({ entry });
    },
  );
  tool('count_user_memories', "How many entries count toward the user's cap (all but _gdpr_ entries).", { userId }, async ({ userId }) =>
    answer({ count: await ops.count(userId) }),
  );
  tool(
    'upsert_user_memory',
    'Create or update one entry (write rules, identity and the per-user cap apply).',
    {
      userId,
      key: z.string().describe('At most 255 characters; _gdpr_ keys are reserved.'),
      value: z.unknown().optional().describe('Any JSON value (at most 64 KiB as JSON).'),
      category: z.string().optional().describe('preference, fact, context, legacy or property (default fact).'),
      visibility: z.enum(['self', 'group', 'global']),
      agentId: z.string().optional().describe('Required for self and group entries.'),
      groupIds: z.array(z.string()).optional().describe('Required (non-empty) for group entries.'),
      sourceConversationId: z.string().optional(),
    },
    async (args) => {
      const outcome = await ops.upsert(args, 'mcp');
      switch (outcome.outcome) {
        case 'stored':
          return answer({ entry: outcome.entry, created: outcome.created, evicted: outcome.evicted });
        case 'unchanged':
          return answer({ entry: outcome.entry, created: false, unchanged: true, evicted: [] });
        case 'invalid':
          return toolError('E_BAD_REQUEST', 'the request breaks the write rules', { violations: outcome.violations });
        case 'full':
          return toolError('E_CAPACITY', outcome.message);
        default:
          return toolError('E_RESTRICTED', outcome.message);
      }
    },
  );
  tool('delete_user_memory', 'Delete one entry by id.', { entryId: id('The entry id.') }, async ({ entryId }) => {
    const outcome = await ops.deleteEntry(entryId, principal);
    switch (outcome.outcome) {
      case 'deleted':
        return answer({ deleted: true, entry: outcome.entry });
      case 'foreign':
        return FORBIDDEN();
      case 'reserved':
        return toolError('E_BAD_REQUEST', "entries with keys starting with '_gdpr_' are reserved and cannot be deleted here");
      default:
        return toolError('E_NOT_FOUND', 'no memory with this id');
    }
  });
  tool(
    'delete_all_user_memories',
    'Delete every entry of a user except _gdpr_ entries. Requires confirmation: "CONFIRM".',
    { userId, confirmation: z.string().optional().describe('Must be exactly "CONFIRM".') },
    async ({ userId, confirmation }) => {
      if (confirmation !== 'CONFIRM') return toolError('E_BAD_REQUEST', 'confirmation must be exactly "CONFIRM"');
      return answer({ deleted: await ops.deleteAll(userId) });
    },
  );
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

// The agent's own MCP endpoint of memcore/server (issue 23): the four guarded LLM tools —
// rememberFact, recallMemories, searchMemory, forgetFact, with their byte-exact answers, write
// limits, caps and secret policy — bound to the authenticated principal: the user, the agent and
// the group come from the principal (`{ userId, agentId?, groupId? }`), never from a tool argument
// (an argument a tool does not define, `userId` included, is refused by the strict schema). With a
// ContextMemory the profile too: the resource `memory://profile` (the section memcore injects into
// a system prompt) and the tools `get_profile` / `update_profile` (the Settings rules of the behaviour reference
// §1.10). Stateless Streamable HTTP like the admin endpoint: one MCP request is one tool turn —
// `maxWritesPerTurn` counts the writes of one request.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { z } from 'zod';
import { createMemoryTools, version } from '../api.js';
import { HttpFailure, readJson, thrownMessage } from './http.js';
import { mcpToolSpan, noValidator, zodObjectOf } from './mcp.js';

import { DEFAULT_AGENT_ID } from './mcp-tools.js';
import { hasScope, missingScopeMessage, toolScope, toolWrites } from './scopes.js';

const text = (value) => ({ content: [{ type: 'text', text: value }] });
const failure = (error) => {
  let code = 'E_INTERNAL';
  let message = 'the tool failed';
  try {
    if (typeof error?.code === 'string') code = error.code;
    message = thrownMessage(error, message);
  } catch {
    // a hostile thrown value
  }
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: { code, message } }) }] };
};

/**
 * A tool body run only for a principal holding the tool's scope (./scopes.js): otherwise the
 * tool answers E_FORBIDDEN naming the scope, as REST's 403 does.
 */
function scoped(principal, name, body, chargeWrite) {
  const scope = toolScope(name);
  if (hasScope(principal, scope)) {
    if (!chargeWrite || !toolWrites(name)) return body;
    // A write counts against the principal's writes per minute (the handler's limits).
    return async (args) => {
      try {
        chargeWrite();
      } catch (error) {
        return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: { code: error.code, message: error.message, retryAfterSeconds: error.extra?.retryAfterSeconds } }) }] };
      }
      return body(args);
    };
  }
  const refusal = { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: { code: 'E_FORBIDDEN', message: missingScopeMessage(scope), missingScope: scope } }) }] };
  return async () => refusal;
}

// The zod schemas of the four tools, built once per configuration (the allowed categories are
// part of rememberFact's schema).
const schemas = new Map();
function schemaOf(definition) {
  const key = JSON.stringify(definition);
  if (!schemas.has(key)) schemas.set(key, zodObjectOf(definition));
  return schemas.get(key);
}

/**
 * The agent endpoint's MCP server for `principal` over `hosts` (`{ entries, profiles?, config?,
 * now?, newId?, embedder? }`): the four memory tools, and with a ContextMemory the profile resource
 * and tools. `turn: 'server'` — every tool call of this server is one tool turn (an HTTP request:
 * the server lives for one request); `'call'` — each call is its own turn (a long-lived stdio
 * session, which has no request boundary).
 */
export function agentMcpServer(principal, { entries, profiles, config, now, newId, embedder, chargeWrite, telemetry }, { turn = 'server' } = {}) {
  const userId = principal.userId;
  const tools = () =>
    createMemoryTools({
      store: entries,
      userId,
      agentId: principal.agentId ?? DEFAULT_AGENT_ID,
      group: principal.groupId ?? null,
      ...(config === undefined || config === null ? {} : { config }),
      ...(now ? { now } : {}),
      ...(newId ? { newId } : {}),
      ...(embedder ? { embedder } : {}),
    });
  const shared = tools();
  const memory = () => (turn === 'call' ? tools() : shared);
  const server = new McpServer({ name: 'memcore-agent', version: version() }, { jsonSchemaValidator: noValidator });
  for (const definition of shared.definitions.mcp) {
    server.registerTool(definition.name, { description: definition.description, inputSchema: schemaOf(definition) }, mcpToolSpan(telemetry, definition.name, scoped(principal, definition.name, async (args) => {
      try {
        return text(await memory().call(definition.name, args));
      } catch (error) {
        return failure(error);
      }
    }, chargeWrite)));
  }
  if (profiles) {
    server.registerResource(
      'profile',
      'memory://profile',
      { title: 'What I know about you', description: 'The profile memory as it is injected into a system prompt (empty when there is none).', mimeType: 'text/markdown' },
      async (uri) => {
        // A resource has no tool answer: a principal without profile:read gets a protocol error naming the scope.
        if (!hasScope(principal, 'profile:read')) throw new Error(missingScopeMessage('profile:read'));
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: (await profiles.load({ userId, enabled: true })).systemPromptSection }] };
      },
    );
    server.registerTool('get_profile', { description: 'Read the user\'s profile memory as the Settings page shows it: its editable body and state.', inputSchema: z.object({}).strict() }, mcpToolSpan(telemetry, 'get_profile', scoped(principal, 'get_profile', async () => {
      try {
        return text(JSON.stringify(await profiles.getMyContextMemory(userId)));
      } catch (error) {
        return failure(error);
      }
    }, chargeWrite)));
    server.registerTool(
      'update_profile',
      { description: 'Replace the editable body of the user\'s profile memory (the Settings rules: the six sections, the size limit, no credentials).', inputSchema: z.object({ body: z.string().describe('The new Markdown body: the six ## sections.') }).strict() },
      mcpToolSpan(telemetry, 'update_profile', scoped(principal, 'update_profile', async ({ body }) => {
        try {
          return text(JSON.stringify(await profiles.updateMyContextMemory(userId, body)));
        } catch (error) {
          return failure(error);
        }
      }, chargeWrite)),
    );
  }
  return server;
}

/** Answer one HTTP request to the agent endpoint for `principal`: one request, one tool turn. */
export async function agentMcpResponse(request, principal, hosts) {
  if (request.method !== 'POST') {
    throw new HttpFailure(405, `${request.method} is not allowed on the MCP endpoint (stateless: POST only)`, { headers: { allow: 'POST' } });
  }
  const parsedBody = await readJson(request);
  const server = agentMcpServer(principal, hosts);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    return await transport.handleRequest(request, { parsedBody });
  } finally {
    await server.close().catch(() => {});
  }
}

// What every runtime may import about the MCP endpoint without the SDK installed.

/** The MCP tools of behaviour §2.8 (the eight memory tools, then the admin GDPR tool of §4.3, then the history of §8.3, then the episodes of §8.6), in definition order. */
export const MCP_TOOL_NAMES = Object.freeze([
  'list_user_memories',
  'get_visible_memories',
  'search_user_memories',
  'get_memory_by_key',
  'count_user_memories',
  'upsert_user_memory',
  'delete_user_memory',
  'delete_all_user_memories',
  'delete_user_data',
  'get_memory_history',
  'search_user_episodes',
]);

/** The agent endpoint's tools (behaviour §2.5's four, bound to the principal; then the profile's, with a ContextMemory). */
export const AGENT_MCP_TOOL_NAMES = Object.freeze(['rememberFact', 'recallMemories', 'searchMemory', 'forgetFact', 'memoryHistory', 'get_profile', 'update_profile']);

/** The agent id of an agent-endpoint principal that names none. */
export const DEFAULT_AGENT_ID = 'mcp-agent';

/** The optional peer dependencies the MCP endpoint loads on its first request. */
export const MCP_PEERS = Object.freeze(['@modelcontextprotocol/sdk', 'zod']);

// What every runtime may import about the MCP endpoint without the SDK installed.

/** The eight MCP tools of SPEC §2.8, in definition order. */
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

/** The optional peer dependencies the MCP endpoint loads on its first request. */
export const MCP_PEERS = Object.freeze(['@modelcontextprotocol/sdk', 'zod']);

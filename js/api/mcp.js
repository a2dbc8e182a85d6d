// The MCP tools' definitions (behaviour §2.8) for memcore/server — internal: js/api.js does not
// re-export this file, so it is no part of the package's public API or typings.
import { invoke } from '../wire.js';
import { parsed } from './arguments.js';

/**
 * @internal The nine MCP tools as the core defines them, in order:
 * `[{ name, description, inputSchema, adminOnly, confirmation }]` (src/entries/mcp_tools.rs).
 */
export function mcpToolDefinitions() {
  return parsed(invoke((g) => g.mcpToolDefinitions()));
}

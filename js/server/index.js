// memcore/server, shared by every runtime entry: the handler and the node:http adapter.
export { createMemoryHandler, HTTP_ERROR_CODES, MAX_BODY_BYTES } from './handler.js';
export { AGENT_MCP_TOOL_NAMES, DEFAULT_AGENT_ID, MCP_TOOL_NAMES } from './mcp-tools.js';
export { toNodeListener } from './node-listener.js';
export { apiKeys, API_KEY_PREFIX, InMemoryApiKeyStore } from './api-keys.js';
export { SCOPES, TOOL_SCOPES } from './scopes.js';
export { DEFAULT_BODY_TIMEOUT_MS, DEFAULT_MAX_CONCURRENT, MAX_TRACKED_PRINCIPALS } from './limits.js';

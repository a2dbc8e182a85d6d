// The scopes of memcore/server (behaviour §8.5): what a principal may do. A principal without
// `scopes` is one the host's own `authenticate` vouches for whole (every scope; `admin` as its
// flag says); one with `scopes` may do only what they name, and is an administrator only with
// the `admin` scope. One table for REST and MCP. Pure: memcore/server/jwt imports it too.

/** Every scope, in the order the docs list them. */
export const SCOPES = Object.freeze(['memory:read', 'memory:write', 'profile:read', 'profile:write', 'admin']);

/**
 * The scope each MCP tool needs: the admin endpoint's ten and the agent endpoint's six (a tool
 * missing here needs `admin`, so a new tool is closed until it is listed).
 */
export const TOOL_SCOPES = Object.freeze({
  list_user_memories: 'memory:read',
  get_visible_memories: 'memory:read',
  search_user_memories: 'memory:read',
  get_memory_by_key: 'memory:read',
  count_user_memories: 'memory:read',
  get_memory_history: 'memory:read',
  search_user_episodes: 'memory:read',
  upsert_user_memory: 'memory:write',
  delete_user_memory: 'memory:write',
  delete_all_user_memories: 'memory:write',
  delete_user_data: 'admin',
  recallMemories: 'memory:read',
  searchMemory: 'memory:read',
  memoryHistory: 'memory:read',
  rememberFact: 'memory:write',
  forgetFact: 'memory:write',
  get_profile: 'profile:read',
  update_profile: 'profile:write',
});

/** The scope an MCP tool needs. */
export function toolScope(name) {
  return TOOL_SCOPES[name] ?? 'admin';
}

/** Whether an MCP tool writes (it counts against the writes-per-minute limit). */
export function toolWrites(name) {
  const scope = toolScope(name);
  return scope === 'memory:write' || scope === 'profile:write' || name === 'delete_user_data';
}

/** Whether `principal` holds `scope` (a principal without `scopes` holds every one). */
export function hasScope(principal, scope) {
  return principal.scopes === undefined || principal.scopes.includes(scope);
}

/** The message of a refusal for a missing scope, the same on REST and MCP. */
export function missingScopeMessage(scope) {
  return `this needs the scope ${scope}`;
}

/**
 * A principal's `scopes` as the handler keeps them: undefined (absent), or a frozen array of
 * known scopes without repeats; anything else is null (the caller answers E_HOST).
 */
export function checkScopes(scopes) {
  if (scopes === undefined || scopes === null) return undefined;
  if (!Array.isArray(scopes) || scopes.length > SCOPES.length * 4) return null;
  const found = [];
  for (const scope of scopes) {
    if (typeof scope !== 'string' || !SCOPES.includes(scope)) return null;
    if (!found.includes(scope)) found.push(scope);
  }
  return Object.freeze(found);
}

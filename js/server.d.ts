// Typings of memcore/server: SPEC §2.8's REST routes and MCP tools as one Fetch-API handler.
import type { ContextMemory, EnablementInputs, EntryStore, MemcoreErrorCode, UserMemoryConfigInput, TimeInput } from './index.js';

/** Who a request acts as, from the host's own authentication. */
export interface Principal {
  /**
   * The tenant (organisation) the request acts in (docs/storage.md, "Tenants"): every route and
   * tool reads and writes `entries.forTenant(tenantId)` and `profiles.forTenant(tenantId)` only; a
   * store without `forTenant` answers `E_CONFIG` (500). Absent: the default tenant.
   */
  tenantId?: string;
  /** The authenticated user. */
  userId: string;
  /** An admin may act on any user's memory of its tenant. */
  admin?: boolean;
  /** The agent the agent MCP endpoint's tools act as (default `'mcp-agent'`). */
  agentId?: string;
  /** The group conversation the agent endpoint's tools are in (group entries). */
  groupId?: string;
}

/** The options of `createMemoryHandler`. */
export interface MemoryHandlerOptions {
  /** The entry store (an `InMemoryEntryStore`, or a host store with the `EntryStore` methods). */
  entries: EntryStore;
  /** Profile memory for `GET`/`PUT /contextmemory/me` (absent → those routes are 404). */
  profiles?: Pick<ContextMemory, 'getMyContextMemory' | 'updateMyContextMemory'> | null;
  /**
   * Whether context memory is on for this request's user (SPEC §1.8): the inputs of
   * `resolveEnablement`, or null for "on". When they resolve to off, `/contextmemory/me` answers
   * 403 `E_MEMORY_DISABLED` with `details.reason` (the Settings editor's "unavailable" state).
   */
  enablement?: (request: Request, principal: Principal) => EnablementInputs | null | undefined | Promise<EnablementInputs | null | undefined>;
  /** The principal of a request, or null (→ 401). May be async; a throw → 500 `E_HOST`. */
  authenticate: (request: Request) => Principal | null | undefined | Promise<Principal | null | undefined>;
  /** `userMemoryConfig`: recall order and limit, `maxEntriesPerUser`, `onCapReached`. */
  config?: UserMemoryConfigInput;
  /** Where the routes are mounted, e.g. `'/api'` (default `''`). */
  basePath?: string;
  /** The MCP endpoint below `basePath` (default `'/mcp'`). */
  mcpPath?: string;
  /**
   * The agent's own MCP endpoint below `basePath` (default `mcpPath + '/agent'`): the four memory
   * tools bound to the principal's user, agent and group, and — with a `ContextMemory` as
   * `profiles` — the `memory://profile` resource and the `get_profile`/`update_profile` tools.
   */
  agentMcpPath?: string;
  /** The clock of written entries (default: the system clock). */
  now?: () => TimeInput;
  /** Ids of new entries (default: the core's random ids). */
  newId?: () => string;
  /** The deadline of each store call, 1 ms – 1 h (default 10 s). */
  storeTimeoutMs?: number;
}

/** A Fetch-API handler. It never throws: every failure is a Response. */
export type MemoryHandler = (request: Request) => Promise<Response>;

/**
 * Serve entry memory over REST (`/usermemorystore/memories`, `/propertiesstore/properties/{userId}`,
 * `/contextmemory/me`) and MCP (Streamable HTTP at `mcpPath`) in any Fetch-API runtime.
 * @example
 * import { InMemoryEntryStore } from 'memcore';
 * import { createMemoryHandler } from 'memcore/server';
 * const handler = createMemoryHandler({ entries: new InMemoryEntryStore(), authenticate: (req) => verify(req.headers.get('authorization')) });
 * export default { fetch: handler };
 */
export function createMemoryHandler(options: MemoryHandlerOptions): MemoryHandler;

/**
 * A Fetch-API handler as a `node:http` request listener `(req, res) => void` (typed without
 * `@types/node`; it is assignable to `http.RequestListener`).
 * @example http.createServer(toNodeListener(handler)).listen(8787, '127.0.0.1');
 */
export function toNodeListener(handler: MemoryHandler): (req: unknown, res: unknown) => void;

/**
 * The `error.code` values the handler answers besides the core's {@link MemcoreErrorCode}s
 * (`E_HOST`, `E_SECRET`, … pass through): docs/serving.md, "Errors".
 */
export type ServerErrorCode =
  | 'E_BAD_REQUEST'
  | 'E_UNAUTHENTICATED'
  | 'E_FORBIDDEN'
  | 'E_NOT_FOUND'
  | 'E_METHOD_NOT_ALLOWED'
  | 'E_UNSUPPORTED_MEDIA_TYPE'
  | 'E_MCP_UNAVAILABLE'
  | 'E_CAPACITY'
  | 'E_CONFLICT'
  | 'E_RESTRICTED'
  | 'E_MEMORY_DISABLED';

/** The handler's own error codes by HTTP status (core codes such as `E_HOST` pass through). */
export const HTTP_ERROR_CODES: Readonly<{
  400: 'E_BAD_REQUEST'; 401: 'E_UNAUTHENTICATED'; 403: 'E_FORBIDDEN'; 404: 'E_NOT_FOUND';
  405: 'E_METHOD_NOT_ALLOWED'; 413: 'E_TOO_LARGE'; 415: 'E_UNSUPPORTED_MEDIA_TYPE'; 501: 'E_MCP_UNAVAILABLE';
}>;

/** The largest request body, in bytes (1 MiB); larger → 413. */
export const MAX_BODY_BYTES: number;

/** The MCP tool names of SPEC §2.8 (and the admin GDPR tool of §4.3, the history tool of §8.3), in definition order. */
export const MCP_TOOL_NAMES: readonly [
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
];

/** The agent endpoint's tools: the four memory tools, then (with a ContextMemory) the profile's. */
export const AGENT_MCP_TOOL_NAMES: readonly ['rememberFact', 'recallMemories', 'searchMemory', 'forgetFact', 'get_profile', 'update_profile'];

/** The agent id of an agent-endpoint principal that names none: `'mcp-agent'`. */
export const DEFAULT_AGENT_ID: 'mcp-agent';

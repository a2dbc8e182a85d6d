// Typings of memcore/server: behaviour §2.8's REST routes and MCP tools as one Fetch-API handler.
import type { ContextMemory, Embedder, EnablementInputs, EntryStore, MemcoreErrorCode, MemoryModel, UserMemoryConfigInput, TimeInput } from './index.js';

/** Who a request acts as, from the host's own authentication. */
export interface Principal {
  /**
   * The tenant (organisation) the request acts in (docs/reference/storage.md, "Tenants"): every route and
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
  /**
   * What the principal may do (docs/reference/serving.md, "Authentication and scopes"): absent → every scope
   * (a principal the host vouches for whole; `admin` as its flag says); given → only these, and an
   * administrator only with `'admin'`. A missing scope is 403 naming it (`missingScope`).
   */
  scopes?: readonly Scope[];
}

/** The scopes of a principal: entry reads and writes, the profile's, and the admin routes and tools. */
export type Scope = 'memory:read' | 'memory:write' | 'profile:read' | 'profile:write' | 'admin';

/** Every scope. */
export const SCOPES: readonly ['memory:read', 'memory:write', 'profile:read', 'profile:write', 'admin'];

/** The scope each MCP tool needs (admin endpoint and agent endpoint). */
export const TOOL_SCOPES: Readonly<Record<string, Scope>>;

/** The `authenticate` of `createMemoryHandler` (`bearerJwt` of memcore/server/jwt and `apiKeys` make one). */
export type Authenticate = (request: Request) => Principal | null | undefined | Promise<Principal | null | undefined>;

/** A stored API key as administrators see it: never its secret. */
export interface ApiKeyRecord {
  id: string;
  tenantId: string | null;
  userId: string;
  agentId?: string;
  groupId?: string;
  scopes: Scope[];
  name?: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

/** One row of a key store: the record and the SHA-256 digest of the secret. */
export interface ApiKeyRow {
  id: string;
  hash: string;
  tenantId: string | null;
  userId: string;
  record: ApiKeyRecord;
  revokedAt?: string | null;
}

/** Where API keys are kept: `InMemoryApiKeyStore`, or a SQL store of this package (`openSqlite`, `openPostgres`, `openD1`). */
export interface ApiKeyStore {
  putApiKey(row: ApiKeyRow): Promise<void>;
  getApiKey(id: string): Promise<ApiKeyRow | null>;
  listApiKeys(query: { tenantId: string | null; userId?: string }): Promise<ApiKeyRow[]>;
  revokeApiKey(id: string, at: string): Promise<boolean>;
  /** Delete every key of `userId` in `tenantId` (null: the default tenant): how many went. An erasure ends the user's access with it. */
  deleteApiKeysOf(userId: string, options?: { tenantId?: string | null }): Promise<number>;
}

/** A new key's request. */
export interface ApiKeyRequest {
  userId: string;
  scopes: readonly Scope[];
  tenantId?: string | null;
  agentId?: string;
  groupId?: string;
  name?: string;
  expiresAt?: TimeInput | null;
}

/** The API keys of `apiKeys({ store })`. */
export interface ApiKeys {
  /** A new key: `key` (`mk_…`) is shown this once; only its digest is stored. */
  create(request: ApiKeyRequest): Promise<{ key: string; record: ApiKeyRecord }>;
  /** The keys of a tenant (null: the default one), of one user when given. */
  list(query?: { tenantId?: string | null; userId?: string }): Promise<ApiKeyRecord[]>;
  /** Revoke a key at once: true when it was live. */
  revoke(id: string, options?: { tenantId?: string | null }): Promise<boolean>;
  /** Delete every key of `userId` in `tenantId` (pass this object as `eraseUserData`'s `keys`; the handler's erasure route does): how many went. */
  deleteApiKeysOf(userId: string, options?: { tenantId?: string | null }): Promise<number>;
  /** The principal of `Authorization: Bearer mk_…`; null for none; 401 for a dead or unknown key. */
  authenticate: Authenticate;
}

/**
 * API keys with scopes over a key store.
 * @example
 * const keys = apiKeys({ store: db });
 * const { key } = await keys.create({ userId: 'u1', scopes: ['memory:read', 'memory:write'] });
 * const handler = createMemoryHandler({ entries: db, apiKeys: keys, authenticate: keys.authenticate });
 */
export function apiKeys(options: { store: ApiKeyStore; now?: () => TimeInput }): ApiKeys;

/** The prefix of every key: `'mk_'`. */
export const API_KEY_PREFIX: 'mk_';

/** A key store in memory. */
export class InMemoryApiKeyStore implements ApiKeyStore {
  putApiKey(row: ApiKeyRow): Promise<void>;
  getApiKey(id: string): Promise<ApiKeyRow | null>;
  listApiKeys(query: { tenantId: string | null; userId?: string }): Promise<ApiKeyRow[]>;
  revokeApiKey(id: string, at: string): Promise<boolean>;
  /** Delete every key of `userId` in `tenantId` (null: the default tenant): how many went. An erasure ends the user's access with it. */
  deleteApiKeysOf(userId: string, options?: { tenantId?: string | null }): Promise<number>;
}

/** The options of `createMemoryHandler`. */
export interface MemoryHandlerOptions {
  /** The entry store (an `InMemoryEntryStore`, or a host store with the `EntryStore` methods). */
  entries: EntryStore;
  /** Profile memory for `GET`/`PUT /contextmemory/me` (absent → those routes are 404). */
  profiles?: Pick<ContextMemory, 'getMyContextMemory' | 'updateMyContextMemory'> | null;
  /**
   * Whether context memory is on for this request's user (behaviour §1.8): the inputs of
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
  /**
   * The embedding model (behaviour §8.2): with it, searches (`search.mode` `auto`, the default, and
   * `hybrid`) rank by meaning, upserts and the agent tools store the vector of what they wrote.
   * @example createMemoryHandler({ entries, authenticate, embedder: openAIEmbeddings({ baseURL, apiKey, model: 'text-embedding-3-small' }) })
   */
  embedder?: Embedder | null;
  /** The API keys `/admin/keys` manages (absent → those routes are 404). */
  apiKeys?: ApiKeys | null;
  /**
   * The model of the routes that call one: `POST …/{userId}/learn` (learning from a turn; without a
   * model that route is 501) and `POST /admin/dream/{userId}` (Dream's summarisation; without one
   * Dream prunes and finds contradictions only).
   */
  model?: MemoryModel | null;
  /**
   * Per-principal limits.
   * @example createMemoryHandler({ entries, authenticate, limits: { requestsPerMinute: 600, writesPerMinute: 60, byScope: { admin: { requestsPerMinute: 6000 } } } })
   */
  limits?: MemoryHandlerLimits | null;
  /** A server span per request (`http.route` a template: ids never shown) and per MCP tool call (`createTelemetry` of memcore/telemetry). */
  telemetry?: import('./telemetry.js').Telemetry | null;
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
 * (`E_HOST`, `E_SECRET`, … pass through): docs/reference/serving.md, "Errors".
 */
export type ServerErrorCode =
  | 'E_BAD_REQUEST'
  | 'E_UNAUTHENTICATED'
  | 'E_FORBIDDEN'
  | 'E_NOT_FOUND'
  | 'E_METHOD_NOT_ALLOWED'
  | 'E_UNSUPPORTED_MEDIA_TYPE'
  | 'E_MCP_UNAVAILABLE'
  | 'E_NOT_SUPPORTED'
  | 'E_GRAPHQL_UNAVAILABLE'
  | 'E_CAPACITY'
  | 'E_RESTRICTED'
  | 'E_MEMORY_DISABLED'
  | 'E_BODY_TIMEOUT'
  | 'E_RATE_LIMITED';

/** The handler's own error codes by HTTP status (core codes such as `E_HOST` pass through). */
export const HTTP_ERROR_CODES: Readonly<{
  400: 'E_BAD_REQUEST'; 401: 'E_UNAUTHENTICATED'; 403: 'E_FORBIDDEN'; 404: 'E_NOT_FOUND';
  405: 'E_METHOD_NOT_ALLOWED'; 408: 'E_BODY_TIMEOUT'; 413: 'E_TOO_LARGE'; 415: 'E_UNSUPPORTED_MEDIA_TYPE';
  429: 'E_RATE_LIMITED'; 501: 'E_MCP_UNAVAILABLE';
}>;

/** The body deadline when `limits.bodyTimeoutMs` is not given: 10 000 ms. */
export const DEFAULT_BODY_TIMEOUT_MS: number;
/** One principal's concurrent requests when `limits.maxConcurrent` is not given: 32. */
export const DEFAULT_MAX_CONCURRENT: number;
/** How many principals' buckets are kept when `limits.maxTrackedPrincipals` is not given: 10 000. */
export const MAX_TRACKED_PRINCIPALS: number;

/** Requests and writes per minute (token buckets: a full bucket holds `burst`, default the per-minute value). */
export interface RateLimits {
  requestsPerMinute?: number;
  writesPerMinute?: number;
}

/**
 * The handler's limits per principal (its tenant and user): over a rate, 429 `E_RATE_LIMITED`
 * with `Retry-After` and `retryAfterSeconds`; over `maxConcurrent`, 429 with `Retry-After: 1`; a
 * body that does not arrive within `bodyTimeoutMs`, 408 `E_BODY_TIMEOUT`. Rates are off unless
 * given; the concurrency bound and the body deadline are always on (docs/reference/serving.md, "Limits").
 */
export interface MemoryHandlerLimits extends RateLimits {
  /** The most tokens a bucket holds (default: the per-minute value — a minute's worth at once). */
  burst?: number;
  /** Rates for principals holding a scope; a principal gets the most generous of its scopes' (an unscoped principal holds them all, `admin` only when it is an administrator). */
  byScope?: Partial<Record<Scope, RateLimits>>;
  /** One principal's requests at a time (default 32). */
  maxConcurrent?: number;
  /** The deadline for reading a request body, ms (default 10 000; at most 1 h). */
  bodyTimeoutMs?: number;
  /** The clock the buckets refill by (default: the system clock). */
  now?: () => TimeInput;
  /** How many principals' buckets are kept, least recently seen dropped first (default 10 000). */
  maxTrackedPrincipals?: number;
}

/** The largest request body, in bytes (1 MiB); larger → 413. */
export const MAX_BODY_BYTES: number;

/** The MCP tool names of behaviour §2.8 (and the admin GDPR tool of §4.3, the history tool of §8.3), in definition order. */
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
  'search_user_episodes',
];

/** The agent endpoint's tools: the four memory tools and memoryHistory (history on), then (with a ContextMemory) the profile's. */
export const AGENT_MCP_TOOL_NAMES: readonly ['rememberFact', 'recallMemories', 'searchMemory', 'forgetFact', 'memoryHistory', 'get_profile', 'update_profile'];

/** The agent id of an agent-endpoint principal that names none: `'mcp-agent'`. */
export const DEFAULT_AGENT_ID: 'mcp-agent';

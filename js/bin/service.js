// The service commands of the memcore CLI: `memcore mcp` (one user's memory over stdio),
// `memcore serve` (REST, MCP, GraphQL and the console as a process) and `memcore keys`.
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as memcore from '../node.js';
import { CliError, DEFAULT_DB, openDatabase, openStorage, UsageError } from './cli-common.js';

/** `memcore mcp`: the agent endpoint over stdio until the client closes stdin. */
export async function mcp({ values }) {
  if (values.user === undefined) throw new UsageError('--user ID is required');
  memcore.memoryPath(values.user, values.root); // a refused id is reported before anything opens
  let serverModule;
  let stdio;
  try {
    serverModule = await import('../server/mcp-agent.js');
    stdio = await import('@modelcontextprotocol/sdk/server/stdio.js');
  } catch (error) {
    throw new CliError('E_MCP_UNAVAILABLE', `memcore mcp needs the optional peer dependencies @modelcontextprotocol/sdk and zod (npm install @modelcontextprotocol/sdk zod): ${error?.message ?? error}`);
  }
  const url = values.db ?? process.env.MEMCORE_DATABASE_URL;
  // The documented default: the embedded SQLite file, created (with its folder) on first use.
  const store = (await openStorage({ ...values, base: '.', db: url === undefined || url === '' ? DEFAULT_DB : url })).storage;
  let view = store;
  if (values.tenant !== undefined) {
    try {
      view = store.forTenant(values.tenant);
    } catch (error) {
      await store.close();
      throw new UsageError(`--tenant: ${String(error.message).replace(/^[^:]*: /, '')}`);
    }
  }
  let embedder;
  if (values['embed-url'] !== undefined) {
    const { openAIEmbeddings } = await import('../adapters/openai.js');
    try {
      embedder = openAIEmbeddings({ baseURL: values['embed-url'], ...(process.env.MEMCORE_EMBED_API_KEY ? { apiKey: process.env.MEMCORE_EMBED_API_KEY } : {}), model: values['embed-model'] ?? 'text-embedding-3-small' });
    } catch (error) {
      await store.close();
      throw new UsageError(`--embed-url: ${String(error.message).replace(/^[^:]*: /, '')}`);
    }
  } else if (values['embed-model'] !== undefined) {
    await store.close();
    throw new UsageError('--embed-model needs --embed-url');
  }
  const profiles = new memcore.ContextMemory({ storage: view, entries: view, ...(embedder ? { embedder } : {}) }, { rootFolder: values.root });
  const principal = { ...(values.tenant !== undefined ? { tenantId: values.tenant } : {}), userId: values.user, ...(values.agent ? { agentId: values.agent } : {}), ...(values.group ? { groupId: values.group } : {}) };
  const server = serverModule.agentMcpServer(principal, { entries: view, profiles, ...(embedder ? { embedder } : {}) }, { turn: 'call' });
  const closed = new Promise((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    server.server.onclose = resolve;
  });
  await server.connect(new stdio.StdioServerTransport());
  process.stderr.write(`memcore mcp: serving the memory of ${values.user}${values.tenant !== undefined ? ` (tenant ${values.tenant})` : ''} over stdio\n`);
  await closed;
  await server.close().catch(() => {});
  await store.close();
  return 0;
}

/** A whole number flag within [min, max], else a usage error naming the flag. */
function whole(values, name, min, max) {
  const raw = values[name];
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, not '${raw}'`);
  return Number(raw);
}

/** The database of `serve` and `keys`: --db, MEMCORE_DATABASE_URL, else the embedded default file (created). */
async function serviceDatabase(values) {
  const url = values.db ?? process.env.MEMCORE_DATABASE_URL;
  const chosen = url === undefined || url === '' ? DEFAULT_DB : url;
  if (chosen === DEFAULT_DB) mkdirSync(dirname(DEFAULT_DB), { recursive: true });
  const store = await openDatabase(chosen);
  return { ...store, kind: /^postgres(ql)?:\/\//.test(chosen) ? 'postgres' : 'sqlite', label: /^postgres(ql)?:\/\//.test(chosen) ? 'PostgreSQL' : `SQLite ${chosen.replace(/^sqlite:(\/\/)?/, '')}` };
}

/** The JWT check of `serve` from its flags, or null. */
async function jwtOf(values) {
  const jwks = values['jwks-url'];
  const secretFile = values['jwt-secret-file'];
  const issuer = values['jwt-issuer'];
  const audience = values['jwt-audience'];
  if (jwks === undefined && secretFile === undefined) {
    if (issuer !== undefined || audience !== undefined) throw new UsageError('--jwt-issuer and --jwt-audience need --jwks-url or --jwt-secret-file');
    return null;
  }
  if (jwks !== undefined && secretFile !== undefined) throw new UsageError('--jwks-url and --jwt-secret-file: give one');
  if (issuer === undefined || audience === undefined) throw new UsageError('a JWT needs --jwt-issuer and --jwt-audience');
  let key;
  if (secretFile !== undefined) {
    let bytes;
    try {
      bytes = readFileSync(secretFile);
    } catch (error) {
      throw new CliError(error.code ?? 'E_IO', `cannot read --jwt-secret-file ${secretFile}: ${error.message}`);
    }
    let end = bytes.length;
    if (bytes[end - 1] === 10) end -= 1;
    if (bytes[end - 1] === 13) end -= 1;
    key = new Uint8Array(bytes.subarray(0, end));
    if (key.length < 32) throw new CliError('E_CONFIG', `--jwt-secret-file ${secretFile}: the secret must be at least 32 bytes`);
  }
  let module;
  try {
    module = await import('../server/jwt.js');
    await import('jose');
  } catch (error) {
    throw new CliError('E_JWT_UNAVAILABLE', `JWTs need the optional peer dependency jose (npm install jose): ${error?.message ?? error}`);
  }
  try {
    return module.bearerJwt({ issuer, audience, ...(key ? { key } : { jwks }) });
  } catch (error) {
    throw new UsageError(`JWT: ${String(error.message).replace(/^[^:]*: /, '')}`);
  }
}

/** `memcore serve`: the service until SIGTERM/SIGINT, then a drain. */
export async function serve({ values }) {
  const port = whole(values, 'port', 0, 65535);
  const drainSeconds = whole(values, 'drain-timeout', 0, 3600);
  if (!['json', 'none'].includes(values.log)) throw new UsageError(`--log must be json or none, not '${values.log}'`);
  const limits = {
    requestsPerMinute: whole(values, 'requests-per-minute', 1, 1_000_000) ?? 600,
    writesPerMinute: whole(values, 'writes-per-minute', 1, 1_000_000) ?? 120,
    maxConcurrent: whole(values, 'max-concurrent', 1, 100_000) ?? 32,
  };
  if (values['embed-model'] !== undefined && values['embed-url'] === undefined) throw new UsageError('--embed-model needs --embed-url');
  if (values.model !== undefined && values['model-url'] === undefined) throw new UsageError('--model needs --model-url');
  const openai = values['embed-url'] !== undefined || values['model-url'] !== undefined ? await import('../adapters/openai.js') : null;
  let embedder;
  let model;
  try {
    if (values['embed-url'] !== undefined) embedder = openai.openAIEmbeddings({ baseURL: values['embed-url'], ...(process.env.MEMCORE_EMBED_API_KEY ? { apiKey: process.env.MEMCORE_EMBED_API_KEY } : {}), model: values['embed-model'] ?? 'text-embedding-3-small' });
  } catch (error) {
    throw new UsageError(`--embed-url: ${String(error.message).replace(/^[^:]*: /, '')}`);
  }
  try {
    if (values['model-url'] !== undefined) model = openai.openAIChatModel({ baseURL: values['model-url'], ...(process.env.MEMCORE_MODEL_API_KEY ? { apiKey: process.env.MEMCORE_MODEL_API_KEY } : {}), model: values.model ?? 'gpt-4o-mini' });
  } catch (error) {
    throw new UsageError(`--model-url: ${String(error.message).replace(/^[^:]*: /, '')}`);
  }
  const jwt = await jwtOf(values);
  const { createService, listen } = await import('../server/serve.js');
  const db = await serviceDatabase(values);
  let app;
  try {
    const service = await createService(db.storage, { jwt, embedder, model, limits, kind: db.kind });
    const log = values.log === 'json' ? (line) => process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...line })}\n`) : () => {};
    try {
      app = await listen(service, { host: values.host, port, log, drainMs: drainSeconds * 1000 });
    } catch (error) {
      if (error?.code === 'EADDRINUSE') throw new CliError('E_PORT_IN_USE', `${values.host}:${port} is already in use: stop what listens there or pass another --port`);
      throw new CliError('E_LISTEN', `cannot listen on ${values.host}:${port}: ${error?.message ?? error}`);
    }
    const admins = (await service.keys.list()).filter((k) => k.revokedAt === null && k.scopes.includes('admin'));
    process.stderr.write(`memcore serve: listening on ${app.url} (${db.label}); REST /usermemorystore/memories, MCP /mcp and /mcp/agent, GraphQL /graphql, GET /healthz, GET /metrics\n`);
    if (admins.length === 0) process.stderr.write("memcore serve: no admin API key yet: run 'memcore keys create --admin' (with the same --db)\n");
  } catch (error) {
    await db.close();
    throw error;
  }
  const signal = await new Promise((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  const force = () => {
    process.stderr.write('memcore serve: stopped at once (a second signal)\n');
    process.exit(1);
  };
  process.once('SIGTERM', force);
  process.once('SIGINT', force);
  const inFlight = app.inFlight();
  const stopped = app.stop(); // closes the listening socket at once
  process.stderr.write(`memcore serve: ${signal}: draining (${inFlight} request${inFlight === 1 ? '' : 's'} in flight)\n`);
  const { clean, abandoned } = await stopped;
  await db.close();
  if (!clean) throw new CliError('E_DRAIN_TIMEOUT', `the drain timed out after ${drainSeconds} s with ${abandoned} request${abandoned === 1 ? '' : 's'} unanswered`);
  process.stderr.write('memcore serve: drained; every request was answered\n');
  return 0;
}

const KEY_SCOPES = ['memory:read', 'memory:write', 'profile:read', 'profile:write', 'admin'];

/** `memcore keys create|list|revoke`. */
export async function keys({ values, positionals }) {
  const [action, id] = positionals;
  if (!['create', 'list', 'revoke'].includes(action)) throw new UsageError(`unknown keys action '${action}' (create, list or revoke)`);
  if (action === 'revoke' ? id === undefined : id !== undefined) throw new UsageError(action === 'revoke' ? 'keys revoke needs the key id' : `unexpected argument '${id}'`);
  const only = { create: ['admin', 'user', 'scopes', 'agent', 'group', 'name', 'expires', 'tenant', 'db'], list: ['user', 'tenant', 'json', 'db'], revoke: ['tenant', 'db'] }[action];
  for (const flag of Object.keys(values)) {
    if (flag !== 'help' && !only.includes(flag)) throw new UsageError(`--${flag} does not apply to keys ${action}`);
  }
  let scopes;
  if (action === 'create') {
    if (values.admin && values.scopes !== undefined) throw new UsageError('--admin has every scope; leave out --scopes');
    if (!values.admin && (values.user === undefined || values.scopes === undefined)) throw new UsageError('keys create needs --admin, or --user ID and --scopes S,…');
    scopes = values.admin ? KEY_SCOPES : values.scopes.split(',').map((x) => x.trim()).filter(Boolean);
    const unknown = scopes.filter((x) => !KEY_SCOPES.includes(x));
    if (unknown.length || scopes.length === 0) throw new UsageError(`--scopes: ${unknown.length ? `'${unknown[0]}' is not a scope` : 'name at least one'} (${KEY_SCOPES.join(', ')})`);
  }
  const { apiKeys } = await import('../server/api-keys.js');
  const db = await serviceDatabase(values);
  try {
    const store = apiKeys({ store: db.storage });
    const tenantId = values.tenant ?? null;
    if (action === 'create') {
      const { key, record } = await store.create({
        userId: values.user ?? 'admin',
        scopes,
        ...(tenantId === null ? {} : { tenantId }),
        ...(values.agent ? { agentId: values.agent } : {}),
        ...(values.group ? { groupId: values.group } : {}),
        ...(values.name ? { name: values.name } : {}),
        ...(values.expires ? { expiresAt: values.expires } : {}),
      });
      process.stdout.write(`${key}\n`);
      process.stderr.write(`memcore keys: created ${record.id} for ${record.userId}${record.tenantId === null ? '' : ` (tenant ${record.tenantId})`}, scopes ${record.scopes.join(',')}; the key above is shown only now\n`);
      return 0;
    }
    if (action === 'list') {
      const list = await store.list({ tenantId, ...(values.user === undefined ? {} : { userId: values.user }) });
      if (values.json) process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
      else for (const k of list) process.stdout.write(`${k.id}  ${k.userId}  ${k.scopes.join(',')}  created ${k.createdAt}${k.expiresAt ? `  expires ${k.expiresAt}` : ''}${k.revokedAt ? `  revoked ${k.revokedAt}` : ''}${k.name ? `  ${JSON.stringify(k.name)}` : ''}\n`);
      return 0;
    }
    if (!(await store.revoke(id, { tenantId }))) throw new CliError('E_NOT_FOUND', `no live key ${JSON.stringify(id)}${tenantId === null ? '' : ` in tenant ${tenantId}`}`);
    process.stderr.write(`memcore keys: revoked ${id}\n`);
    return 0;
  } catch (error) {
    if (error?.code === 'E_ARGUMENT') throw new UsageError(String(error.message).replace(/^apiKeys\.\w+: /, ''));
    throw error;
  } finally {
    await db.close();
  }
}

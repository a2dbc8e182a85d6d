// Compiled with `tsc --noEmit --strict` against the installed package: the typings describe the
// API a user writes against (a wrong shape here fails the test command).
import {
  MemcoreError, version, parseProfile, renderProfile, emptyProfile, assembleProfile, countTokens,
  memorySystemPromptSection, resolveEnablement, applyUserEdit, memoryView, memoryPath,
  type ParsedProfile, type Enablement, type MemcoreErrorCode,
} from 'memcore';
import { init, initSync, loadTokenizer } from 'memcore/slim';
// As wrangler imports them in a Worker: the profile-only core as a compiled module, a table as bytes.
import profileCore from 'memcore/memcore-profile.wasm';
import fullCore from 'memcore/memcore.wasm';
import o200kBytes from 'memcore/tokenizer/o200k_base.bin';
import { fetchTokenizer } from 'memcore/tokenizer/fetch';
import { ready, DEFAULT_ENCODING } from 'memcore';
import 'memcore/tokenizer/o200k_base';

async function tables() {
  await ready();
  await ready('cl100k_base');
  await ready(['o200k_base', DEFAULT_ENCODING]);
  // @ts-expect-error not an encoding
  await ready('gpt2');
}
void tables;

const v: string = version();
const parsed: ParsedProfile = parseProfile('## Identity\n');
const text: string = renderProfile(parsed);
const n: number = countTokens(text, { encoding: 'cl100k_base' }) + countTokens(text, { countTokens: (t) => t.length }) + countTokens(text, (t) => t.length);
const e: Enablement = resolveEnablement({ companyId: 'c', featureFlag: 'true', webSearchEnabled: true });
const edit = applyUserEdit(null, 'x', { userId: 'u', now: new Date() });
const section: string = memorySystemPromptSection(edit.text);
const view = memoryView(null);
const created = assembleProfile('', { userId: 'u', turnCount: 0, now: Date.now() });
renderProfile(emptyProfile('u', '2026-01-01T00:00:00Z'));
try {
  memoryPath('..');
} catch (err) {
  if (err instanceof MemcoreError) {
    const code: MemcoreErrorCode = err.code;
    console.log(code, err.details);
    // Checking the code narrows the details.
    if (err.code === 'E_CONFIG') {
      const path: string | undefined = err.details?.path;
      // @ts-expect-error E_CONFIG's details have no entryId
      console.log(path, err.details?.entryId);
    }
    if (err.code === 'E_CONFLICT' && err.details) {
      const id: string = err.details.entryId;
      console.log(id);
    }
    if (err.code === 'E_HOST') {
      const transient: boolean | undefined = err.details?.transient;
      console.log(transient, err.details?.hostOwn);
    }
    if (err.code === 'E_INTERNAL') {
      const none: undefined = err.details;
      console.log(none);
    }
  }
}
const made = new MemcoreError('E_ARGUMENT', 'bad', { function: 'f', argument: 'x' });
const argument: string | undefined = made.details?.argument;
// @ts-expect-error E_INVALID_USER_ID's details are { bytes }
new MemcoreError('E_INVALID_USER_ID', 'bad', { path: 'x' });
console.log(argument);
async function slim(bytes: Uint8Array, module: WebAssembly.Module) {
  await init(bytes);
  initSync(bytes);
  await init(module);
  initSync(module);
  await init(new URL('https://example.test/memcore.wasm'));
  await init('/memcore.wasm');
  await init(new Response(bytes.buffer as ArrayBuffer));
  // @ts-expect-error initSync takes no Response
  initSync(new Response(''));
  await init(bytes.buffer as ArrayBuffer);
  // @ts-expect-error a number is not a module
  await init(42);
  // @ts-expect-error an arbitrary object is not a module
  await init({ foo: 1 });
  // @ts-expect-error initSync takes no URL string
  initSync('x');
  // @ts-expect-error nor a number
  initSync(7);
  initSync(profileCore);
  await init(fullCore);
  const loaded: string = loadTokenizer(new Uint8Array(o200kBytes));
  const fetched: Uint8Array = await fetchTokenizer('cl100k_base');
  // @ts-expect-error not an encoding
  await fetchTokenizer('gpt2');
  void loaded, fetched;
}
console.log(v, n, e.reason, section, view.exists, created, slim);

// Issue 8: optional model, timeouts, create-only writes, AbortSignal, counts that may be null.
import { ContextMemory, fitProfile, createMemoryTools, InMemoryEntryStore, type ProfileWriteOptions, type ModelRequest } from 'memcore';
import { forceTrap, instance } from 'memcore/testing';
const storage = {
  read: async (_path: string) => null,
  write: async (_path: string, _text: string, options: ProfileWriteOptions) => ({ version: options.ifAbsent ? 'v1' : 'v2' }),
  remove: async (_path: string) => {},
};
const settingsOnly = new ContextMemory({ storage }, { timeouts: { modelMs: 30000, storageMs: 5000, noticeMs: 1000 } });
const withModel = new ContextMemory({ storage, model: async (request: ModelRequest) => (request.signal?.aborted ? 'NOOP' : 'UPDATE') });
async function issue8() {
  const fit = await fitProfile('x', { maxTokens: 2000 });
  const before: number | null = fit.tokensBefore;
  const tools = createMemoryTools({ store: new InMemoryEntryStore(), userId: 'u', agentId: 'a', storeTimeoutMs: 5000 });
  const replaced: number = instance().replaced;
  if (replaced > 100) forceTrap();
  // A tool name is one of the tools' when written out; a model's name (any string) is checked at run time.
  const fromModel: string = JSON.parse('"rememberFact"');
  const dynamic: Promise<string> = tools.call(fromModel, { key: 'k', value: 'v' });
  const ran: Promise<{ text: string; wrote: boolean }> = tools.run('forgetFact', { key: 'k' });
  // @ts-expect-error a misspelt tool name does not compile
  tools.call('rememberFcat', {});
  // @ts-expect-error nor in run
  tools.run('recall', {});
  void [dynamic, ran];
  return [before, await tools.call('recallMemories'), await settingsOnly.getMyContextMemory('u'), withModel];
}
console.log(issue8);

// Issue 11: Dream, its metrics and schedules.
import { dream, DreamMetrics, validateDreamSchedule, type DreamReport, type DreamSkipReason, type DreamErrorCode } from 'memcore';
async function dreaming() {
  const metrics = new DreamMetrics();
  const report: DreamReport = await dream({
    store: new InMemoryEntryStore(), model: async () => '[]', userId: 'user-123', agentId: 'agent-456',
    config: { dream: { enabled: true, summarizeInteractions: true } }, now: new Date(), metrics,
    price: { inputPerMTok: 0.15, outputPerMTok: 0.6 }, log: (event) => console.log(event.event), newId: () => 'id',
  });
  const reasons: DreamSkipReason[] = report.groupsSkipped.map((g) => g.reason);
  const code: DreamErrorCode | undefined = report.error?.code;
  const text: string = metrics.prometheus();
  const pruned: number = metrics.snapshot().entriesPruned;
  const problems = validateDreamSchedule({ cronExpression: '0 3 * * *', userId: 'u', agentId: 'a', metadata: { dreamType: 'dream_consolidation' } });
  // @ts-expect-error `now` is required
  await dream({ store: new InMemoryEntryStore(), userId: 'u', agentId: 'a' });
  // @ts-expect-error metrics must be a DreamMetrics
  await dream({ store: new InMemoryEntryStore(), userId: 'u', agentId: 'a', now: 0, metrics: {} });
  return [reasons, code, text, pruned, problems.length];
}
console.log(dreaming);

// The surface operations and memcore/server (SPEC §2.8).
import { listUserMemories, getVisibleMemories, upsertUserMemory, deleteUserMemory, countUserMemories, getMemoryByKey, type UpsertOutcome } from 'memcore';
import { createMemoryHandler, toNodeListener, MCP_TOOL_NAMES, MAX_BODY_BYTES, HTTP_ERROR_CODES, type MemoryHandler, type Principal } from 'memcore/server';

async function serving(): Promise<number> {
  const entries = new InMemoryEntryStore();
  const outcome: UpsertOutcome = await upsertUserMemory(entries, { userId: 'u', key: 'k', visibility: 'global' }, { surface: 'mcp', now: () => '2026-01-01T00:00:00Z' });
  const id = outcome.outcome === 'stored' ? outcome.entry.id : '';
  const visible = await getVisibleMemories(entries, { userId: 'u', agentId: 'a', limit: '5' });
  const shown = 'entries' in visible ? visible.entries.length : visible.violations.length;
  const deleted = await deleteUserMemory(entries, id, { userId: 'u' });
  const found = await getMemoryByKey(entries, 'u', 'k', { agentId: 'a' });
  const principal: Principal = { userId: 'u', admin: false };
  const handler: MemoryHandler = createMemoryHandler({ entries, authenticate: async () => principal, basePath: '/api', config: { maxEntriesPerUser: 10 } });
  // @ts-expect-error authenticate is required
  createMemoryHandler({ entries });
  const listener = toNodeListener(handler);
  const response: Response = await handler(new Request('http://localhost/api/usermemorystore/memories/u'));
  const first: 'list_user_memories' = MCP_TOOL_NAMES[0];
  void listener;
  void first;
  return shown + (await listUserMemories(entries, 'u')).length + (await countUserMemories(entries, 'u')) + response.status + MAX_BODY_BYTES + HTTP_ERROR_CODES[404].length + (deleted.outcome === 'deleted' ? 1 : 0) + (found ? 1 : 0);
}
console.log(serving);
// Credentials and the legacy migration (SPEC §4.1, §4.2).
import {
  detectCredential, redactSecrets, planPropertiesMigration, applyPropertiesMigration, planLegacyCleanup,
  type CredentialKind, type PropertiesMigrationPlan, type LegacyInsertOutcome,
} from 'memcore';

async function migrating(store: InstanceType<typeof InMemoryEntryStore>) {
  const found = detectCredential({ profile: { auth: { token: 't' } } });
  const kind: CredentialKind | null = found.kind;
  if (found.found) {
    const path: string = found.path;
    void path;
  }
  const line: string = redactSecrets('GET /v1?api_key=abc');
  const plan: PropertiesMigrationPlan = planPropertiesMigration([{ _id: 'd1', userId: 'u1', language: 'de' }], { u1: [] });
  const report = await applyPropertiesMigration(plan, store, { now: () => new Date(), newId: () => 'id' });
  const outcomes: LegacyInsertOutcome[] = report.outcomes.map((o) => o.outcome);
  const ids: string[] = planLegacyCleanup(await store.list('u1'), { skipKeys: ['userInfo'] }).ids;
  // @ts-expect-error skipKeys is a list
  planPropertiesMigration([], {}, { skipKeys: 'userInfo' });
  return [kind, line, report.mayRename, outcomes, ids];
}
console.log(migrating);

// Safe by default (issue 19): the secrets policies, the E_SECRET outcome, `enabled` required.
import { type SecretPolicy, type ImportedSecret } from 'memcore';

async function safeDefaults(store: InstanceType<typeof InMemoryEntryStore>) {
  const policy: SecretPolicy = 'redact';
  const memory = new ContextMemory({ storage, entries: store }, { secrets: policy, conflictBackoffMs: 0 });
  const tools = createMemoryTools({ store, userId: 'u', agentId: 'a', config: { secrets: 'refuse' } });
  const outcome: UpsertOutcome = await upsertUserMemory(store, { userId: 'u', key: 'k', value: 'v', visibility: 'global' });
  if (outcome.outcome === 'secret') {
    const field: string = outcome.field;
    void field;
  }
  const saved = await memory.updateMyContextMemory('u', '# User Memory\n');
  const redacted: number = saved.redactedSecrets;
  const report = await memory.afterTurn({ userId: 'u', enabled: true });
  const count: number = report.redactedSecrets;
  // @ts-expect-error `enabled` is required: a call without it is disabled with reason 'enabled-missing'
  await memory.load({ userId: 'u' });
  // @ts-expect-error `enabled` is required
  await memory.afterTurn({ userId: 'u', userMessage: 'hi' });
  // @ts-expect-error an unknown policy
  createMemoryTools({ store, userId: 'u', agentId: 'a', config: { secrets: 'mask' } });
  const secrets: ImportedSecret[] = [];
  return [tools, redacted, count, secrets];
}
console.log(safeDefaults);

// memcore/constants: the same constants as the root, without the core.
import { EMPTY_PROFILE_BODY, MAX_EDIT_BODY_BYTES as LIMIT, SECTION_HEADINGS as HEADINGS, MIN_MAX_TOKENS, MAX_MAX_TOKENS, DEFAULT_MAX_TOKENS } from 'memcore/constants';
const limit: 1048576 = LIMIT;
const firstHeading: 'Identity' = HEADINGS[0];
const bounds: [500, 8000, 2000] = [MIN_MAX_TOKENS, MAX_MAX_TOKENS, DEFAULT_MAX_TOKENS];
const emptyBody: string = EMPTY_PROFILE_BODY;
console.log(limit, firstHeading, bounds, emptyBody);

// Tenants: a principal's tenant, a store's and a ContextMemory's view.
const tenantPrincipal: Principal = { tenantId: 'acme', userId: 'u1', admin: true };
const tenantStore: InMemoryEntryStore = new InMemoryEntryStore().forTenant('acme');
const tenantOf: string | null = tenantStore.tenantId;
declare const someMemory: ContextMemory;
const tenantMemory: ContextMemory = someMemory.forTenant('acme');
console.log(tenantPrincipal, tenantOf, tenantMemory.tenantId);

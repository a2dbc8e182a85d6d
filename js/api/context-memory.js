// Profile memory: the turn pipeline (behaviour §1.7, §1.9, §1.10)
import { argumentError, handle, invoke, json, live, preload, remakeable, runTask, text } from '../wire.js';
import { contextMemoryAdapter } from '../host.js';
import { encodingIn, MEMORY, STORAGE, storeArg } from './arguments.js';
import { checkTenantId, forTenant, tenantViews } from '../tenants.js';
import { telemetryOption } from '../telemetry/core.js';

const TABLE = Symbol('memcore.contextMemory.table');
const TENANTS = Symbol('memcore.contextMemory.tenants');
const TENANT = Symbol('memcore.contextMemory.tenant');
const TELEMETRY = Symbol('memcore.contextMemory.telemetry');

/**
 * A load result from the wire (src/wasm/context_memory.rs, `load_json`): '\u0001' + the other
 * fields as JSON + '\u0001' + the profile and the system-prompt section as they are, the profile
 * `profileLength` UTF-16 units long (`null`: no profile). `fit.text` is the profile, sent once.
 */
function loadResult(out) {
  const end = out.indexOf('\u0001', 1);
  const { profileLength, fitTextIsProfile, ...fields } = JSON.parse(out.slice(1, end));
  const texts = out.slice(end + 1);
  const profile = profileLength === null ? null : texts.slice(0, profileLength);
  const result = { profile, systemPromptSection: texts.slice(profileLength ?? 0), ...fields };
  if (fitTextIsProfile) result.fit.text = profile;
  return result;
}

/**
 * Profile memory for one host setup: `load` before a turn, `afterTurn` after the answer, and the
 * Settings functions. Turns of the same user run one after the other inside one instance;
 * versioned storage (`ifVersion`, `ifAbsent`) protects across processes. Every host call has a
 * deadline (`config.timeouts`).
 */
export class ContextMemory {
  constructor(hosts, config) {
    const { adapter, entries, entriesArgument, storage, embedder } = contextMemoryAdapter('ContextMemory', hosts);
    // memcore/telemetry (optional): spans and metrics of load and afterTurn and their host calls.
    this[TELEMETRY] = telemetryOption('ContextMemory', hosts.telemetry);
    const spec = embedder === undefined ? undefined : JSON.stringify(embedder);
    this[STORAGE] = storage;
    // The entry store the restriction flag is read from (optional): checked now, like createMemoryTools does.
    if (entries !== undefined) storeArg('ContextMemory', entriesArgument, entries);
    const c = json('ContextMemory', 'config', config);
    // The table the turn counts with, downloaded before load/afterTurn where it is fetched.
    this[TABLE] = typeof adapter.countTokens === 'function' ? undefined : encodingIn(c);
    // Made again after a failed instance: its state is the configuration and the per-user locks.
    this[MEMORY] = remakeable(
      handle(this, () => invoke((g) => g.contextMemoryNew(adapter, entries === undefined ? undefined : storeArg('ContextMemory', entriesArgument, entries), c, Math.floor(Math.random() * 2 ** 53), spec)), (g, id) => g.contextMemoryFree(id), 'ContextMemory'),
    );
    this[TENANT] = null;
    // Tenant views: the same hosts and configuration over the tenant's storage and entry store.
    this[TENANTS] = tenantViews((tenantId) => {
      const view = new ContextMemory({
        ...hosts,
        storage: forTenant(hosts.storage, tenantId, 'storage', 'ContextMemory.forTenant'),
        ...(hosts.entries === undefined || hosts.entries === null ? {} : { entries: forTenant(hosts.entries, tenantId, 'entries', 'ContextMemory.forTenant') }),
      }, config);
      view[TENANT] = tenantId;
      return view;
    });
  }
  /** The tenant this instance serves (null: the default tenant). */
  get tenantId() {
    return this[TENANT];
  }
  /**
   * The same profile memory for tenant `tenantId`: the same hosts and configuration over
   * `storage.forTenant(tenantId)` (and `entries.forTenant`), the same instance for the same id
   * (docs/reference/storage.md, "Tenants"). `E_CONFIG` when the storage cannot hold tenants.
   */
  forTenant(tenantId) {
    checkTenantId(tenantId, 'ContextMemory.forTenant');
    if (this[TENANT] !== null) {
      if (tenantId === this[TENANT]) return this;
      throw argumentError('ContextMemory.forTenant', 'tenantId', `this instance serves tenant ${JSON.stringify(this[TENANT])}; it cannot serve another`);
    }
    return this[TENANTS](tenantId);
  }
  #id() {
    return live(this[MEMORY]);
  }
  async load(input) {
    const i = json('ContextMemory.load', 'input', input) ?? 'null';
    if (this[TABLE]) await preload(this[TABLE]);
    const id = this.#id();
    if (this[TELEMETRY]) return this.#traced('load', () => runTask((g) => g.contextMemoryLoad(id, i), loadResult));
    return runTask((g) => g.contextMemoryLoad(id, i), loadResult);
  }
  async afterTurn(input) {
    const i = json('ContextMemory.afterTurn', 'input', input) ?? 'null';
    if (this[TABLE]) await preload(this[TABLE]);
    const id = this.#id();
    if (this[TELEMETRY]) return this.#traced('afterTurn', () => runTask((g) => g.contextMemoryAfterTurn(id, i)));
    return runTask((g) => g.contextMemoryAfterTurn(id, i));
  }
  /** A turn step as a span `memcore.<operation>`: its outcome, and the tokens of its model calls. */
  #traced(operation, run) {
    const telemetry = this[TELEMETRY];
    return telemetry.operation(`memcore.${operation}`, { 'memcore.operation': operation, 'memcore.tenant_id': this[TENANT] ?? undefined }, run, (error, result, span) => {
      const outcome = error === undefined ? (typeof result?.outcome === 'string' ? result.outcome : 'done') : 'error';
      telemetry.record('turns', { operation, outcome });
      const usage = result?.usage;
      if (usage && typeof usage === 'object') {
        let input = 0;
        let output = 0;
        for (const [purpose, u] of Object.entries(usage)) {
          if (!u || typeof u !== 'object') continue;
          if (Number.isFinite(u.inputTokens)) {
            telemetry.record('tokens', { purpose, direction: 'input' }, u.inputTokens);
            input += u.inputTokens;
          }
          if (Number.isFinite(u.outputTokens)) {
            telemetry.record('tokens', { purpose, direction: 'output' }, u.outputTokens);
            output += u.outputTokens;
          }
        }
        span?.setAttribute('memcore.usage.input_tokens', input);
        span?.setAttribute('memcore.usage.output_tokens', output);
      }
      return outcome;
    });
  }
  async getMyContextMemory(userId) {
    const u = text('getMyContextMemory', 'userId', userId);
    const id = this.#id();
    return runTask((g) => g.contextMemoryGet(id, u));
  }
  async updateMyContextMemory(userId, body) {
    const u = text('updateMyContextMemory', 'userId', userId);
    const b = text('updateMyContextMemory', 'body', body);
    const id = this.#id();
    return runTask((g) => g.contextMemoryUpdate(id, u, b));
  }
  async deleteContextMemory(userId) {
    const u = text('deleteContextMemory', 'userId', userId);
    const id = this.#id();
    return runTask((g) => g.contextMemoryDelete(id, u));
  }
}

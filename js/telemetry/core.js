// The implementation of memcore/telemetry (issue 24 part 4, behaviour §8.5; js/telemetry.js is its
// public face, the helpers the operations use live here too): traces and metrics of memory operations through
// the host's own `@opentelemetry/api` (passed in: memcore never imports it, so a host without
// OpenTelemetry pays nothing and bundles nothing), and the same counters as Prometheus text.
// Attributes are operation names, outcomes, counts, token usage and tenant ids — never user
// content: no key, value, message, query, prompt, answer or profile line, and no user id (it is
// often an e-mail address).
import { setHostTracing } from '../host.js';
import { MemcoreError } from '../errors.js';

/** The OTel context key under which the operation's Telemetry travels to its host calls. */
const TELEMETRY_KEY = Symbol.for('memcore.telemetry');
const telemetries = new WeakSet();
// The OTel APIs of the telemetries made (one in practice): where host calls look for their operation.
const tracedApis = [];

const PREFIX = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
/** Latency buckets of `…operation_duration_seconds`, in seconds (OTel's default boundaries, from 5 ms). */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

const METRICS = {
  turns: ['turns_total', 'counter', 'Turns of profile memory (load and afterTurn) by operation and outcome.'],
  tools: ['tool_calls_total', 'counter', 'Memory tool calls (LLM tools and MCP tools) by tool and answer.'],
  requests: ['http_requests_total', 'counter', 'Requests of memcore/server by method, route and status.'],
  tokens: ['model_tokens_total', 'counter', 'Model tokens used by memory operations, by purpose and direction.'],
  dreamRuns: ['dream_runs_total', 'counter', 'Dream runs by outcome.'],
  dreamPruned: ['dream_entries_pruned_total', 'counter', 'Entries Dream pruned.'],
  dreamContradictions: ['dream_contradictions_found_total', 'counter', 'Contradictions Dream found.'],
  dreamSummarized: ['dream_entries_summarized_total', 'counter', 'Entries Dream summarised.'],
  duration: ['operation_duration_seconds', 'histogram', 'Duration of memory operations.'],
};

function misuse(message) {
  return new MemcoreError('E_ARGUMENT', `createTelemetry: ${message}`, { function: 'createTelemetry' });
}

const nowMs = () => (typeof performance !== 'undefined' && typeof performance.now === 'function' ? performance.now() : Date.now());

/**
 * What memcore records, for every option `telemetry` of the package (`ContextMemory` hosts,
 * `createMemoryTools`, `dream`, `createMemoryHandler`). Made by `createTelemetry`.
 */
export class Telemetry {
  #api;
  #tracer = null;
  #meter = null;
  #instruments = {};
  #prefix;
  #series = new Map(); // metric → Map(labels JSON → value or histogram state)

  constructor(api, prefix, name) {
    this.#api = api;
    this.#prefix = prefix;
    if (api) {
      this.#tracer = guard(() => api.trace.getTracer(name), null);
      this.#meter = guard(() => api.metrics.getMeter(name), null);
      if (this.#meter) {
        for (const [key, [metric, kind, description]] of Object.entries(METRICS)) {
          const full = `${prefix}${metric}`;
          this.#instruments[key] = guard(() => (kind === 'counter' ? this.#meter.createCounter(full, { description }) : this.#meter.createHistogram(full, { description, unit: 's' })), null);
        }
      }
    }
  }

  /** The Prometheus name prefix (default `memcore_`). */
  get prefix() {
    return this.#prefix;
  }

  /**
   * Run `fn` as the operation `name`: a span (the active one for its host calls: storage, store,
   * model and embedder calls become its children), its duration, and `finish(result, span)` to
   * record what the result says. Telemetry never changes the result or the error.
   */
  operation(name, attributes, fn, finish) {
    const started = nowMs();
    const span = this.#tracer ? guard(() => this.#tracer.startSpan(name, { attributes: clean(attributes) }, this.#api.context.active()), null) : null;
    const done = (error, result) => {
      const outcome = guard(() => (finish ? finish(error, result, span) : undefined), undefined);
      this.record('duration', { operation: name, ...(outcome ? { outcome } : {}) }, (nowMs() - started) / 1000);
      if (span) {
        guard(() => {
          if (error !== undefined) {
            span.setStatus({ code: 2 });
            span.setAttribute('error.type', errorType(error));
          }
          if (outcome) span.setAttribute('memcore.outcome', outcome);
          span.end();
        });
      }
    };
    let result;
    const context = span ? guard(() => this.#api.trace.setSpan(this.#api.context.active(), span).setValue(TELEMETRY_KEY, this), null) : null;
    let ran = false;
    const run = () => {
      ran = true;
      return fn();
    };
    try {
      result = context ? this.#api.context.with(context, run) : run();
    } catch (error) {
      if (!ran) {
        // The API failed before the operation ran: run it without a context.
        try {
          result = fn();
        } catch (thrown) {
          done(thrown);
          throw thrown;
        }
      } else {
        done(error);
        throw error;
      }
    }
    let then;
    try {
      // A host's thenable is read once, as js/host.js reads it (a throwing getter is its failure).
      then = result !== null && (typeof result === 'object' || typeof result === 'function') ? result.then : undefined;
    } catch (error) {
      done(error);
      throw error;
    }
    if (typeof then === 'function') {
      return new Promise((resolve, reject) => then.call(result, resolve, reject)).then(
        (value) => {
          done(undefined, value);
          return value;
        },
        (error) => {
          done(error);
          throw error;
        },
      );
    }
    done(undefined, result);
    return result;
  }

  /** Add `value` to a metric's series (a histogram observes it). Never throws. */
  record(key, labels, value = 1) {
    const [metric, kind] = METRICS[key];
    let series = this.#series.get(metric);
    if (!series) this.#series.set(metric, (series = new Map()));
    const id = JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)));
    if (kind === 'counter') {
      series.set(id, (series.get(id) ?? 0) + value);
    } else {
      const h = series.get(id) ?? { buckets: BUCKETS.map(() => 0), count: 0, sum: 0 };
      BUCKETS.forEach((bound, i) => {
        if (value <= bound) h.buckets[i] += 1;
      });
      h.count += 1;
      h.sum += value;
      series.set(id, h);
    }
    const instrument = this.#instruments[key];
    if (instrument) guard(() => (kind === 'counter' ? instrument.add(value, labels) : instrument.record(value, labels)));
  }

  /** A host call of the active operation (storage, store, model, embedder) as a child span. */
  hostCall(operation, attributes, run) {
    const model = operation === 'model.complete';
    const embed = operation === 'embedder.embed';
    const name = model ? 'chat' : embed ? 'embeddings' : operation;
    const attrs = model || embed
      ? { 'gen_ai.operation.name': name, 'gen_ai.system': 'memcore.host', ...attributes }
      : { 'memcore.host_call': operation, ...attributes };
    return this.operation(name === operation ? `memcore.${operation}` : name, attrs, run, (error, value, span) => {
      if (error === undefined && model && value && typeof value === 'object' && value.usage && typeof value.usage === 'object') {
        const { inputTokens, outputTokens } = value.usage;
        if (Number.isFinite(inputTokens)) span?.setAttribute('gen_ai.usage.input_tokens', inputTokens);
        if (Number.isFinite(outputTokens)) span?.setAttribute('gen_ai.usage.output_tokens', outputTokens);
      }
      return error === undefined ? 'ok' : 'error';
    });
  }

  /**
   * The metrics memcore recorded through this Telemetry, with `prometheus()` — the text format,
   * each name under the prefix.
   */
  metrics() {
    return Object.freeze({ prometheus: () => this.#prometheus() });
  }

  #prometheus() {
    const lines = [];
    for (const [metric, kind, help] of Object.values(METRICS)) {
      const series = this.#series.get(metric);
      if (!series || series.size === 0) continue;
      const name = `${this.#prefix}${metric}`;
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${kind}`);
      for (const [id, value] of [...series].sort(([a], [b]) => (a < b ? -1 : 1))) {
        const labels = JSON.parse(id);
        if (kind === 'counter') {
          lines.push(`${name}${labelText(labels)} ${value}`);
        } else {
          BUCKETS.forEach((bound, i) => lines.push(`${name}_bucket${labelText([...labels, ['le', String(bound)]])} ${value.buckets[i]}`));
          lines.push(`${name}_bucket${labelText([...labels, ['le', '+Inf']])} ${value.count}`);
          lines.push(`${name}_sum${labelText(labels)} ${value.sum}`, `${name}_count${labelText(labels)} ${value.count}`);
        }
      }
    }
    return lines.length ? `${lines.join('\n')}\n` : '';
  }
}

function labelText(entries) {
  if (entries.length === 0) return '';
  return `{${entries.map(([k, v]) => `${k}="${String(v).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`).join(',')}}`;
}

/**
 * A Telemetry over the host's OpenTelemetry API (optional: without it only the counters behind
 * `metrics().prometheus()` are kept).
 * @example import * as api from '@opentelemetry/api'; const telemetry = createTelemetry({ api }); new ContextMemory({ storage, model, telemetry });
 */
export function createTelemetry(options = {}) {
  if (options === null || typeof options !== 'object') throw misuse('options must be an object like { api, prefix }');
  const { api, prefix = 'memcore_', tracerName = 'memcore' } = options;
  if (typeof prefix !== 'string' || !PREFIX.test(prefix)) throw misuse('`prefix` must be a Prometheus name prefix like "memcore_" ([a-zA-Z_:][a-zA-Z0-9_:]*)');
  if (typeof tracerName !== 'string' || tracerName === '') throw misuse('`tracerName` must be a non-empty string');
  if (api !== undefined && api !== null) {
    const usable = guard(() => typeof api.trace?.getTracer === 'function' && typeof api.context?.active === 'function' && typeof api.context?.with === 'function' && typeof api.metrics?.getMeter === 'function', false);
    if (!usable) throw misuse('`api` must be the @opentelemetry/api module (import * as api from \'@opentelemetry/api\')');
  }
  const telemetry = new Telemetry(api ?? null, prefix, tracerName);
  telemetries.add(telemetry);
  // Host calls made inside an operation become its children (found through the OTel context).
  if (api && !tracedApis.includes(api)) {
    tracedApis.push(api);
    setHostTracing((operation, attributes, run) => {
      for (const each of tracedApis) {
        const active = guard(() => each.context.active().getValue(TELEMETRY_KEY), undefined);
        if (active instanceof Telemetry) return () => active.hostCall(operation, attributes, run);
      }
      return run;
    });
  }
  return telemetry;
}

/** The Telemetry of an option (undefined/null: none), or an argument error. */
export function telemetryOption(fn, value) {
  if (value === undefined || value === null) return null;
  if (!telemetries.has(value)) {
    throw new MemcoreError('E_ARGUMENT', `${fn}: \`telemetry\` must be made by createTelemetry (memcore/telemetry)`, { function: fn, argument: 'telemetry' });
  }
  return value;
}

/** The answer kind of a tool's answer text: its leading mark, never its words. */
export function answerKind(text) {
  if (typeof text !== 'string') return 'failed';
  if (text.startsWith('✅')) return 'ok';
  if (text.startsWith('⚠️')) return 'refused';
  if (text.startsWith('❌')) return 'failed';
  return 'answered';
}

/** The name spans and metrics give a tool call whose name is not one of the tools' own. */
export const UNKNOWN_TOOL = '_unknown';

/** A tool call as a span `execute_tool <name>` (GenAI conventions) and its answer's kind counted. */
export function toolSpan(telemetry, name, call) {
  return telemetry.operation(`execute_tool ${name}`, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name }, call, (error, result, span) => {
    const answer = error === undefined ? answerKind(typeof result === 'string' ? result : result?.text) : 'failed';
    telemetry.record('tools', { tool: name, answer });
    if (result && typeof result === 'object' && typeof result.wrote === 'boolean') span?.setAttribute('memcore.wrote', result.wrote);
    return answer;
  });
}

function errorType(error) {
  try {
    if (typeof error?.code === 'string' && /^[A-Z][A-Z0-9_]{0,63}$/.test(error.code)) return error.code;
    return typeof error?.name === 'string' && /^[A-Za-z]{1,64}$/.test(error.name) ? error.name : 'Error';
  } catch {
    return 'Error';
  }
}

function clean(attributes) {
  const out = {};
  for (const [k, v] of Object.entries(attributes ?? {})) if (v !== undefined && v !== null) out[k] = v;
  return out;
}

function guard(fn, fallback) {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

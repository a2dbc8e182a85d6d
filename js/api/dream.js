// Dream maintenance (behaviour §3)
import { telemetryOption } from '../telemetry/core.js';
import { argumentError, callback, fields, handle, invoke, json, jsonWithout, live, remakeable, runTask } from '../wire.js';
import { dreamHosts, modelOf } from '../host.js';
import { isPlainObjectLike, parsed, storeArg } from './arguments.js';

const METRICS = Symbol('memcore.dreamMetrics');
const metricsObjects = new WeakSet();

/**
 * Dream's counters and duration summary, kept by the host across runs and passed to `dream` as
 * `metrics`; `prometheus()` writes them in the Prometheus text format, named
 * `<prefix>dream_*` (`options.prefix`, default `memcore_`). After a failed WebAssembly instance
 * the counters start again from zero (as after a process restart).
 */
export class DreamMetrics {
  constructor(options = undefined) {
    const fn = 'DreamMetrics';
    if (options !== undefined && options !== null && !isPlainObjectLike(options)) throw argumentError(fn, 'options', 'must be an object like { prefix }');
    const prefix = options?.prefix ?? undefined;
    if (prefix !== undefined && typeof prefix !== 'string') throw argumentError(fn, 'options.prefix', 'must be a string like "memcore_"');
    this[METRICS] = remakeable(handle(this, () => invoke((g) => g.dreamMetricsNew(prefix)), (g, id) => g.dreamMetricsFree(id), 'DreamMetrics'));
    metricsObjects.add(this);
  }
  /** The Prometheus text exposition (`memcore_dream_*` unless another prefix was given). */
  prometheus() {
    const id = live(this[METRICS]);
    return invoke((g) => g.dreamMetricsPrometheus(id));
  }
  /** The counters as an object. */
  snapshot() {
    const id = live(this[METRICS]);
    return parsed(invoke((g) => g.dreamMetricsSnapshot(id)));
  }
}

/**
 * One Dream run for one user and one firing agent: prune, detect contradictions, summarise.
 * Resolves to the report; refusals and failures are in `report.error`, misuse rejects.
 */
export async function dream(options) {
  const fn = 'dream';
  if (!isPlainObjectLike(options)) throw argumentError(fn, 'options', 'must be an object like { store, model, userId, agentId, config, now }');
  const callbacks = ['store', 'model', 'newId', 'log', 'metrics', 'telemetry'];
  const { store, model, newId, log, metrics, telemetry: t } = fields(fn, 'options', options, callbacks);
  const telemetry = telemetryOption(fn, t);
  const s = storeArg(fn, 'store', store);
  const complete = modelOf(fn, 'options.model', model);
  const hosts = dreamHosts(fn, { complete, newId: callback(fn, 'options.newId', newId), log: callback(fn, 'options.log', log) });
  let m;
  if (metrics !== undefined && metrics !== null) {
    if (!metricsObjects.has(metrics)) throw argumentError(fn, 'options.metrics', 'must be a DreamMetrics (new DreamMetrics())');
    m = live(metrics[METRICS]);
  }
  const o = jsonWithout(fn, 'options', options, callbacks);
  if (!telemetry) return runTask((g) => g.dream(s, o, hosts, m));
  // A span `memcore.dream` and the report's counts (memcore/telemetry).
  return telemetry.operation('memcore.dream', { 'memcore.operation': 'dream' }, () => runTask((g) => g.dream(s, o, hosts, m)), (error, report, span) => {
    const outcome = error !== undefined ? 'error' : report?.error ? 'failed' : 'done';
    telemetry.record('dreamRuns', { outcome });
    if (report && typeof report === 'object') {
      const contradictions = Array.isArray(report.contradictions) ? report.contradictions.length : 0;
      for (const [key, value] of [['dreamPruned', report.pruned], ['dreamContradictions', contradictions], ['dreamSummarized', report.summarized]]) {
        if (Number.isFinite(value) && value > 0) telemetry.record(key, {}, value);
      }
      span?.setAttribute('memcore.dream.pruned', Number.isFinite(report.pruned) ? report.pruned : 0);
      span?.setAttribute('memcore.dream.contradictions', contradictions);
      span?.setAttribute('memcore.dream.summarized', Number.isFinite(report.summarized) ? report.summarized : 0);
      span?.setAttribute('memcore.dream.model_calls', Number.isFinite(report.calls) ? report.calls : 0);
    }
    return outcome;
  });
}

/** Every problem of a Dream schedule as `{ field, message }` (empty → valid). */
export function validateDreamSchedule(schedule) {
  const s = json('validateDreamSchedule', 'schedule', schedule);
  return parsed(invoke((g) => g.validateDreamSchedule(s)));
}

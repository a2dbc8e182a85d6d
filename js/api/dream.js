// Dream maintenance (SPEC §3)
import { argumentError, callback, fields, handle, invoke, json, jsonWithout, live, remakeable, runTask } from '../wire.js';
import { dreamHosts, modelOf } from '../host.js';
import { isPlainObjectLike, parsed, storeArg } from './arguments.js';

const METRICS = Symbol('memcore.dreamMetrics');
const metricsObjects = new WeakSet();

/**
 * Dream's counters and duration summary, kept by the host across runs and passed to `dream` as
 * `metrics`; `prometheus()` writes them in the Prometheus text format. After a failed
 * WebAssembly instance the counters start again from zero (as after a process restart).
 */
export class DreamMetrics {
  constructor() {
    this[METRICS] = remakeable(handle(this, () => invoke((g) => g.dreamMetricsNew()), (g, id) => g.dreamMetricsFree(id), 'DreamMetrics'));
    metricsObjects.add(this);
  }
  /** The Prometheus text exposition (`eddi_dream_*`). */
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
  const callbacks = ['store', 'model', 'newId', 'log', 'metrics'];
  const { store, model, newId, log, metrics } = fields(fn, 'options', options, callbacks);
  const s = storeArg(fn, 'store', store);
  const complete = modelOf(fn, 'options.model', model);
  const hosts = dreamHosts(fn, { complete, newId: callback(fn, 'options.newId', newId), log: callback(fn, 'options.log', log) });
  let m;
  if (metrics !== undefined && metrics !== null) {
    if (!metricsObjects.has(metrics)) throw argumentError(fn, 'options.metrics', 'must be a DreamMetrics (new DreamMetrics())');
    m = live(metrics[METRICS]);
  }
  const o = jsonWithout(fn, 'options', options, callbacks);
  return runTask((g) => g.dream(s, o, hosts, m));
}

/** Every problem of a Dream schedule as `{ field, message }` (empty → valid). */
export function validateDreamSchedule(schedule) {
  const s = json('validateDreamSchedule', 'schedule', schedule);
  return parsed(invoke((g) => g.validateDreamSchedule(s)));
}

// Learning from conversations (behaviour §8.6): facts extracted from a turn into entry memory.
import { argumentError, fields, runTask, text } from '../wire.js';
import { learnHosts, modelOf } from '../host.js';
import { entryOptions, isPlainObjectLike, storeArg } from './arguments.js';
import { telemetryOption } from '../telemetry/core.js';

/**
 * Learn from one turn: one extraction call over the turn's `user` and `assistant` messages (never
 * `system` ones, never the sections memcore injected), applied through `rememberFact`'s rules with
 * author `learned`. Resolves to `{ outcome, reason?, facts, ignored, episodes, usage? }`; a failed
 * or unusable extraction is `outcome: 'failed'` with nothing written. Rejects only on misuse.
 * `signal` (an `AbortSignal`) abandons the extraction call: the model's request `signal` aborts
 * too, and the learning ends `failed` with nothing written (episodes already kept stay).
 * @example const report = await learnFromTurn({ store, model, userId: 'u1', agentId: 'assistant', conversationId: 'c1', messages, at: '2026-05-01T10:00:00Z' });
 */
export async function learnFromTurn(options) {
  const fn = 'learnFromTurn';
  if (!isPlainObjectLike(options)) {
    throw argumentError(fn, 'options', 'must be an object like { store, model, userId, agentId, conversationId, messages }');
  }
  const { store, model, telemetry: t, messages, signal } = fields(fn, 'options', options, ['store', 'model', 'telemetry', 'messages', 'signal']);
  const telemetry = telemetryOption(fn, t);
  const s = storeArg(fn, 'store', store);
  const direct = modelOf(fn, 'options.model', model);
  if (!direct) throw argumentError(fn, 'options.model', 'must be a model: a function or an object with complete(request)');
  if (!Array.isArray(messages)) throw argumentError(fn, 'options.messages', 'must be the turn\'s messages, an array like [{ role: "user", content: "…" }]');
  if (signal !== undefined && signal !== null && !isAbortSignal(signal)) throw argumentError(fn, 'options.signal', 'must be an AbortSignal');
  const complete = signal ? abortable(direct, signal) : direct;
  const [o, hosts] = entryOptions(fn, options, true, ['model', 'telemetry', 'signal']);
  const h = learnHosts(hosts, complete);
  if (!telemetry) return runTask((g) => g.learnFromTurn(s, o, h));
  return telemetry.operation('memcore.learn', { 'memcore.operation': 'learn' }, () => runTask((g) => g.learnFromTurn(s, o, h)), (error, report, span) => {
    const outcome = error !== undefined ? 'error' : typeof report?.outcome === 'string' ? report.outcome : 'error';
    if (Array.isArray(report?.facts)) span?.setAttribute('memcore.learn.facts', report.facts.length);
    return outcome;
  });
}

/** An `AbortSignal` (or a look-alike: `aborted` and `addEventListener`). */
function isAbortSignal(signal) {
  return typeof signal === 'object' && typeof signal.aborted === 'boolean' && typeof signal.addEventListener === 'function';
}

/**
 * The model, abandoned when the caller's `signal` aborts: the request's own `signal` (memcore's
 * deadline) and the caller's both abort what the model receives, and an abort ends the call at
 * once, so the extraction counts as failed (no fact written; the episodes already kept stay).
 */
function abortable(complete, signal) {
  return (request) => {
    const aborted = () => new Error('learnFromTurn: aborted by options.signal');
    if (signal.aborted) return Promise.reject(aborted());
    const controller = new AbortController();
    const stop = () => controller.abort();
    signal.addEventListener('abort', stop, { once: true });
    request.signal?.addEventListener('abort', stop, { once: true });
    const cancelled = new Promise((_, reject) => controller.signal.addEventListener('abort', () => reject(aborted()), { once: true }));
    const answer = Promise.resolve().then(() => complete({ ...request, signal: controller.signal }));
    return Promise.race([answer, cancelled]).finally(() => signal.removeEventListener('abort', stop));
  };
}

/**
 * The user's episodes (the turns' messages `learnFromTurn` kept) most relevant to `query`, with
 * the search modes of entries: `auto` (default: `hybrid` with an `embedder`, else `ranked`),
 * `terms`, `ranked`, `hybrid`. Resolves to `[{ id, conversationId, role, text, at, score }]`.
 * @example const hits = await searchEpisodes(store, 'u1', 'when is the wedding', { limit: 5 });
 */
export async function searchEpisodes(store, userId, query, options) {
  const fn = 'searchEpisodes';
  const s = storeArg(fn, 'store', store);
  const u = text(fn, 'userId', userId);
  const q = text(fn, 'query', query);
  const [o, hosts] = entryOptions(fn, options, false);
  return runTask((g) => g.searchEpisodes(s, u, q, o, hosts));
}

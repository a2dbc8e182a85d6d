// Search by meaning (behaviour §8.2): the relevant entries for a prompt, and filling in vectors.
import { argumentError, callback, fields, preload, runTask } from '../wire.js';
import { counterAdapter } from '../host.js';
import { encodingIn, entryOptions, isPlainObjectLike, storeArg } from './arguments.js';

/**
 * The visible entries most relevant to `query`, ready for the system prompt: `{ section, tokens,
 * entries }` — `section` is `# Relevant memories` and one `• key = value [category, visibility]`
 * line per entry, best first, never over `maxTokens` (counted exactly, like the profile).
 * `mode` defaults to `hybrid` (ranked by words alone without an `embedder`).
 * @example const { section } = await relevantMemories({ store, embedder, userId: 'u1', agentId: 'a1', query: 'what is my dog called', maxTokens: 200 });
 */
export async function relevantMemories(options) {
  const fn = 'relevantMemories';
  if (!isPlainObjectLike(options)) throw argumentError(fn, 'options', 'must be an object like { store, userId, agentId, query, maxTokens }');
  const { store, countTokens } = fields(fn, 'options', options, ['store', 'countTokens']);
  const s = storeArg(fn, 'options.store', store);
  const cb = callback(fn, 'options.countTokens', countTokens);
  const [o, hosts] = entryOptions(fn, options, true, ['countTokens']);
  const counter = cb ? counterAdapter(cb) : undefined;
  if (!counter) await preload(encodingIn(o));
  return runTask((g) => g.relevantMemories(s, o, hosts, counter));
}

/**
 * Give every entry without a vector of `embedder.model` one (entries stored while the embedder
 * failed, or every entry after a model change): `{ embedded, missing, error? }`. Pages through the
 * store's `unembedded`; a store without it needs `options.userId`.
 * @example const { embedded } = await reindexEmbeddings(store, embedder, { userId: 'u1' });
 */
export async function reindexEmbeddings(store, embedder, options) {
  const fn = 'reindexEmbeddings';
  const s = storeArg(fn, 'store', store);
  if (embedder === undefined || embedder === null) throw argumentError(fn, 'embedder', 'must be an embedder like { model, embed({ texts, purpose, signal }) }');
  if (options !== undefined && options !== null && !isPlainObjectLike(options)) throw argumentError(fn, 'options', 'must be an object like { userId? }');
  const [o, hosts] = entryOptions(fn, { ...(options ?? {}), embedder }, true);
  return runTask((g) => g.reindexEmbeddings(s, o, hosts));
}

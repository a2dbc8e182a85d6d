// Long-term properties (behaviour §2.7)
import { json, runTask, text } from '../wire.js';
import { entryHosts } from '../host.js';
import { entryOptions, storeArg, storeTimeout } from './arguments.js';

// The async functions prepare every argument (which may run the user's getters) before the call
// into wasm; as `async` functions they reject instead of throwing.
export async function persistLongTermProperties(store, properties, options) {
  const fn = 'persistLongTermProperties';
  const s = storeArg(fn, 'store', store);
  const p = json(fn, 'properties', properties);
  const [o, hosts] = entryOptions(fn, options, true);
  return runTask((g) => g.persistLongTermProperties(s, p ?? 'null', o, hosts));
}
export async function readProperties(store, userId, options) {
  const fn = 'readProperties';
  const s = storeArg(fn, 'store', store);
  const u = text(fn, 'userId', userId);
  const o = storeTimeout(fn, options);
  return runTask((g) => g.readProperties(s, u, o, entryHosts(fn, {})));
}
export async function mergeProperties(store, userId, properties, options) {
  const fn = 'mergeProperties';
  const s = storeArg(fn, 'store', store);
  const u = text(fn, 'userId', userId);
  const p = json(fn, 'properties', properties);
  const [o, hosts] = entryOptions(fn, options, false);
  return runTask((g) => g.mergeProperties(s, u, p ?? 'null', o, hosts));
}
export async function deleteProperties(store, userId, options) {
  const fn = 'deleteProperties';
  const s = storeArg(fn, 'store', store);
  const u = text(fn, 'userId', userId);
  const [o, hosts] = entryOptions(fn, options, false);
  return runTask((g) => g.deleteProperties(s, u, o, hosts));
}

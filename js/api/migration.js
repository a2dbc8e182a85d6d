// Credentials and the legacy migration (behaviour §4.1, §4.2)
import { invoke, json, runTask } from '../wire.js';
import { entryOptions, parsed, storeArg, storeTimeout } from './arguments.js';

export function detectCredential(value) {
  const v = json('detectCredential', 'value', value);
  return parsed(invoke((g) => g.detectCredential(v ?? 'null')));
}
export function redactSecrets(value) {
  const v = json('redactSecrets', 'value', value);
  return parsed(invoke((g) => g.redactSecrets(v ?? 'null')));
}
export function planPropertiesMigration(legacyDocuments, existingKeysByUser, options) {
  const fn = 'planPropertiesMigration';
  const d = json(fn, 'legacyDocuments', legacyDocuments);
  const e = json(fn, 'existingKeysByUser', existingKeysByUser);
  const o = json(fn, 'options', options);
  return parsed(invoke((g) => g.planPropertiesMigration(d ?? 'null', e, o)));
}
export function planLegacyCleanup(entries, options) {
  const fn = 'planLegacyCleanup';
  const e = json(fn, 'entries', entries);
  const o = json(fn, 'options', options);
  return parsed(invoke((g) => g.planLegacyCleanup(e ?? 'null', o)));
}
export async function applyPropertiesMigration(plan, store, options) {
  const fn = 'applyPropertiesMigration';
  const p = json(fn, 'plan', plan);
  const s = storeArg(fn, 'store', store);
  const [, hosts] = entryOptions(fn, options, false);
  const o = storeTimeout(fn, options);
  return runTask((g) => g.applyPropertiesMigration(p ?? 'null', s, o, hosts));
}

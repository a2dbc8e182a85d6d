// Injection, paths, enablement, editing (behaviour §1.1, §1.7, §1.8, §1.10)
import { invoke, json, optionalText, text } from '../wire.js';
import { parsed } from './arguments.js';

export function memorySystemPromptSection(input) {
  const t = optionalText('memorySystemPromptSection', 'text', input);
  return invoke((g) => g.memorySystemPromptSection(t));
}
/**
 * The one user-id rule of every write and of erasure: returns the id when memcore accepts it,
 * throws `E_INVALID_USER_ID` (saying what is wrong) when not — empty, edge whitespace, `.`/`..`,
 * `/` or `\`, a control character, over 255 UTF-8 bytes, a Windows device name.
 * @example checkUserId(request.auth.sub); // before storing anything under it
 */
export function checkUserId(userId) {
  const u = text('checkUserId', 'userId', userId);
  invoke((g) => g.checkUserId(u));
  return u;
}
export function memoryPath(userId, rootFolder) {
  const u = text('memoryPath', 'userId', userId);
  const r = optionalText('memoryPath', 'rootFolder', rootFolder);
  return invoke((g) => g.memoryPath(u, r));
}
export function checkMemoryRoots(roots, configuredName) {
  const r = json('checkMemoryRoots', 'roots', roots);
  const n = optionalText('checkMemoryRoots', 'configuredName', configuredName);
  return invoke((g) => g.checkMemoryRoots(r ?? 'null', n)) ?? null;
}
export function resolveEnablement(inputs) {
  const i = json('resolveEnablement', 'inputs', inputs);
  return parsed(invoke((g) => g.resolveEnablement(i ?? 'null')));
}
export function orchestratorMemoryEnabled(payloadValue) {
  const v = json('orchestratorMemoryEnabled', 'payloadValue', payloadValue);
  return invoke((g) => g.orchestratorMemoryEnabled(v));
}
export function editableBody(input) {
  const t = text('editableBody', 'text', input);
  return invoke((g) => g.editableBody(t));
}
export function memoryView(stored) {
  const s = optionalText('memoryView', 'stored', stored);
  return parsed(invoke((g) => g.memoryView(s)));
}
export function applyUserEdit(existing, body, options) {
  const e = optionalText('applyUserEdit', 'existing', existing);
  const b = text('applyUserEdit', 'body', body);
  const o = json('applyUserEdit', 'options', options);
  return parsed(invoke((g) => g.applyUserEdit(e, b, o ?? 'null')));
}

// Budget fitting (behaviour §1.4, §1.5)
import { argumentError, callback, fields, invoke, json, jsonWithout, preload, runTask, text } from '../wire.js';
import { counterAdapter, modelAdapter, modelOf } from '../host.js';
import { encodingIn, isPlainObjectLike, parsed, tokenizer } from './arguments.js';

export function enforceTokenCap(input, maxTokens, options) {
  const t = text('enforceTokenCap', 'text', input);
  const m = json('enforceTokenCap', 'maxTokens', maxTokens);
  const [o, counter] = tokenizer('enforceTokenCap', 'tokenizer', options);
  return parsed(invoke((g) => g.enforceTokenCap(t, m ?? 'null', o, counter)));
}
export function condenseProfile(input, maxTokens, options) {
  const t = text('condenseProfile', 'text', input);
  const m = json('condenseProfile', 'maxTokens', maxTokens);
  const [o, counter] = tokenizer('condenseProfile', 'tokenizer', options);
  return parsed(invoke((g) => g.condenseProfile(t, m ?? 'null', o, counter)));
}
export async function fitProfile(input, options) {
  const t = text('fitProfile', 'text', input);
  if (options !== undefined && options !== null && !isPlainObjectLike(options)) {
    throw argumentError('fitProfile', 'options', 'must be an object like { maxTokens, condense?, now? }');
  }
  const { countTokens: count, condense } = fields('fitProfile', 'options', options, ['countTokens', 'condense']);
  const cb = callback('fitProfile', 'options.countTokens', count);
  const model = modelOf('fitProfile', 'options.condense', condense);
  const o = jsonWithout('fitProfile', 'options', options, ['countTokens', 'condense']);
  const counter = cb ? counterAdapter(cb) : undefined;
  const condenser = model ? modelAdapter(model) : undefined;
  if (!counter) await preload(encodingIn(o));
  return runTask((g) => g.fitProfile(t, o, counter, condenser));
}

// Turn prompts and their answers (behaviour §1.7 steps 4–5)
import { invoke, json, text } from '../wire.js';
import { parsed } from './arguments.js';

export function buildGatePrompt(profileBody, userMessage, assistantMessage, options) {
  const fn = 'buildGatePrompt';
  const [b, u, a] = [text(fn, 'profileBody', profileBody), text(fn, 'userMessage', userMessage), text(fn, 'assistantMessage', assistantMessage)];
  const o = json(fn, 'options', options);
  return parsed(invoke((g) => g.buildGatePrompt(b, u, a, o)));
}
export function buildConsolidationPrompt(currentBody, userMessage, assistantMessage, options) {
  const fn = 'buildConsolidationPrompt';
  const [b, u, a] = [text(fn, 'currentBody', currentBody), text(fn, 'userMessage', userMessage), text(fn, 'assistantMessage', assistantMessage)];
  const o = json(fn, 'options', options);
  return parsed(invoke((g) => g.buildConsolidationPrompt(b, u, a, o ?? 'null')));
}
export function buildCondensePrompt(body, options) {
  const b = text('buildCondensePrompt', 'body', body);
  const o = json('buildCondensePrompt', 'options', options);
  return parsed(invoke((g) => g.buildCondensePrompt(b, o)));
}
export function parseGateDecision(raw) {
  const r = text('parseGateDecision', 'raw', raw);
  return parsed(invoke((g) => g.parseGateDecision(r)));
}
export function parseConsolidation(raw) {
  const r = text('parseConsolidation', 'raw', raw);
  return parsed(invoke((g) => g.parseConsolidation(r)));
}

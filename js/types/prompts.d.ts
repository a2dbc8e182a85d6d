// memcore typings: Turn prompts and their answers (behaviour §1.7 steps 4–5).
import type { ModelRequest } from './fit.js';
import type { TimeInput } from './profile.js';

/**
 * The gate request: one word, UPDATE or NOOP; output budget 4 tokens (64 for reasoning models).
 * @example const req = buildGatePrompt(profileBody(text), userMessage, assistantMessage); await model.complete(req);
 */
export function buildGatePrompt(profileBody: string, userMessage: string, assistantMessage: string, options?: { reasoningModel?: boolean }): ModelRequest;

/**
 * The consolidation request (every rule of behaviour §1.7 step 5; messages in tag-delimited blocks,
 * `</` sanitised); output cap `maxTokens + 200`.
 * @example buildConsolidationPrompt(body, userMessage, assistantMessage, { now: new Date(), maxTokens: 2000 });
 */
export function buildConsolidationPrompt(currentBody: string, userMessage: string, assistantMessage: string, options: { now: TimeInput; maxTokens?: number }): ModelRequest;

/**
 * The condense request of fitting (toward `floor(0.9 × maxTokens)`); output cap `maxTokens + 200`.
 * @example buildCondensePrompt(body, { maxTokens: 2000 });
 */
export function buildCondensePrompt(body: string, options?: { maxTokens?: number; now?: TimeInput }): ModelRequest;

/**
 * Read a gate answer: starts with NOOP (trimmed, any case) → `'noop'`; anything else → `'update'` (fail open).
 * @example parseGateDecision(' noop.'); // 'noop'
 */
export function parseGateDecision(raw: string): 'update' | 'noop';

/** A read consolidation answer. */
export type Consolidation = { kind: 'noop' } | { kind: 'body'; body: string } | { kind: 'invalid'; reason: string };

/**
 * Read a consolidation answer: NOOP, a well-formed body (normalised, frontmatter dropped), or invalid with a reason.
 * @example const c = parseConsolidation(answer); if (c.kind === 'body') save(c.body);
 */
export function parseConsolidation(raw: string): Consolidation;

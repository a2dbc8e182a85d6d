// The shared tool scenarios (tests/vectors/entries/tool_scenarios.json) replayed through the
// installed package against any entry store: entries.test.mjs runs them over the bundled
// InMemoryEntryStore and a plain JS store, sql-stores.test.mjs over every SQL adapter.
import assert from 'node:assert/strict';
import * as m from 'memcore';
import { vectors } from '../js/vectors.mjs';

export const toolScenarios = vectors('entries/tool_scenarios.json');

/** A scenario's partial setup entry with the documented defaults filled in. */
export function fullEntry(partial) {
  return {
    userId: 'u1', category: 'fact', visibility: 'global', groupIds: [], accessCount: 0, conflicted: false,
    sourceAgentId: null, sourceConversationId: null,
    createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z',
    ...partial,
  };
}

/** Whether `actual` has every field of `expected` (compared as JSON). */
export function matchesPartial(actual, expected) {
  return Object.entries(expected).every(([k, v]) => JSON.stringify(actual[k]) === JSON.stringify(v));
}

/**
 * Replay one scenario. `store` already holds the scenario's setup entries (`scenarioEntries`);
 * `setFail(ops)` makes the named operations fail during a call (fault-injection scenarios; absent
 * → the caller skipped them); `storedEntries()` resolves to every entry the store holds.
 */
export async function replayToolScenario(scenario, { label, store, setFail, storedEntries }) {
  const d = toolScenarios.defaults;
  const base = Date.parse(scenario.now ?? d.now);
  let clock = base;
  let n = 0;
  const toolsByScope = new Map();
  const toolsFor = (agentId, group) => {
    const scope = `${agentId}|${group ?? ''}`;
    if (!toolsByScope.has(scope)) {
      toolsByScope.set(scope, m.createMemoryTools({
        store, config: scenario.config, userId: scenario.userId ?? d.userId, agentId, group,
        conversationId: scenario.conversationId ?? d.conversationId,
        now: () => new Date(clock), newId: () => `id-${String(++n).padStart(3, '0')}`,
      }));
    }
    return toolsByScope.get(scope);
  };
  for (const [i, c] of scenario.calls.entries()) {
    clock = base + i * 1000;
    if (c.newTurn) for (const t of toolsByScope.values()) t.newTurn();
    const group = 'group' in c ? c.group : scenario.group ?? d.group;
    const tools = toolsFor(c.agentId ?? scenario.agentId ?? d.agentId, group);
    setFail?.(c.failOn ?? []);
    const answer = await tools.run(c.tool, c.args);
    setFail?.([]);
    assert.equal(answer.text, c.expect, `${scenario.name} [${label}] call ${i} (${c.tool})`);
    if ('expectWrote' in c) assert.equal(answer.wrote, c.expectWrote, `${scenario.name} [${label}] call ${i} wrote`);
  }
  if (scenario.expectStore) {
    const all = await storedEntries();
    assert.equal(all.length, scenario.expectStore.length, `${scenario.name} [${label}] store size`);
    for (const expected of scenario.expectStore) {
      assert.ok(all.some((a) => matchesPartial(a, expected)), `${scenario.name} [${label}] store holds ${JSON.stringify(expected)}\n${JSON.stringify(all)}`);
    }
  }
}

/** The setup entries of a scenario, defaults filled. */
export function scenarioEntries(scenario) {
  return (scenario.entries ?? []).map(fullEntry);
}

/** The users whose entries `storedEntries` must cover for a scenario. */
export function scenarioUsers(scenario) {
  const d = toolScenarios.defaults;
  return [...new Set([...(scenario.expectStore ?? []).map((e) => e.userId ?? d.userId), 'u1', 'u2'])];
}

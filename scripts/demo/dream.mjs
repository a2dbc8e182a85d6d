// The demo's Dream pass: what agent-456 wrote about the user over the months (one fact nobody
// rewrote since April, five overlapping preferences, a language another agent remembers
// differently) and the answer a model gave for that preference group, replayed so the demo runs
// with no network. Its usage is the prompt and the answer counted with the o200k table.

const entry = (id, key, value, category, visibility, agent, at) => ({
  id, userId: 'user_123', key, value, category, visibility, sourceAgentId: agent, groupIds: [],
  sourceConversationId: 'conv-789', conflicted: false, accessCount: 0, createdAt: at, updatedAt: at,
});

export const DREAM_NOW = '2026-11-08T03:00:00Z';

export const DREAM_ENTRIES = [
  entry('d-1', 'q1_project', 'Basel III capital migration', 'fact', 'self', 'agent-456', '2026-04-01T09:00:00Z'),
  entry('d-2', 'answer_length', 'short', 'preference', 'self', 'agent-456', '2026-11-03T14:00:00Z'),
  entry('d-3', 'numbers', 'tables when comparing numbers', 'preference', 'self', 'agent-456', '2026-11-03T14:00:00Z'),
  entry('d-4', 'memo_style', 'bullet points, decision first', 'preference', 'self', 'agent-456', '2026-11-04T10:00:00Z'),
  entry('d-5', 'charts', 'colour-blind safe palette', 'preference', 'self', 'agent-456', '2026-11-05T16:30:00Z'),
  entry('d-6', 'table_style', 'tables for numeric comparisons', 'preference', 'self', 'agent-456', '2026-11-06T08:10:00Z'),
  entry('d-7', 'language', 'English', 'fact', 'global', 'agent-456', '2026-11-02T09:15:00Z'),
  entry('d-8', 'language', 'German', 'fact', 'self', 'agent-789', '2026-11-06T18:00:00Z'),
];

export const DREAM_CONFIG = {
  dream: { enabled: true, pruneStaleAfterDays: 90, detectContradictions: true, summarizeInteractions: true, summarizeMinEntries: 4, summarizeTargetEntries: 2, maxCostPerRun: 0.5 },
};

const ANSWER = JSON.stringify([
  { key: 'writing_style', value: 'Short answers; tables whenever numbers are compared; memos as bullet points, decision first.' },
  { key: 'charts', value: 'Colour-blind safe palette.' },
]);

/** The recorded model: the same answer for the preference group, with counted usage. */
export function recordedDreamModel(countTokens) {
  return {
    label: 'recorded model (scripts/demo/dream.mjs)',
    complete: (request) => ({ text: ANSWER, usage: { inputTokens: countTokens(request.system) + countTokens(request.user), outputTokens: countTokens(ANSWER) } }),
  };
}

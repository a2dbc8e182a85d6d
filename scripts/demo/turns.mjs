// The demo's script: one user, two chats in two spaces, eight turns that introduce, change,
// contradict and forget facts, with small talk in between. `recorded` holds the answers a model
// gave for these exact turns (the gate's word and the consolidated body); the recorded model
// replays them so the demo runs with no network. Set MEMCORE_MODEL_BASE_URL to use a real model.

const H = ['## Identity', '## Communication Preferences', '## Work Context', '## Skills & Expertise', '## Recent Topics', '## Follow-ups'];
const body = (sections) =>
  '# User Memory\n\n' + H.map((h, i) => `${h}\n${sections[i]?.length ? sections[i].join('\n') : '_(empty)_'}`).join('\n\n') + '\n';

export const USER = 'user_123';

export const TURNS = [
  {
    space: 'Research', time: '2026-11-02T09:15:00Z',
    user: "Hi! I'm Mara, a credit risk analyst at Helvetia Bank in Zurich. Can you explain IFRS 9 staging in two sentences?",
    assistant: 'Sure, Mara. IFRS 9 sorts loans into Stage 1 (performing, 12-month expected loss), Stage 2 (significant increase in credit risk, lifetime loss) and Stage 3 (credit-impaired, lifetime loss with interest on the net amount).',
    recorded: {
      gate: 'UPDATE',
      consolidate: body([
        ['- Name: Mara.', '- Credit risk analyst at Helvetia Bank, based in Zurich.'],
        [],
        [],
        ['- Works with IFRS 9 expected-credit-loss staging.'],
        ['- 2026-11-02 09:15 UTC: Asked for a two-sentence summary of IFRS 9 staging.'],
        [],
      ]),
    },
  },
  {
    space: 'Research', time: '2026-11-02T09:20:00Z',
    user: 'Thanks, that was clear!',
    assistant: 'Glad it helped.',
    recorded: { gate: 'NOOP' },
  },
  {
    space: 'Writing', time: '2026-11-03T14:00:00Z',
    user: 'Please keep answers short and use tables when you compare numbers. Also: remind me to send the Q4 impairment memo to Jonas on Friday.',
    assistant: "Understood — short answers, tables for numbers. I'll keep the Friday memo in mind.",
    recorded: {
      gate: 'UPDATE',
      consolidate: body([
        ['- Name: Mara.', '- Credit risk analyst at Helvetia Bank, based in Zurich.'],
        ['- Prefers short answers.', '- Wants tables when numbers are compared.'],
        ['- Preparing the Q4 impairment memo.'],
        ['- Works with IFRS 9 expected-credit-loss staging.'],
        ['- 2026-11-02 09:15 UTC: Asked for a two-sentence summary of IFRS 9 staging.'],
        ['- Send the Q4 impairment memo to Jonas on Friday.'],
      ]),
    },
  },
  {
    space: 'Research', time: '2026-11-05T08:30:00Z',
    user: 'Big news: I moved to Basel last week and joined Rhein Capital as head of model validation.',
    assistant: 'Congratulations on the new role at Rhein Capital!',
    recorded: {
      gate: 'UPDATE',
      consolidate: body([
        ['- Name: Mara.', '- Head of model validation at Rhein Capital, based in Basel (moved in early November 2026).'],
        ['- Prefers short answers.', '- Wants tables when numbers are compared.'],
        ['- Preparing the Q4 impairment memo.'],
        ['- Works with IFRS 9 expected-credit-loss staging.', '- Model validation.'],
        ['- 2026-11-02 09:15 UTC: Asked for a two-sentence summary of IFRS 9 staging.'],
        ['- Send the Q4 impairment memo to Jonas on Friday.'],
      ]),
    },
  },
  {
    space: 'Writing', time: '2026-11-05T10:00:00Z',
    user: 'What is the capital of Australia?',
    assistant: 'Canberra.',
    recorded: { gate: 'NOOP' },
  },
  {
    space: 'Writing', time: '2026-11-06T16:45:00Z',
    user: 'Actually, I prefer detailed answers with the reasoning spelled out — short ones leave out too much. The memo is sent, by the way.',
    assistant: "Noted: detailed answers with the reasoning. Good to hear the memo went out.",
    recorded: {
      gate: 'UPDATE',
      consolidate: body([
        ['- Name: Mara.', '- Head of model validation at Rhein Capital, based in Basel (moved in early November 2026).'],
        ['- Prefers detailed answers with the reasoning spelled out.', '- Wants tables when numbers are compared.'],
        [],
        ['- Works with IFRS 9 expected-credit-loss staging.', '- Model validation.'],
        ['- 2026-11-02 09:15 UTC: Asked for a two-sentence summary of IFRS 9 staging.', '- 2026-11-06 16:45 UTC: Sent the Q4 impairment memo.'],
        [],
      ]),
    },
  },
  {
    space: 'Research', time: '2026-11-07T11:10:00Z',
    user: 'Please forget where I work — I would rather not have my employer stored.',
    assistant: "Okay. I can't edit my memory directly, but your request will be respected going forward.",
    recorded: {
      gate: 'UPDATE',
      consolidate: body([
        ['- Name: Mara.', '- Head of model validation, based in Basel.'],
        ['- Prefers detailed answers with the reasoning spelled out.', '- Wants tables when numbers are compared.'],
        [],
        ['- Works with IFRS 9 expected-credit-loss staging.', '- Model validation.'],
        ['- 2026-11-02 09:15 UTC: Asked for a two-sentence summary of IFRS 9 staging.', '- 2026-11-06 16:45 UTC: Sent the Q4 impairment memo.'],
        [],
      ]),
    },
  },
  {
    space: 'Research', time: '2026-11-07T11:12:00Z',
    user: 'Which validation tests matter most for a PD model?',
    assistant: 'Discrimination (AUC/Gini), calibration (binomial and Hosmer-Lemeshow tests), stability (PSI) and back-testing against realised defaults.',
    recorded: {
      gate: 'UPDATE',
      consolidate: 'NOOP',
    },
  },
];

/**
 * A recorded model: replays the answers above for the current turn, by purpose. Clearly a
 * recording — it never looks at the prompt beyond the purpose.
 */
export function recordedModel(countTokens) {
  const model = {
    label: 'recorded model (replays answers recorded for this script; set MEMCORE_MODEL_BASE_URL for a real one)',
    turn: 0,
    calls: [],
    async complete(request) {
      const recorded = TURNS[model.turn]?.recorded ?? {};
      const text = request.purpose === 'gate' ? recorded.gate ?? 'NOOP' : recorded[request.purpose] ?? 'NOOP';
      model.calls.push({ turn: model.turn, purpose: request.purpose });
      // Usage as a real model would report it for this prompt and answer (exact o200k counts).
      const inputTokens = countTokens(request.system) + countTokens(request.user);
      return { text, usage: { inputTokens, outputTokens: countTokens(text) } };
    },
  };
  return model;
}

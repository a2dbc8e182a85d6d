// The turn pipeline: pure-logic time per turn (in-memory storage and an instant model, so what is
// measured is memcore's work), and the token cost of the prompt framing.
import { ContextMemory, countTokens, profileBody } from 'memcore';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import { compareAsync, fmtTime } from './harness.mjs';
import { profileOfSize } from './texts.mjs';

const PATH = 'user-memory/user_123/memory.md';

export async function turnRows() {
  let profile = profileOfSize(7000);
  for (let size = 7000; countTokens(profile) > 2000; size -= 100) profile = profileOfSize(size);
  const body = profileBody(profile);
  let flip = 0;
  const model = (gate) => ({
    complete: (r) => (r.purpose === 'gate' ? gate : body.replace('- Prefers concise answers', `- Prefers concise answers (${flip++})`)),
  });
  const make = (gate) => {
    const storage = new InMemoryProfileStorage({ files: { [PATH]: profile } });
    return new ContextMemory({ storage, model: model(gate), now: () => '2026-11-29T10:00:00Z' }, { maxTokens: 2000 });
  };
  const noop = make('NOOP');
  const update = make('UPDATE');
  const loader = make('NOOP');
  const turn = { userId: 'user_123', enabled: true, userMessage: 'Can you compare the two portfolios?', assistantMessage: 'Here is a table…' };
  const [tLoad, tNoop, tUpdate] = await compareAsync([
    { fn: () => loader.load({ userId: 'user_123', enabled: true }) },
    { fn: () => noop.afterTurn(turn) },
    { fn: () => update.afterTurn(turn) },
  ]);
  // Framing: the prompt tokens beyond the profile and the exchange.
  const seen = [];
  const probe = new ContextMemory(
    { storage: new InMemoryProfileStorage({ files: { [PATH]: profile } }), model: { complete: (r) => (seen.push(r), r.purpose === 'gate' ? 'UPDATE' : 'NOOP') } },
    { maxTokens: 2000 },
  );
  await probe.afterTurn({ userId: 'user_123', enabled: true, userMessage: 'u', assistantMessage: 'a' });
  const framing = (r) => countTokens(r.system) + countTokens(r.user) - countTokens(body) - 2;
  const [gate, consolidate] = seen;
  const tokens = countTokens(profile);
  return [
    [`load (read + fit + inject), ${tokens}-token profile (its count remembered after the first load)`, fmtTime(tLoad), "—"],
    ['afterTurn, gate NOOP (read, truncate, gate prompt, parse)', fmtTime(tNoop), '—'],
    ['afterTurn, rewrite (gate, consolidation prompt, parse, frontmatter, fit, write)', fmtTime(tUpdate), '—'],
    ['gate prompt framing (tokens, excluding profile and exchange)', String(framing(gate)), 'target ≤ 350'],
    ['consolidation prompt framing (tokens, excluding profile and exchange)', String(framing(consolidate)), 'target ≤ 900'],
  ];
}

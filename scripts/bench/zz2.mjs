import * as m from 'memcore';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import { readFileSync } from 'node:fs';
const within = readFileSync('/tmp/within.md', 'utf8');
const PATH = 'user-memory/user_123/memory.md';
const body = m.profileBody(within);
let flip = 0;
const model = { complete: (r) => (r.purpose === 'gate' ? 'UPDATE' : body.replace('- Prefers concise answers', `- Prefers concise answers (${flip++})`)) };
const turn = { userId: 'user_123', enabled: true, userMessage: 'Can you compare the two portfolios?', assistantMessage: 'Here is a table…' };
const memcore = new m.ContextMemory({ storage: new InMemoryProfileStorage({ files: { [PATH]: within } }), model, now: () => '2026-11-29T10:00:00Z' }, { maxTokens: 2000 });
const s = performance.now();
for (let i = 0; i < 3000; i++) { await memcore.load({ userId: 'user_123', enabled: true }); await memcore.afterTurn(turn); }
console.log(((performance.now() - s) / 3000).toFixed(3), 'ms per turn');

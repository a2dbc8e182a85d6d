// The demo (README's main command). It imports the installed package by name, as a user would,
// and walks through both memory models on embedded defaults (no network, no model).
import { readFileSync } from 'node:fs';
import {
  version, parseProfile, renderProfile, countTokens, memorySystemPromptSection, fitProfile,
  InMemoryEntryStore, createMemoryTools, resolveMemoryTools,
} from 'memcore';

const file = process.argv[2] ?? new URL('./demo/sample-memory.md', import.meta.url);
const text = readFileSync(file, 'utf8');
const rule = (title) => console.log(`\n── ${title} ${'─'.repeat(Math.max(0, 70 - title.length))}`);

console.log(`memcore ${version()} — demo on embedded defaults (in-memory stores, no model)`);

rule('1. Profile memory: parse memory.md');
const parsed = parseProfile(text);
const fm = parsed.frontmatter;
console.log(`frontmatter: user_id=${fm.userId} turn_count=${fm.turnCount} last_updated=${fm.lastUpdated}`);
for (const section of parsed.sections) {
  const lines = section.lines.filter((l) => l.trim() !== '');
  console.log(`## ${section.heading} (${lines.length} line${lines.length === 1 ? '' : 's'})`);
  for (const line of lines) console.log(`   ${line}`);
}
console.log(`diagnostics: ${parsed.diagnostics.length ? parsed.diagnostics.map((d) => `line ${d.line} ${d.code}`).join('; ') : 'none'}`);
const canonical = renderProfile(parsed);
console.log(`canonical rendering: ${canonical === text ? 'identical to the file' : 'differs from the file'}`);

rule('2. Exact token budget');
console.log(`o200k_base: ${countTokens(text)} tokens, cl100k_base: ${countTokens(text, { encoding: 'cl100k_base' })} tokens (budget 2000)`);

rule('3. What the assistant sees (system prompt section)');
console.log(memorySystemPromptSection(text));

rule('4. Fitting an oversized profile to a 500-token budget');
let big = text.replace('## Recent Topics\n', '## Recent Topics\n' + Array.from({ length: 120 }, (_, i) => `- 2026-05-${String(1 + (i % 28)).padStart(2, '0')} 09:${String(i % 60).padStart(2, '0')} UTC: Discussed portfolio ${i} stress results.\n`).join(''));
const report = await fitProfile(big, { maxTokens: 500 });
console.log(`before: ${report.tokensBefore} tokens → after: ${report.tokensAfter} tokens; condensed=${report.condensed} (dropped ${report.removedTopics} old topics), truncated=${report.truncated}`);

rule('5. Entry memory: an agent uses the four tools');
const agent = { enableMemoryTools: true, userMemoryConfig: { maxRecallEntries: 10 } };
const task = { enableBuiltInTools: true, builtInToolsWhitelist: ['usermemory'] };
console.log(`tools attached: ${resolveMemoryTools(agent, task).attached}`);
const store = new InMemoryEntryStore();
let tick = Date.UTC(2026, 5, 17, 12);
let id = 0;
const tools = createMemoryTools({
  store, config: agent.userMemoryConfig, userId: 'user-123', agentId: 'agent-456', conversationId: 'conv-789',
  now: () => new Date((tick += 1000)), newId: () => `id-${++id}`,
});
const calls = [
  ['rememberFact', { key: 'favorite_color', value: 'blue', category: 'preference' }],
  ['rememberFact', { key: 'favorite_color', value: 'blue', category: 'preference' }],
  ['rememberFact', { key: 'dog_name', value: 'Rex', category: 'fact', visibility: 'global' }],
  ['rememberFact', { key: 'language', value: 'English', category: 'preference', visibility: 'global' }],
  ['recallMemories', {}],
  ['searchMemory', { query: 'dog name' }],
  ['rememberFact', { key: '_gdpr_note', value: 'x', category: 'fact' }],
  ['forgetFact', { key: 'favorite_color' }],
  ['recallMemories', {}],
];
for (const [name, args] of calls) {
  console.log(`> ${name}(${JSON.stringify(args)})`);
  console.log((await tools.call(name, args)).replace(/^/gm, '  '));
}

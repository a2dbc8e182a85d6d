// The demo (README's main command): the full profile-memory lifecycle on embedded defaults —
// profiles and entries in one SQLite file, ./.memcore-demo/memcore.db (PostgreSQL when
// MEMCORE_DATABASE_URL=postgres://… is set), a recorded model (or a real OpenAI-compatible
// endpoint when MEMCORE_MODEL_BASE_URL is set) — then entry memory with the four LLM tools and a
// Dream pass. It imports the installed package by name, as a user would.
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  version, ContextMemory, countTokens, resolveEnablement, profileBody,
  memoryPath, createMemoryTools, resolveMemoryTools, dream, DreamMetrics, validateDreamSchedule,
} from 'memcore';
import { openSqlite } from 'memcore/adapters/sqlite';
import { openAIChatModel } from 'memcore/adapters/openai';
import { TURNS, USER, recordedModel } from './demo/turns.mjs';
import { lineDiff } from './demo/diff.mjs';
import { DREAM_CONFIG, DREAM_ENTRIES, DREAM_NOW, recordedDreamModel } from './demo/dream.mjs';

const MAX_TOKENS = 2000;
const baseDir = resolve(process.env.MEMCORE_DEMO_DIR ?? '.memcore-demo');
const rule = (title) => console.log(`\n── ${title} ${'─'.repeat(Math.max(0, 76 - title.length))}`);
const indent = (text, prefix = '   ') => text.replace(/^/gm, prefix);

// The model: a real endpoint when configured, otherwise the recording (clearly labelled).
let model;
let modelLabel;
if (process.env.MEMCORE_MODEL_BASE_URL) {
  model = openAIChatModel({
    baseURL: process.env.MEMCORE_MODEL_BASE_URL,
    apiKey: process.env.MEMCORE_MODEL_API_KEY,
    model: process.env.MEMCORE_MODEL ?? 'gpt-4o-mini',
    reasoningModel: process.env.MEMCORE_MODEL_REASONING === '1',
  });
  modelLabel = `OpenAI-compatible endpoint ${process.env.MEMCORE_MODEL_BASE_URL} (${process.env.MEMCORE_MODEL ?? 'gpt-4o-mini'})`;
} else {
  model = recordedModel(countTokens);
  modelLabel = model.label;
}

// One database for profiles and entries: the embedded SQLite file, or PostgreSQL when configured.
const databaseUrl = process.env.MEMCORE_DATABASE_URL;
let db;
let dbLabel;
if (databaseUrl) {
  const { openPostgres } = await import('memcore/adapters/postgres');
  db = await openPostgres(databaseUrl);
  dbLabel = `PostgreSQL ${databaseUrl.replace(/\/\/[^@/]*@/, '//***@')}`;
  // A fresh start for the demo user only: nobody else's rows are touched.
  for (const e of await db.list(USER)) await db.delete(e.id);
  await db.remove(memoryPath(USER));
} else {
  rmSync(baseDir, { recursive: true, force: true });
  mkdirSync(baseDir, { recursive: true });
  db = await openSqlite(join(baseDir, 'memcore.db'));
  dbLabel = `SQLite ${join(baseDir, 'memcore.db')}`;
}
const storage = db;
let clock = Date.parse(TURNS[0].time);
const notices = [];
const memory = new ContextMemory(
  { storage, model, now: () => new Date(clock), onNotice: (n) => notices.push(n) },
  { maxTokens: MAX_TOKENS },
);

console.log(`memcore ${version()} — demo`);
console.log(`storage:  ${dbLabel} (profiles and entries, schema v${db.schemaVersion})`);
console.log(`model:    ${modelLabel}`);

rule('Effective enablement of the two spaces');
const spaces = {
  Research: resolveEnablement({ companyId: 'acme', featureFlag: 'acme,globex', spaceSetting: null, webSearchEnabled: false }),
  Writing: resolveEnablement({ companyId: 'acme', featureFlag: 'acme,globex', spaceSetting: true, webSearchEnabled: true, allowWithWebSearch: { runtime: 'acme', admin: 'acme' } }),
};
for (const [name, e] of Object.entries(spaces)) console.log(`${name}: enabled=${e.enabled} (${e.reason})`);

let previous = '';
for (const [i, t] of TURNS.entries()) {
  clock = Date.parse(t.time);
  if (model.turn !== undefined) model.turn = i;
  rule(`Turn ${i + 1} — space "${t.space}", ${t.time.replace('T', ' ').replace(':00Z', ' UTC')}`);
  const enabled = spaces[t.space].enabled;
  const loaded = await memory.load({ userId: USER, enabled });
  console.log(`load: ${loaded.outcome}${loaded.profile ? `, ${countTokens(loaded.profile)} / ${MAX_TOKENS} tokens` : ''}`);
  console.log(loaded.systemPromptSection
    ? `injected into the system prompt (${countTokens(loaded.systemPromptSection)} tokens):\n${indent(loaded.systemPromptSection.trimEnd(), '   │ ')}`
    : 'injected into the system prompt: nothing (no profile yet)');
  console.log(`user:      ${t.user}`);
  console.log(`assistant: ${t.assistant}`);
  notices.length = 0;
  const report = await memory.afterTurn({ userId: USER, enabled, userMessage: t.user, assistantMessage: t.assistant });
  console.log(`gate: ${report.gate ? report.gate.toUpperCase() : '—'}${report.gateError ? ` (failed open: ${report.gateError})` : ''}`);
  console.log(`notice: ${notices.length ? notices.map((n) => (n.kind === 'show' ? `show "${n.text}"` : 'clear')).join(', then ') : 'none'}`);
  const usage = Object.entries(report.usage).filter(([, u]) => u).map(([k, u]) => `${k} ${u.inputTokens}→${u.outputTokens}`).join(', ');
  console.log(`outcome: ${report.outcome}${report.reason ? ` (${report.reason})` : ''}; model tokens: ${usage || 'none'}`);
  const stored = await storage.read(`user-memory/${USER}/memory.md`);
  const now = stored ? profileBody(stored.text) : '';
  if (now !== previous) {
    console.log(`profile diff (turn_count ${report.turnCount}, ${countTokens(stored.text)} / ${MAX_TOKENS} tokens):`);
    console.log(indent(lineDiff(previous, now).join('\n')));
    previous = now;
  } else {
    console.log('profile: unchanged, nothing written');
  }
}

rule('Settings → Context Memory (the user edits the body; frontmatter is kept)');
const view = await memory.getMyContextMemory(USER);
console.log(`exists=${view.exists}, turn_count=${view.turnCount}, last_updated=${view.lastUpdated}`);
const edited = view.body.replace('- Wants tables when numbers are compared.', '- Wants tables when numbers are compared.\n- Prefers British spelling.');
const saved = await memory.updateMyContextMemory(USER, edited);
console.log(`saved; diagnostics: ${saved.diagnostics.length ? saved.diagnostics.map((d) => d.code).join(', ') : 'none'}`);
console.log(`CLI: node_modules/.bin/memcore show --user ${USER} --db ${databaseUrl ? '$MEMCORE_DATABASE_URL' : join(baseDir, 'memcore.db')}`);

rule('Entry memory: an agent uses the four tools');
const agent = { enableMemoryTools: true, userMemoryConfig: { maxRecallEntries: 10 } };
console.log(`tools attached: ${resolveMemoryTools(agent, { enableBuiltInTools: true, builtInToolsWhitelist: ['usermemory'] }).attached}`);
let tick = Date.parse('2026-11-07T12:00:00Z');
let id = 0;
const entryStore = db;
const tools = createMemoryTools({
  store: entryStore, config: agent.userMemoryConfig, userId: USER, agentId: 'agent-456', conversationId: 'conv-789',
  now: () => new Date((tick += 1000)), newId: () => `id-${++id}`,
});
for (const [name, args] of [
  ['rememberFact', { key: 'favorite_color', value: 'blue', category: 'preference' }],
  ['rememberFact', { key: 'favorite_color', value: 'blue', category: 'preference' }],
  ['rememberFact', { key: 'dog_name', value: 'Rex', category: 'fact', visibility: 'global' }],
  ['recallMemories', {}],
  ['searchMemory', { query: 'dog name' }],
  ['rememberFact', { key: '_gdpr_note', value: 'x', category: 'fact' }],
  ['forgetFact', { key: 'favorite_color' }],
  ['recallMemories', {}],
]) {
  console.log(`> ${name}(${JSON.stringify(args)})`);
  console.log(indent(await tools.call(name, args), '  '));
}

rule('Dream: nightly maintenance of the same user\'s entries (recorded model answer)');
const schedule = { name: 'nightly-dream', triggerType: 'CRON', cronExpression: '0 3 * * *', agentId: 'agent-456', userId: USER, metadata: { dreamType: 'dream_consolidation' } };
console.log(`schedule ${JSON.stringify(schedule)}: ${validateDreamSchedule(schedule).length ? 'invalid' : 'valid'}`);
for (const e of DREAM_ENTRIES) await entryStore.upsert(e);
console.log(`before: ${(await entryStore.list(USER)).sort((a, b) => a.id.localeCompare(b.id)).map((e) => `${e.key} (${e.sourceAgentId}, ${e.updatedAt.slice(0, 10)})`).join(', ')}`);
const dreamModel = recordedDreamModel(countTokens);
const metrics = new DreamMetrics();
const dreamEvents = [];
const dreamReport = await dream({
  store: entryStore, model: dreamModel, userId: USER, agentId: 'agent-456', config: DREAM_CONFIG, now: DREAM_NOW,
  newId: () => `id-${++id}`, price: { inputPerMTok: 0.15, outputPerMTok: 0.6 }, metrics, log: (e) => dreamEvents.push(e),
});
console.log(`model: ${dreamModel.label}; config: ${JSON.stringify(DREAM_CONFIG.dream)}`);
console.log(`report: ${JSON.stringify(dreamReport)}`);
console.log(`dream: pruned ${dreamReport.pruned}, contradictions ${dreamReport.contradictions.map((c) => `${c.key} (${c.agents.join(' vs ')})`).join(', ') || 'none'}, summarized ${dreamReport.summarized}, calls ${dreamReport.calls}, cost $${dreamReport.estimatedCostUsd.toFixed(6)}`);
console.log(`log: ${dreamEvents.filter((e) => e.level !== 'debug').map((e) => `${e.level} ${e.event}`).join(', ')}`);
console.log('after:');
for (const e of (await entryStore.list(USER)).sort((a, b) => a.key.localeCompare(b.key) || a.id.localeCompare(b.id))) console.log(`   ${e.key} = ${typeof e.value === 'string' ? e.value : JSON.stringify(e.value)} [${e.category}, ${e.visibility}, ${e.sourceAgentId}${e.sourceConversationId === 'dream-consolidation' ? ', dream-consolidation' : ''}]`);
console.log('metrics (Prometheus text):');
console.log(indent(metrics.prometheus().trimEnd()));
await db.close();

// memcore/ai-sdk through the installed package and the Vercel AI SDK itself: `generateText` with
// the AI SDK's own mock language model (`MockLanguageModelV3` from `ai/test`) issuing tool calls
// over several steps. The byte-exact tool answers come back in the result's steps and are what
// the model receives in its next prompt.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateText, stepCountIs } from 'ai';
import * as aiTest from 'ai/test';
import { InMemoryEntryStore, MemcoreError, createMemoryTools } from 'memcore';
import { aiSdkMemoryTools } from 'memcore/ai-sdk';

// ai 6 and 7 speak the V3 model specification; ai 5 (run by tests/packaging/frameworks.test.mjs)
// speaks V2, whose finish reasons and usage are flat.
const V3 = 'MockLanguageModelV3' in aiTest;
const MockLanguageModel = V3 ? aiTest.MockLanguageModelV3 : aiTest.MockLanguageModelV2;
const usage = V3
  ? { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }
  : { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
const finish = (unified, raw) => (V3 ? { unified, raw } : unified);
const calls = (...list) => ({
  content: list.map(([toolName, args], i) => ({ type: 'tool-call', toolCallId: `${toolName}-${i}`, toolName, input: JSON.stringify(args) })),
  finishReason: finish('tool-calls', 'tool_calls'),
  usage,
  warnings: [],
});
const answer = (text) => ({ content: [{ type: 'text', text }], finishReason: finish('stop', 'stop'), usage, warnings: [] });

/** A scripted model: one response per step (a function: ai 5.0.0's mock read an array off by one). */
const scripted = (...steps) => {
  let step = 0;
  return new MockLanguageModel({ doGenerate: async () => steps[step++] });
};

let clock = 0;
const memoryFor = (store, config) =>
  createMemoryTools({ store, userId: 'u1', agentId: 'agent-a', config, now: () => new Date(Date.UTC(2026, 0, 1) + 1000 * clock++), newId: () => `id-${clock++}` });

test('a multi-step generateText: each step\'s tool calls get the exact answers, and the next prompt carries them', async () => {
  const store = new InMemoryEntryStore();
  const memory = memoryFor(store);
  const model = scripted(
    calls(['rememberFact', { key: 'favorite_color', value: 'blue', category: 'preference' }], ['rememberFact', { key: 'dog_name', value: 'Rex', category: 'fact', visibility: 'global' }]),
    calls(['searchMemory', { query: 'dog-name' }], ['recallMemories', {}]),
    calls(['forgetFact', { key: 'favorite_color' }], ['searchMemory', { query: 'color' }]),
    answer('Done.'),
  );
  const result = await generateText({ model, tools: aiSdkMemoryTools(memory), stopWhen: stepCountIs(10), prompt: 'Remember my things.' });

  const expected = [
    ['✅ Remembered: favorite_color = blue [preference, self]', '✅ Remembered: dog_name = Rex [fact, global]'],
    ['• dog_name = Rex [fact, global]', '• dog_name = Rex [fact, global]\n• favorite_color = blue [preference, self]'],
    ['✅ Forgotten: favorite_color', "No memories matching 'color' found."],
    [],
  ];
  assert.equal(result.text, 'Done.');
  assert.deepEqual(result.steps.map((s) => s.toolResults.map((r) => r.output)), expected);
  assert.equal(model.doGenerateCalls.length, 4);
  // What the model saw after each step: the tool messages with the same strings, as text outputs.
  for (let step = 1; step < 4; step++) {
    const prompt = model.doGenerateCalls[step].prompt;
    const last = prompt.filter((m) => m.role === 'tool').at(-1);
    assert.deepEqual(last.content.map((p) => p.output), expected[step - 1].map((value) => ({ type: 'text', value })));
  }
  assert.deepEqual(store.list('u1').map((e) => e.key), ['dog_name']);
});

test('the model is offered the core\'s own definitions (names, descriptions, JSON schemas)', async () => {
  const memory = memoryFor(new InMemoryEntryStore(), { guardrails: { allowedCategories: ['preference', 'travel'] } });
  const model = scripted(answer('hi'));
  await generateText({ model, tools: aiSdkMemoryTools(memory), prompt: 'hi' });
  const offered = model.doGenerateCalls[0].tools.map(({ type, name, description, inputSchema }) => ({ type, name, description, inputSchema }));
  assert.deepEqual(offered, memory.definitions.mcp.map(({ name, description, inputSchema }) => ({ type: 'function', name, description, inputSchema })));
  assert.deepEqual(offered[0].inputSchema.properties.category.enum, ['preference', 'travel']);
});

test('arguments the schema does not allow reach the core, which answers in the tool\'s words', async () => {
  const store = new InMemoryEntryStore();
  const model = scripted(
    calls(
      ['rememberFact', { key: 'k', value: 'v', category: 'secret' }],
      ['rememberFact', { key: '_gdpr_consent', value: true, category: 'fact' }],
      ['rememberFact', { key: 'k', value: 'v', category: 'fact', visibility: 'public' }],
      ['rememberFact', { key: 'x'.repeat(101), value: 'v', category: 'fact' }],
      ['searchMemory', { query: 42 }],
    ),
    answer('ok'),
  );
  const result = await generateText({ model, tools: aiSdkMemoryTools(memoryFor(store)), stopWhen: stepCountIs(3), prompt: 'p' });
  assert.deepEqual(result.steps[0].toolResults.map((r) => r.output), [
    "⚠️ Category 'secret' not allowed. Allowed: preference, fact, context",
    "⚠️ Keys starting with '_gdpr_' are reserved.",
    "⚠️ Visibility 'public' is not one of: self, group, global.",
    '⚠️ Key too long. Maximum 100 characters.',
    (await memoryFor(store).call('searchMemory', { query: 42 })),
  ]);
  assert.equal(result.steps[0].toolResults.length, 5);
  assert.equal(store.size, 0);
});

test('a turn is one MemoryTools: maxWritesPerTurn spans every step of a call; newTurn() starts the next', async () => {
  const store = new InMemoryEntryStore();
  const memory = memoryFor(store, { guardrails: { maxWritesPerTurn: 2 } });
  const tools = aiSdkMemoryTools(memory);
  const write = (key) => ['rememberFact', { key, value: key, category: 'fact' }];
  const first = await generateText({ model: scripted(calls(write('a')), calls(write('b'), write('c')), answer('x')), tools, stopWhen: stepCountIs(5), prompt: 'p' });
  assert.deepEqual(first.steps.flatMap((s) => s.toolResults.map((r) => r.output)), [
    '✅ Remembered: a = a [fact, self]',
    '✅ Remembered: b = b [fact, self]',
    '⚠️ Maximum writes per turn (2) reached. Try again in the next turn.',
  ]);
  assert.equal(memory.writesThisTurn, 2);

  memory.newTurn();
  const second = await generateText({ model: scripted(calls(write('c')), answer('x')), tools, stopWhen: stepCountIs(5), prompt: 'p' });
  assert.deepEqual(second.steps[0].toolResults.map((r) => r.output), ['✅ Remembered: c = c [fact, self]']);
  assert.deepEqual(store.list('u1').map((e) => e.key).sort(), ['a', 'b', 'c']);
});

test('a failing store is the core\'s ❌ answer, not a tool error', async () => {
  const failing = { list: () => { throw new Error('database unavailable'); }, get: () => null, upsert() {}, delete: () => false, incrementAccess() {} };
  const result = await generateText({ model: scripted(calls(['recallMemories', {}]), answer('x')), tools: aiSdkMemoryTools(memoryFor(failing)), stopWhen: stepCountIs(3), prompt: 'p' });
  const [output] = result.steps[0].toolResults.map((r) => r.output);
  assert.match(output, /^❌ Failed to recall memory: /);
  assert.equal(result.steps[0].content.filter((p) => p.type === 'tool-error').length, 0);
});

test('execute works outside generateText too, and anything but a MemoryTools is E_ARGUMENT', async () => {
  const tools = aiSdkMemoryTools(memoryFor(new InMemoryEntryStore()));
  assert.deepEqual(Object.keys(tools), ['rememberFact', 'recallMemories', 'searchMemory', 'forgetFact', 'memoryHistory']);
  assert.equal(await tools.recallMemories.execute({}, { toolCallId: 't', messages: [] }), 'No memories found for this user.');
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  const real = memoryFor(new InMemoryEntryStore());
  const like = (mcp) => ({ call: real.call, definitions: { mcp } });
  for (const bad of [
    undefined, null, {}, { call() {} }, createMemoryTools, revoked.proxy,
    { call() {}, get definitions() { throw new Error('getter'); } },
    like([{ name: 1, description: 'd', inputSchema: {} }]),
    like([{ name: 'n', description: 'd', inputSchema: null }]),
    like([{ name: 'n', description: 'd', inputSchema: { type: 'object', f() {} } }]),
  ]) {
    assert.throws(() => aiSdkMemoryTools(bad), (e) => e instanceof MemcoreError && e.code === 'E_ARGUMENT' && e.details.argument === 'memoryTools');
  }
});

test('each tool set gets its own copy of the schemas: a framework that rewrites one changes nothing else', () => {
  const memory = memoryFor(new InMemoryEntryStore());
  const before = structuredClone(memory.definitions);
  const tools = aiSdkMemoryTools(memory);
  tools.rememberFact.inputSchema.jsonSchema.properties.category.enum.push('anything');
  assert.deepEqual(memory.definitions, before);
  assert.deepEqual(aiSdkMemoryTools(memory).rememberFact.inputSchema.jsonSchema, before.mcp[0].inputSchema);
});

test('arguments that are not JSON are refused by the SDK before the core (a tool-error; nothing written; the loop goes on)', async () => {
  const store = new InMemoryEntryStore();
  const broken = { ...calls(), content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'rememberFact', input: '{"key": ' }] };
  const model = scripted(broken, answer('ok'));
  const result = await generateText({ model, tools: aiSdkMemoryTools(memoryFor(store)), stopWhen: stepCountIs(3), prompt: 'p' }).catch((error) => error);
  assert.equal(store.size, 0);
  // Early ai 5 releases (5.0.0, run by tests/packaging/frameworks.test.mjs) threw instead.
  if (!V3 && result?.name === 'AI_InvalidToolInputError') return;
  assert.equal(result.text, 'ok');
  assert.deepEqual(result.steps[0].toolResults, []);
  assert.equal(result.steps[0].content.filter((p) => p.type === 'tool-error').length, 1);
  assert.equal(model.doGenerateCalls[1].prompt.at(-1).content[0].output.type, 'error-text');
  assert.equal(store.size, 0);
});

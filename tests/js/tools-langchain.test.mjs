// memcore/langchain through the installed package and LangChain.js itself: a fake chat model from
// `@langchain/core/utils/testing` bound to the memory tools answers with tool calls, each call is
// run by `tool.invoke(toolCall)` (as LangChain's ToolNode does), and the `ToolMessage`s go back
// into a model call. The byte-exact answers are the ToolMessages' content.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AIMessageChunk, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { ToolInputParsingException } from '@langchain/core/tools';
import { FakeChatModel, FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { InMemoryEntryStore, MemcoreError, createMemoryTools } from 'memcore';
import { langChainMemoryTools } from 'memcore/langchain';

let clock = 0;
const memoryFor = (store, config) =>
  createMemoryTools({ store, userId: 'u1', agentId: 'agent-a', config, now: () => new Date(Date.UTC(2026, 0, 1) + 1000 * clock++), newId: () => `id-${clock++}` });

let ids = 0;
const toolCalls = (...list) => list.map(([name, args]) => ({ name, args, id: `call-${ids++}`, type: 'tool_call' }));
/** A fake chat model whose every answer is an AI message with these tool calls. */
const callingModel = (calls) => new FakeStreamingChatModel({ sleep: 0, chunks: [new AIMessageChunk({ content: '', tool_calls: calls })] });

/** One model step the way an agent loop does it: bind, invoke, run each tool call. */
async function step(tools, calls, messages) {
  const ai = await callingModel(calls).bindTools(tools).invoke(messages);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const results = [];
  for (const call of ai.tool_calls) results.push(await byName.get(call.name).invoke(call));
  return { ai, results };
}

test('tool calls from a fake chat model: ToolMessages with the exact answers, and a model call that receives them', async () => {
  const store = new InMemoryEntryStore();
  const tools = langChainMemoryTools(memoryFor(store));
  const messages = [new HumanMessage('Remember my things.')];
  const first = await step(tools, toolCalls(
    ['rememberFact', { key: 'favorite_color', value: 'blue', category: 'preference' }],
    ['rememberFact', { key: 'city', value: { name: 'Lisbon' }, category: 'fact', visibility: 'global' }],
  ), messages);
  const second = await step(tools, toolCalls(['searchMemory', { query: 'lisbon' }], ['forgetFact', { key: 'favorite_color' }], ['recallMemories', {}], ['forgetFact', { key: 'nope' }]), messages);

  const results = [...first.results, ...second.results];
  assert.ok(results.every((r) => r instanceof ToolMessage));
  assert.deepEqual(results.map((r) => r.content), [
    '✅ Remembered: favorite_color = blue [preference, self]',
    '✅ Remembered: city = {"name":"Lisbon"} [fact, global]',
    '• city = {"name":"Lisbon"} [fact, global]',
    '✅ Forgotten: favorite_color',
    '• city = {"name":"Lisbon"} [fact, global]',
    "No memory with key 'nope' found.",
  ]);
  assert.deepEqual(results.map((r) => r.tool_call_id), [...first.ai.tool_calls, ...second.ai.tool_calls].map((c) => c.id));
  assert.deepEqual(results.map((r) => r.name), ['rememberFact', 'rememberFact', 'searchMemory', 'forgetFact', 'recallMemories', 'forgetFact']);

  // The ToolMessages as the next model input: FakeChatModel answers with the contents it was sent.
  const echoed = await new FakeChatModel({}).invoke([...messages, first.ai, ...first.results]);
  assert.deepEqual(echoed.content.split('\n').slice(-2), first.results.map((r) => r.content));
  assert.deepEqual(store.list('u1').map((e) => e.key), ['city']);
});

test('bindTools hands the model the core\'s own definitions', async () => {
  const memory = memoryFor(new InMemoryEntryStore(), { guardrails: { allowedCategories: ['fact', 'travel'] } });
  const bound = callingModel([]).bindTools(langChainMemoryTools(memory));
  assert.deepEqual(bound.config.tools, memory.definitions.openai.map((d) => ({ type: 'function', function: d.function })));
  assert.deepEqual(bound.config.tools[0].function.parameters.properties.category.enum, ['fact', 'travel']);
});

test('LangChain checks the schema first: a call it refuses rejects with ToolInputParsingException and reaches neither the core nor the store', async () => {
  const store = new InMemoryEntryStore();
  const memory = memoryFor(store);
  const [remember, , search] = langChainMemoryTools(memory);
  for (const [t, args] of [[remember, { key: 'k', value: 'v', category: 'secret' }], [remember, { key: 'k', category: 'fact' }], [search, { query: 42 }]]) {
    await assert.rejects(t.invoke(toolCalls([t.name, args])[0]), ToolInputParsingException);
  }
  assert.equal(store.size, 0);
  assert.equal(memory.writesThisTurn, 0);
});

test('what the schema accepts gets the core\'s guardrail answers; a turn is one MemoryTools, newTurn() starts the next', async () => {
  const store = new InMemoryEntryStore();
  const memory = memoryFor(store, { guardrails: { maxWritesPerTurn: 2, maxKeyLength: 10 } });
  const tools = langChainMemoryTools(memory);
  const write = (key) => ['rememberFact', { key, value: key, category: 'fact' }];
  const { results } = await step(tools, toolCalls(write('a'), write('_gdpr_x'), write('k'.repeat(11)), write('b'), write('c')), [new HumanMessage('hi')]);
  assert.deepEqual(results.map((r) => r.content), [
    '✅ Remembered: a = a [fact, self]',
    "⚠️ Keys starting with '_gdpr_' are reserved.",
    '⚠️ Key too long. Maximum 10 characters.',
    '✅ Remembered: b = b [fact, self]',
    '⚠️ Maximum writes per turn (2) reached. Try again in the next turn.',
  ]);
  memory.newTurn();
  const next = await step(tools, toolCalls(write('c')), [new HumanMessage('hi')]);
  assert.deepEqual(next.results.map((r) => r.content), ['✅ Remembered: c = c [fact, self]']);
  assert.deepEqual(store.list('u1').map((e) => e.key).sort(), ['a', 'b', 'c']);
});

test('invoked with plain arguments a tool resolves to the answer string; a failing store is the ❌ answer; bad input is E_ARGUMENT', async () => {
  const [, recall] = langChainMemoryTools(memoryFor(new InMemoryEntryStore()));
  assert.equal(await recall.invoke({}), 'No memories found for this user.');
  const failing = { list: () => { throw new Error('database unavailable'); }, get: () => null, upsert() {}, delete: () => false, incrementAccess() {} };
  const [, recallFailing] = langChainMemoryTools(memoryFor(failing));
  assert.match(await recallFailing.invoke({}), /^❌ Failed to recall memory: /);
  for (const bad of [undefined, 'tools', { call: 'x', definitions: { mcp: [] } }]) {
    assert.throws(() => langChainMemoryTools(bad), (e) => e instanceof MemcoreError && e.code === 'E_ARGUMENT' && e.details.argument === 'memoryTools');
  }
});

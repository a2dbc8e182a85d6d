// memcore/openai-agents through the installed package and the OpenAI Agents SDK itself: an
// `Agent` with the memory tools, run by the SDK's `Runner` against a fake model (a `Model`
// implementation that answers scripted responses: function calls, then a message). The byte-exact
// tool answers come back as the run's tool outputs and are what the model receives next.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Agent, Runner, Usage } from '@openai/agents';
import { InMemoryEntryStore, MemcoreError, createMemoryTools } from 'memcore';
import { openAIAgentsMemoryTools } from 'memcore/openai-agents';

// The SDK's version (its exports map hides package.json): from the directory of its entry up.
const agentsVersion = (() => {
  for (let dir = dirname(createRequire(import.meta.url).resolve('@openai/agents')); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file) && JSON.parse(readFileSync(file, 'utf8')).name === '@openai/agents') return JSON.parse(readFileSync(file, 'utf8')).version;
  }
  throw new Error('@openai/agents: package.json not found');
})();

/** A `Model` (the SDK's provider interface) that answers one scripted output per request. */
class ScriptedModel {
  constructor(...responses) {
    this.responses = responses;
    this.requests = [];
  }
  async getResponse(request) {
    this.requests.push(request);
    const output = this.responses[this.requests.length - 1];
    if (!output) throw new Error(`ScriptedModel: no response ${this.requests.length}`);
    return { usage: new Usage(), output, responseId: `resp-${this.requests.length}` };
  }
  async *getStreamedResponse() {
    throw new Error('ScriptedModel: not streamed');
  }
}

let ids = 0;
const calls = (...list) =>
  list.map(([name, args]) => ({ type: 'function_call', callId: `call-${ids++}`, name, arguments: typeof args === 'string' ? args : JSON.stringify(args), status: 'completed' }));
const message = (text) => [{ type: 'message', id: `msg-${ids++}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] }];

let clock = 0;
const memoryFor = (store, config) =>
  createMemoryTools({ store, userId: 'u1', agentId: 'agent-a', config, now: () => new Date(Date.UTC(2026, 0, 1) + 1000 * clock++), newId: () => `id-${clock++}` });

const runner = new Runner({ tracingDisabled: true });
const runWith = (memory, model, input = 'hello') =>
  runner.run(new Agent({ name: 'Assistant', instructions: 'Use memory.', model, tools: openAIAgentsMemoryTools(memory) }), input);
const outputs = (result) => result.newItems.filter((i) => i.type === 'tool_call_output_item').map((i) => i.output);
/** The function results the model was sent in its `n`-th request. */
const sentBack = (model, n) => model.requests[n].input.filter((i) => i.type === 'function_call_result').map((i) => [i.name, i.output]);

test('a run with function calls over two turns of the model: the exact answers in the run and in the next request', async () => {
  const store = new InMemoryEntryStore();
  const model = new ScriptedModel(
    calls(['rememberFact', { key: 'favorite_color', value: 'blue', category: 'preference' }], ['rememberFact', { key: 'langs', value: ['rust', 'ts'], category: 'fact', visibility: 'global' }]),
    calls(['searchMemory', { query: 'rust' }], ['forgetFact', { key: 'favorite_color' }], ['recallMemories', {}]),
    message('Done.'),
  );
  const result = await runWith(memoryFor(store), model);
  assert.equal(result.finalOutput, 'Done.');
  assert.deepEqual(outputs(result), [
    '✅ Remembered: favorite_color = blue [preference, self]',
    '✅ Remembered: langs = ["rust","ts"] [fact, global]',
    '• langs = ["rust","ts"] [fact, global]',
    '✅ Forgotten: favorite_color',
    '• langs = ["rust","ts"] [fact, global]',
  ]);
  assert.deepEqual(sentBack(model, 1).map(([, o]) => o), [
    { type: 'text', text: '✅ Remembered: favorite_color = blue [preference, self]' },
    { type: 'text', text: '✅ Remembered: langs = ["rust","ts"] [fact, global]' },
  ]);
  assert.deepEqual(sentBack(model, 2).slice(2).map(([name, o]) => [name, o.text]), [
    ['searchMemory', '• langs = ["rust","ts"] [fact, global]'],
    ['forgetFact', '✅ Forgotten: favorite_color'],
    ['recallMemories', '• langs = ["rust","ts"] [fact, global]'],
  ]);
  assert.deepEqual(store.list('u1').map((e) => [e.key, e.value]), [['langs', ['rust', 'ts']]]);
});

test('the model is offered the core\'s definitions as non-strict function tools', async () => {
  const memory = memoryFor(new InMemoryEntryStore());
  const model = new ScriptedModel(message('hi'));
  await runWith(memory, model);
  assert.deepEqual(
    model.requests[0].tools.map(({ type, name, description, parameters, strict }) => ({ type, name, description, parameters, strict })),
    memory.definitions.mcp.map(({ name, description, inputSchema }) => ({ type: 'function', name, description, parameters: inputSchema, strict: false })),
  );
});

test('arguments outside the schema reach the core, which answers in the tool\'s words', async () => {
  const store = new InMemoryEntryStore();
  const model = new ScriptedModel(
    calls(
      ['rememberFact', { key: 'k', value: 'v', category: 'secret' }],
      ['rememberFact', { key: '  ', value: 'v', category: 'fact' }],
      ['rememberFact', { key: '_gdpr_x', value: 'v', category: 'fact' }],
      ['rememberFact', { key: 'k', value: 'v'.repeat(1001), category: 'fact' }],
    ),
    message('ok'),
  );
  assert.deepEqual(outputs(await runWith(memoryFor(store), model)), [
    "⚠️ Category 'secret' not allowed. Allowed: preference, fact, context",
    '⚠️ Key must not be empty.',
    "⚠️ Keys starting with '_gdpr_' are reserved.",
    '⚠️ Value too long. Maximum 1000 characters.',
  ]);
  assert.equal(store.size, 0);
});

test('a turn is one MemoryTools: maxWritesPerTurn spans the whole run (parallel calls in call order); newTurn() starts the next', async () => {
  const store = new InMemoryEntryStore();
  const memory = memoryFor(store, { guardrails: { maxWritesPerTurn: 2 } });
  const write = (key) => ['rememberFact', { key, value: key, category: 'fact' }];
  const first = await runWith(memory, new ScriptedModel(calls(write('a')), calls(write('b'), write('c'), write('d')), message('x')));
  assert.deepEqual(outputs(first), [
    '✅ Remembered: a = a [fact, self]',
    '✅ Remembered: b = b [fact, self]',
    '⚠️ Maximum writes per turn (2) reached. Try again in the next turn.',
    '⚠️ Maximum writes per turn (2) reached. Try again in the next turn.',
  ]);
  memory.newTurn();
  const second = await runWith(memory, new ScriptedModel(calls(write('c')), message('x')));
  assert.deepEqual(outputs(second), ['✅ Remembered: c = c [fact, self]']);
  assert.deepEqual(store.list('u1').map((e) => e.key).sort(), ['a', 'b', 'c']);
});

test('arguments that are not JSON are refused by the SDK before the core (nothing written; the run goes on)', async () => {
  const store = new InMemoryEntryStore();
  const model = new ScriptedModel(calls(['rememberFact', '{"key": "k", "value": ']), message('ok'));
  const result = await runWith(memoryFor(store), model).catch((error) => error);
  assert.equal(store.size, 0);
  // Before 0.8 the SDK failed the whole run instead (tests/packaging/frameworks.test.mjs runs 0.1).
  if (result instanceof Error && /^0\.[0-7]\./.test(agentsVersion)) return;
  assert.equal(result.finalOutput, 'ok');
  const [output] = outputs(result);
  // The SDK's own text (0.20: 'An error occurred while parsing tool arguments. …'), not the core's.
  assert.ok(!/^(✅|⚠️|❌)/u.test(output), output);
  assert.equal(store.size, 0);
});

test('a failing store is the core\'s ❌ answer, and anything but a MemoryTools is E_ARGUMENT', async () => {
  const failing = { list: () => { throw new Error('database unavailable'); }, get: () => null, upsert() {}, delete: () => false, incrementAccess() {} };
  const [output] = outputs(await runWith(memoryFor(failing), new ScriptedModel(calls(['searchMemory', { query: 'x' }]), message('x'))));
  assert.match(output, /^❌ Failed to search memory: /);
  for (const bad of [undefined, null, {}, { definitions: { mcp: [] } }]) {
    assert.throws(() => openAIAgentsMemoryTools(bad), (e) => e instanceof MemcoreError && e.code === 'E_ARGUMENT' && e.details.argument === 'memoryTools');
  }
});

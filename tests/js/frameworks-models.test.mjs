// The host's own model and embedder from the Vercel AI SDK (issue 23, part 3): `aiSdkModel` and
// `aiSdkEmbedder` from the installed `memcore/ai-sdk`, driven by the AI SDK's own mocks
// (`MockLanguageModelV3`/`V2`, `MockEmbeddingModelV3`/`V2` from `ai/test`) through a full ContextMemory turn,
// a Dream run and a hybrid search; purpose, output budget, usage, aborts and errors mapped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { APICallError } from 'ai';
import * as aiTest from 'ai/test';
import { ContextMemory, InMemoryEntryStore, createMemoryTools, dream, searchUserMemories } from 'memcore';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import { aiSdkEmbedder, aiSdkModel } from 'memcore/ai-sdk';

const H = ['Identity', 'Communication Preferences', 'Work Context', 'Skills & Expertise', 'Recent Topics', 'Follow-ups'];
const body = (identity) => '# User Memory\n\n' + H.map((h, i) => `## ${h}\n${i === 0 ? identity : '_(empty)_'}`).join('\n\n') + '\n';
// ai 6–7 ship the V3 mocks, ai 5 the V2 ones (the packaging matrix runs this file against both ends).
const V3 = 'MockLanguageModelV3' in aiTest;
const MockLanguageModel = V3 ? aiTest.MockLanguageModelV3 : aiTest.MockLanguageModelV2;
const MockEmbeddingModel = V3 ? aiTest.MockEmbeddingModelV3 : aiTest.MockEmbeddingModelV2;
const usage = (input, output) =>
  V3 ? { inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: output, text: output, reasoning: 0 } } : { inputTokens: input, outputTokens: output, totalTokens: input + output };
const text = (t, input = 10, output = 3) => ({ content: [{ type: 'text', text: t }], finishReason: V3 ? { unified: 'stop', raw: 'stop' } : 'stop', usage: usage(input, output), warnings: [] });

test('aiSdkModel drives a ContextMemory turn: the gate and the consolidation go through generateText with memcore\'s system, prompt and budget', async () => {
  const model = new MockLanguageModel({
    doGenerate: async (options) => {
      const system = options.prompt.find((m) => m.role === 'system')?.content ?? '';
      return /UPDATE or NOOP|UPDATE/.test(system) && options.maxOutputTokens <= 64 ? text('UPDATE', 50, 1) : text(body('- Name: Ana'), 200, 40);
    },
  });
  const storage = new InMemoryProfileStorage();
  const memory = new ContextMemory({ storage, model: aiSdkModel(model), now: () => '2026-12-01T10:00:00Z' });
  const report = await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'I am Ana', assistantMessage: 'Hi Ana' });
  assert.equal(report.outcome, 'updated');
  assert.match(storage.snapshot()['user-memory/u1/memory.md'], /- Name: Ana/);
  assert.equal(model.doGenerateCalls.length, 2);
  const [gate, consolidation] = model.doGenerateCalls;
  assert.equal(gate.maxOutputTokens, 4, 'the gate budget reaches the provider');
  assert.ok(consolidation.maxOutputTokens > 100);
  assert.equal(gate.prompt[0].role, 'system');
  assert.equal(gate.prompt[1].role, 'user');
  assert.deepEqual([report.usage.gate, report.usage.consolidate], [{ inputTokens: 50, outputTokens: 1 }, { inputTokens: 200, outputTokens: 40 }], 'usage is mapped');
});

test('aiSdkModel: usage mapped, the purpose names the telemetry span, settings pass through, memcore\'s own settings cannot be overridden', async () => {
  const model = new MockLanguageModel({ doGenerate: async () => text('NOOP', 123, 1) });
  const wrapped = aiSdkModel(model, { settings: { temperature: 0, experimental_telemetry: { isEnabled: false, metadata: { app: 'x' } } }, maxRetries: 0 });
  const answer = await wrapped.complete({ purpose: 'gate', system: 'S', user: 'U', maxOutputTokens: 4 });
  assert.deepEqual(answer, { text: 'NOOP', usage: { inputTokens: 123, outputTokens: 1 } });
  assert.equal(model.doGenerateCalls[0].temperature, 0);
  assert.throws(() => aiSdkModel(model, { settings: { maxOutputTokens: 9 } }), (e) => e.code === 'E_CONFIG' && e.details.path === 'settings.maxOutputTokens');
  assert.throws(() => aiSdkModel(model, { retries: 1 }), (e) => e.code === 'E_CONFIG' && e.details.path === 'retries');
  assert.throws(() => aiSdkModel(model, { maxRetries: -1 }), (e) => e.code === 'E_CONFIG');
  assert.throws(() => aiSdkModel(undefined), (e) => e.code === 'E_CONFIG');
});

test('aiSdkModel maps errors: 503 and 429 transient, 400 not, an abort cancelled and transient', async () => {
  const failing = (status) => new MockLanguageModel({
    doGenerate: async () => {
      throw new APICallError({ message: `HTTP ${status}`, url: 'https://provider.test/v1', requestBodyValues: {}, statusCode: status, isRetryable: status === 429 || status >= 500 });
    },
  });
  for (const [status, transient] of [[503, true], [429, true], [400, false]]) {
    await assert.rejects(aiSdkModel(failing(status), { maxRetries: 0 }).complete({ purpose: 'gate', system: 's', user: 'u', maxOutputTokens: 4 }), (e) => {
      assert.equal(e.code, 'E_HOST');
      assert.equal(e.details.status, status);
      assert.equal(e.details.transient, transient, `status ${status}`);
      return true;
    });
  }
  const controller = new AbortController();
  const hanging = new MockLanguageModel({
    doGenerate: (options) =>
      new Promise((_, reject) => {
        const signal = options.abortSignal;
        if (signal.aborted) reject(signal.reason);
        else signal.addEventListener('abort', () => reject(signal.reason));
      }),
  });
  const pending = aiSdkModel(hanging, { maxRetries: 0 }).complete({ purpose: 'consolidate', system: 's', user: 'u', maxOutputTokens: 100, signal: controller.signal });
  controller.abort();
  await assert.rejects(pending, (e) => e.code === 'E_HOST' && e.details.cancelled === true && e.details.transient === true);
  // A turn whose model fails keeps the profile and reports it.
  const storage = new InMemoryProfileStorage({ files: { 'user-memory/u1/memory.md': body('- Name: Ana') } });
  const memory = new ContextMemory({ storage, model: aiSdkModel(failing(503), { maxRetries: 0 }), now: () => '2026-12-01T10:00:00Z' });
  const report = await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'hi', assistantMessage: 'hello' });
  assert.notEqual(report.outcome, 'updated');
  assert.match(storage.snapshot()['user-memory/u1/memory.md'], /- Name: Ana/);
});

test('aiSdkModel drives a Dream run (summarisation)', async () => {
  const store = new InMemoryEntryStore();
  const at = '2026-05-01T00:00:00.000Z';
  for (const [i, key] of ['likes_tea', 'likes_coffee', 'likes_juice'].entries()) {
    store.upsert({ id: `d${i}`, userId: 'u1', key, value: key.replace('likes_', ''), category: 'preference', visibility: 'self', sourceAgentId: 'agent-1', groupIds: [], sourceConversationId: null, conflicted: false, accessCount: 0, createdAt: at, updatedAt: at });
  }
  const model = new MockLanguageModel({ doGenerate: async () => text(JSON.stringify([{ key: 'drinks', value: 'tea, coffee, juice' }]), 300, 20) });
  const report = await dream({
    store, model: aiSdkModel(model), userId: 'u1', agentId: 'agent-1', now: '2026-05-10T00:00:00.000Z', newId: () => 'summary',
    config: { dream: { enabled: true, summarizeInteractions: true, summarizeMinEntries: 3, summarizeTargetEntries: 1 } },
  });
  assert.equal(report.summarized, 2);
  assert.deepEqual(store.list('u1').map((e) => [e.key, e.value]), [['drinks', 'tea, coffee, juice']]);
  assert.equal(model.doGenerateCalls.length, 1);
});

test('aiSdkEmbedder: the Embedder contract over embedMany, driving a hybrid search; its id, dimensions and failures', async () => {
  // A tiny deterministic embedding: one axis per topic word.
  const topics = ['dog', 'city', 'food'];
  const vector = (t) => topics.map((w) => (t.toLowerCase().includes(w) || (w === 'dog' && /rex|pet/i.test(t)) ? 1 : 0.01));
  const model = new MockEmbeddingModel({ provider: 'mock', modelId: 'topics-3', maxEmbeddingsPerCall: 8, doEmbed: async ({ values }) => ({ embeddings: values.map(vector), warnings: [] }) });
  const embedder = aiSdkEmbedder(model, { dimensions: 3 });
  assert.deepEqual([embedder.model, embedder.dimensions, embedder.maxBatch], ['mock:topics-3', 3, 8]);
  const answer = await embedder.embed({ texts: ['my dog', 'a city'], purpose: 'document' });
  assert.deepEqual(answer.vectors.map((v) => [...v].map((x) => Math.round(x * 100) / 100)), [[1, 0.01, 0.01], [0.01, 1, 0.01]]);

  const store = new InMemoryEntryStore();
  const tools = createMemoryTools({ store, userId: 'u1', agentId: 'a', embedder, config: { search: { mode: 'hybrid' } }, now: () => '2026-05-01T00:00:00Z', newId: (() => { let n = 0; return () => `h${n++}`; })() });
  await tools.call('rememberFact', { key: 'pet_name', value: 'Rex the dog', visibility: 'global' });
  await tools.call('rememberFact', { key: 'home', value: 'Lisbon city', visibility: 'global' });
  const found = await searchUserMemories(store, 'u1', 'what is my pet called', { mode: 'hybrid', embedder });
  assert.equal(found[0]?.key, 'pet_name');

  const wrongSize = aiSdkEmbedder(model, { dimensions: 4, maxRetries: 0 });
  await assert.rejects(wrongSize.embed({ texts: ['x'], purpose: 'query' }), (e) => e.code === 'E_HOST' && /dimensions/.test(e.message));
  const failing = new MockEmbeddingModel({
    doEmbed: async () => {
      throw new APICallError({ message: 'overloaded', url: 'https://provider.test', requestBodyValues: {}, statusCode: 503, isRetryable: true });
    },
  });
  await assert.rejects(aiSdkEmbedder(failing, { model: 'x', maxRetries: 0 }).embed({ texts: ['x'], purpose: 'query' }), (e) => e.code === 'E_HOST' && e.details.transient === true && e.details.status === 503);
  assert.throws(() => aiSdkEmbedder(model, { dimensions: 0 }), (e) => e.code === 'E_CONFIG' && e.details.path === 'dimensions');
  assert.throws(() => aiSdkEmbedder(model, { unknown: 1 }), (e) => e.code === 'E_CONFIG');
});

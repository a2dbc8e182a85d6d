// The host's own model and embedder from LangChain.js (issue 23, part 3): `langChainModel` and
// `langChainEmbedder` from the installed `memcore/langchain`, driven by LangChain's own fake chat
// model (`FakeListChatModel`) and `Embeddings` base class through a full ContextMemory turn, a
// Dream run and a hybrid search; run names, usage, aborts and errors mapped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Embeddings } from '@langchain/core/embeddings';
import { AIMessage } from '@langchain/core/messages';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { ContextMemory, InMemoryEntryStore, createMemoryTools, dream, searchUserMemories } from 'memcore';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import { langChainEmbedder, langChainModel } from 'memcore/langchain';

const H = ['Identity', 'Communication Preferences', 'Work Context', 'Skills & Expertise', 'Recent Topics', 'Follow-ups'];
const body = (identity) => '# User Memory\n\n' + H.map((h, i) => `## ${h}\n${i === 0 ? identity : '_(empty)_'}`).join('\n\n') + '\n';

test('langChainModel drives a ContextMemory turn with LangChain\'s fake chat model; run names and tags name the purpose', async () => {
  const chat = new FakeListChatModel({ responses: ['UPDATE', body('- Name: Ana')] });
  const runs = [];
  const storage = new InMemoryProfileStorage();
  const callbacks = [{ handleChatModelStart: (_llm, _messages, _runId, _parent, _extra, tags, _metadata, runName) => runs.push([runName, tags]) }];
  const memory = new ContextMemory({ storage, model: langChainModel(chat, { callOptions: { callbacks } }), now: () => '2026-12-01T10:00:00Z' });
  const report = await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: 'I am Ana', assistantMessage: 'Hi Ana' });
  assert.equal(report.outcome, 'updated');
  assert.match(storage.snapshot()['user-memory/u1/memory.md'], /- Name: Ana/);
  assert.deepEqual(runs.map(([name]) => name), ['memcore.gate', 'memcore.consolidate']);
  assert.ok(runs.every(([, tags]) => tags.includes('memcore')));
});

test('langChainModel: usage_metadata mapped, the budget option, the text of content blocks, bad options refused', async () => {
  const seen = [];
  const runnable = {
    invoke: async (messages, options) => {
      seen.push({ roles: messages.map((m) => m.getType()), maxTokens: options.maxTokens, runName: options.runName });
      return new AIMessage({ content: [{ type: 'text', text: 'NO' }, { type: 'text', text: 'OP' }], usage_metadata: { input_tokens: 42, output_tokens: 2, total_tokens: 44 } });
    },
  };
  const model = langChainModel(runnable, { budget: (n) => ({ maxTokens: n }) });
  assert.deepEqual(await model.complete({ purpose: 'gate', system: 's', user: 'u', maxOutputTokens: 4 }), { text: 'NOOP', usage: { inputTokens: 42, outputTokens: 2 } });
  assert.deepEqual(seen, [{ roles: ['system', 'human'], maxTokens: 4, runName: 'memcore.gate' }]);
  assert.throws(() => langChainModel({}), (e) => e.code === 'E_CONFIG');
  assert.throws(() => langChainModel(runnable, { budget: 4 }), (e) => e.code === 'E_CONFIG' && e.details.path === 'budget');
  assert.throws(() => langChainModel(runnable, { temperature: 0 }), (e) => e.code === 'E_CONFIG' && e.details.path === 'temperature');
});

test('langChainModel maps errors: 503 and 429 transient, 400 not, an abort cancelled', async () => {
  const failing = (status) => ({ invoke: async () => { throw Object.assign(new Error(`HTTP ${status}`), { status }); } });
  for (const [status, transient] of [[503, true], [429, true], [400, false]]) {
    await assert.rejects(langChainModel(failing(status)).complete({ purpose: 'gate', system: 's', user: 'u', maxOutputTokens: 4 }), (e) => {
      assert.deepEqual([e.code, e.details.status, e.details.transient], ['E_HOST', status, transient]);
      return true;
    });
  }
  // The signal reaches the model's call options; a model that honours it rejects with AbortError.
  const controller = new AbortController();
  const waiting = {
    invoke: (_messages, { signal }) =>
      new Promise((_, reject) => {
        const abort = () => reject(Object.assign(new Error('Aborted'), { name: 'AbortError' }));
        if (signal.aborted) abort();
        else signal.addEventListener('abort', abort);
      }),
  };
  const pending = langChainModel(waiting).complete({ purpose: 'consolidate', system: 's', user: 'u', maxOutputTokens: 10, signal: controller.signal });
  controller.abort();
  await assert.rejects(pending, (e) => e.code === 'E_HOST' && e.details.cancelled === true && e.details.transient === true);
});

test('langChainModel drives a Dream run (summarisation)', async () => {
  const store = new InMemoryEntryStore();
  const at = '2026-05-01T00:00:00.000Z';
  for (const [i, key] of ['likes_tea', 'likes_coffee', 'likes_juice'].entries()) {
    store.upsert({ id: `d${i}`, userId: 'u1', key, value: key.replace('likes_', ''), category: 'preference', visibility: 'self', sourceAgentId: 'agent-1', groupIds: [], sourceConversationId: null, conflicted: false, accessCount: 0, createdAt: at, updatedAt: at });
  }
  const chat = new FakeListChatModel({ responses: [JSON.stringify([{ key: 'drinks', value: 'tea, coffee, juice' }])] });
  const report = await dream({
    store, model: langChainModel(chat), userId: 'u1', agentId: 'agent-1', now: '2026-05-10T00:00:00.000Z', newId: () => 'summary',
    config: { dream: { enabled: true, summarizeInteractions: true, summarizeMinEntries: 3, summarizeTargetEntries: 1 } },
  });
  assert.equal(report.summarized, 2);
  assert.deepEqual(store.list('u1').map((e) => [e.key, e.value]), [['drinks', 'tea, coffee, juice']]);
});

/** A deterministic LangChain Embeddings: one axis per topic word; queries and documents alike. */
class TopicEmbeddings extends Embeddings {
  constructor() {
    super({});
    this.model = 'topics-3';
    this.calls = [];
  }
  vector(t) {
    return ['dog', 'city', 'food'].map((w) => (t.toLowerCase().includes(w) || (w === 'dog' && /rex|pet/i.test(t)) ? 1 : 0.01));
  }
  async embedDocuments(texts) {
    this.calls.push(['documents', texts.length]);
    return texts.map((t) => this.vector(t));
  }
  async embedQuery(text) {
    this.calls.push(['query', 1]);
    return this.vector(text);
  }
}

test('langChainEmbedder: documents and queries through their own calls, driving a hybrid search; id, dimensions, aborts and failures', async () => {
  const embeddings = new TopicEmbeddings();
  const embedder = langChainEmbedder(embeddings, { dimensions: 3 });
  assert.deepEqual([embedder.model, embedder.dimensions, embedder.maxBatch], ['topics-3', 3, 64]);
  const store = new InMemoryEntryStore();
  const tools = createMemoryTools({ store, userId: 'u1', agentId: 'a', embedder, config: { search: { mode: 'hybrid' } }, now: () => '2026-05-01T00:00:00Z', newId: (() => { let n = 0; return () => `l${n++}`; })() });
  await tools.call('rememberFact', { key: 'pet_name', value: 'Rex the dog', visibility: 'global' });
  await tools.call('rememberFact', { key: 'home', value: 'Lisbon city', visibility: 'global' });
  const found = await searchUserMemories(store, 'u1', 'what is my pet called', { mode: 'hybrid', embedder });
  assert.equal(found[0]?.key, 'pet_name');
  assert.ok(embeddings.calls.some(([kind]) => kind === 'documents') && embeddings.calls.some(([kind]) => kind === 'query'));

  const aborted = AbortSignal.abort();
  await assert.rejects(embedder.embed({ texts: ['x'], purpose: 'document', signal: aborted }), (e) => e.code === 'E_HOST' && e.details.cancelled === true);
  await assert.rejects(langChainEmbedder(embeddings, { dimensions: 4 }).embed({ texts: ['x'], purpose: 'query' }), (e) => e.code === 'E_HOST' && /dimensions/.test(e.message));
  const broken = new TopicEmbeddings();
  broken.embedDocuments = async () => { throw Object.assign(new Error('overloaded'), { status: 503 }); };
  await assert.rejects(langChainEmbedder(broken).embed({ texts: ['x'], purpose: 'document' }), (e) => e.code === 'E_HOST' && e.details.transient === true && e.details.status === 503);
  const nameless = new TopicEmbeddings();
  delete nameless.model;
  assert.throws(() => langChainEmbedder(nameless), (e) => e.code === 'E_CONFIG' && e.details.path === 'model');
  assert.equal(langChainEmbedder(nameless, { model: 'mine' }).model, 'mine');
});

// Compiled with `tsc --noEmit --strict` against the installed package and the pinned frameworks:
// the typings of memcore/graphql, memcore/ai-sdk, memcore/openai-agents and memcore/langchain fit
// what each framework's own functions accept.
import { buildSchema, graphql } from 'graphql';
import { generateText, stepCountIs, type ToolSet } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { Agent, run, type Tool as AgentTool } from '@openai/agents';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { FakeListChatModel, FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { FakeEmbeddings } from '@langchain/core/utils/testing';
import { ContextMemory, InMemoryEntryStore, createMemoryTools, type MemoryView, type Diagnostic } from 'memcore';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import {
  contextMemoryRootValue,
  contextMemoryTypeDefs,
  contextMemoryTypeExtensions,
  createContextMemoryResolvers,
  type ContextMemoryResolvers,
  type ContextMemoryUpdateResult,
} from 'memcore/graphql';
import { aiSdkMemoryTools, type AiSdkMemoryToolSet, type RememberFactInput } from 'memcore/ai-sdk';
import { openAIAgentsMemoryTools } from 'memcore/openai-agents';
import { langChainEmbedder, langChainMemoryTools, langChainModel } from 'memcore/langchain';
import type { Embedder, MemoryModel } from 'memcore';

interface RequestContext { user?: { id: string } }

async function graphQL() {
  const contextMemory = new ContextMemory({ storage: new InMemoryProfileStorage() });
  const resolvers: ContextMemoryResolvers<RequestContext> = createContextMemoryResolvers({ contextMemory, userIdFrom: (ctx: RequestContext) => ctx.user?.id });
  const view: MemoryView = await resolvers.Query.getMyContextMemory(undefined, {}, { user: { id: 'u' } });
  const saved: ContextMemoryUpdateResult = await resolvers.Mutation.updateMyContextMemory(undefined, { document: '## Identity\n' }, {});
  const diagnostics: Diagnostic[] = saved.diagnostics;
  // @ts-expect-error the mutation needs a document
  await resolvers.Mutation.updateMyContextMemory(undefined, {}, {});
  createContextMemoryResolvers({ contextMemory, userIdFrom: async () => null });
  // @ts-expect-error userIdFrom is required
  createContextMemoryResolvers({ contextMemory });
  const schema = buildSchema(`type Query { a: Int }\ntype Mutation { b: Int }\n${contextMemoryTypeExtensions}`);
  const result = await graphql({ schema, source: '{ getMyContextMemory { exists } }', rootValue: contextMemoryRootValue(resolvers), contextValue: { user: { id: 'u' } } });
  return [view.exists, diagnostics.length, result.errors?.[0]?.extensions?.code];
}

async function frameworks() {
  const memory = createMemoryTools({ store: new InMemoryEntryStore(), userId: 'u', agentId: 'a' });

  const set: AiSdkMemoryToolSet = aiSdkMemoryTools(memory);
  const asToolSet: ToolSet = set;
  const input: RememberFactInput = { key: 'k', value: { any: ['json'] }, category: 'fact', visibility: 'global' };
  const answer: string | undefined = await (set.rememberFact.execute?.(input, { toolCallId: 't', messages: [] }) as Promise<string> | undefined);
  const { text } = await generateText({ model: new MockLanguageModelV3(), tools: set, stopWhen: stepCountIs(3), prompt: 'p' });

  const agentTools: AgentTool[] = openAIAgentsMemoryTools(memory);
  const agent = new Agent({ name: 'Assistant', instructions: 'i', tools: openAIAgentsMemoryTools(memory) });
  const ran = await run(agent, 'hello');

  const lcTools: StructuredToolInterface[] = langChainMemoryTools(memory);
  const bound = new FakeStreamingChatModel({}).bindTools(langChainMemoryTools(memory));
  const content = await langChainMemoryTools(memory)[1].invoke({});
  // The documented calls: a LangChain chat model and LangChain embeddings as memcore's hosts.
  const lcModel: MemoryModel = langChainModel(new FakeListChatModel({ responses: ['NOOP'] }), { budget: (n) => ({ maxTokens: n }) });
  const lcStreaming: MemoryModel = langChainModel(new FakeStreamingChatModel({}));
  const lcEmbedder: Embedder = langChainEmbedder(new FakeEmbeddings(), { model: 'fake', dimensions: 4 });
  // @ts-expect-error a chat model, not its options
  langChainModel({ responses: ['NOOP'] });
  void [lcModel, lcStreaming, lcEmbedder];

  // The framework types are real ones, not `any` (an `any` would be assignable here).
  // @ts-expect-error a tool set is not a number
  const notAny1: number = aiSdkMemoryTools(memory).searchMemory;
  // @ts-expect-error function tools are not numbers
  const notAny2: number[] = openAIAgentsMemoryTools(memory);
  // @ts-expect-error structured tools are not numbers
  const notAny3: number[] = langChainMemoryTools(memory);
  void [notAny1, notAny2, notAny3];
  // @ts-expect-error a MemoryTools object, not its options
  aiSdkMemoryTools({ store: new InMemoryEntryStore(), userId: 'u', agentId: 'a' });
  return [asToolSet, answer, text, agentTools, ran.finalOutput, lcTools, bound, content];
}

void graphQL;
void frameworks;

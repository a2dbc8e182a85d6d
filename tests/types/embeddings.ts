// The embedder typings as a user writes against them (compiled by the test command with
// tsconfig.json): the contract's interfaces from `memcore`, the two bundled embedders.
import type { Embedder, EmbedPurpose, EmbedRequest, EmbedResult } from 'memcore';
import { openAIEmbeddings, type EmbedderAnswer, type OpenAIEmbedder, type OpenAIEmbeddingsOptions } from 'memcore/adapters/openai';
import { workersAIEmbeddings, type WorkersAIBinding, type WorkersAIEmbedder, type WorkersAIErrorDetails } from 'memcore/adapters/workers-ai';

// A host's own embedder: plain arrays are fine.
const own: Embedder = {
  model: 'letters-v1',
  dimensions: 2,
  async embed({ texts, purpose, signal }: EmbedRequest): Promise<EmbedResult> {
    signal.throwIfAborted();
    const p: EmbedPurpose = purpose;
    return { vectors: texts.map((t) => [t.length, p === 'query' ? 1 : 0]), model: 'letters-v1' };
  },
};

const options: OpenAIEmbeddingsOptions = {
  baseURL: 'https://example.openai.azure.com/openai/deployments/emb?api-version=2024-10-21',
  model: 'text-embedding-3-small',
  dimensions: 512,
  maxBatch: 32,
  queryPrefix: 'query: ',
  documentPrefix: 'passage: ',
  headers: { 'api-key': 'k' },
  fetch: (url, init) => fetch(url, init),
};
const openai: OpenAIEmbedder = openAIEmbeddings(options);

const binding: WorkersAIBinding = { run: async (_model, inputs) => ({ shape: [inputs.text.length, 2], data: inputs.text.map(() => [1, 0]) }) };
const workers: WorkersAIEmbedder = workersAIEmbeddings({ ai: binding, model: '@cf/baai/bge-base-en-v1.5', maxBatch: 10 });

export async function embedAll(texts: string[]): Promise<number> {
  const embedders: Embedder[] = [own, openai, workers];
  let total = 0;
  for (const embedder of embedders) {
    const { vectors } = await embedder.embed({ texts, purpose: 'document', signal: AbortSignal.timeout(10000) });
    total += vectors.length;
  }
  const answer: EmbedderAnswer = await openai.embed({ texts, purpose: 'query' });
  const first: Float32Array | undefined = answer.vectors[0];
  const details: WorkersAIErrorDetails = { model: workers.model, transient: true, code: 3040 };
  // @ts-expect-error openAIEmbeddings needs a model
  openAIEmbeddings({ baseURL: 'http://127.0.0.1:11434/v1' });
  // @ts-expect-error workersAIEmbeddings needs the binding
  workersAIEmbeddings({ model: '@cf/baai/bge-small-en-v1.5' });
  return total + (first?.length ?? 0) + (workers.dimensions ?? 0) + openai.maxBatch + details.transient.toString().length;
}

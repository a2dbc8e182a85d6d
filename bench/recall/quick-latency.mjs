// A quick check of one search's latency in the in-memory store over 10,000 entries of one user
// (synthetic entries, deterministic pseudo-random vectors, seed 21): the median of 25 searches per
// mode, the query's embedding from a recorded vector (not counted), wall and CPU time. Run after
// a build:
//   node bench/recall/quick-latency.mjs [--correlated]
// `--correlated`: every vector shares one component (0.8 × a common direction), so every entry
// passes the cosine floor, as many do with a real model — the worst case for the fusion.
// (The full latency table, beside the plain JS reference, is bench/recall/memcore.mjs.)
import * as m from 'memcore';

const N = 10000;
const D = 384;
let seed = 21;
const rnd = () => {
  seed = (seed * 1103515245 + 12345) >>> 0;
  return seed / 2 ** 32 - 0.5;
};
const words = ['dog', 'cat', 'city', 'work', 'coffee', 'trip', 'friend', 'car', 'book', 'music', 'food', 'sister', 'doctor', 'garden', 'phone'];
const store = new m.InMemoryEntryStore();
for (let i = 0; i < N; i++) {
  store.upsert({
    id: `e${String(i).padStart(6, '0')}`,
    userId: 'u1',
    key: `${words[i % 15]}_${i}`,
    value: `${words[(i * 7) % 15]} ${words[(i * 3) % 15]} note ${i}`,
    category: 'fact',
    visibility: 'global',
    createdAt: '2026-12-01T10:00:00.000Z',
    updatedAt: '2026-12-01T10:00:00.000Z',
  });
}
const correlated = process.argv.includes('--correlated');
const common = Float32Array.from({ length: D }, rnd);
const vector = () => Float32Array.from({ length: D }, (_, i) => (correlated ? common[i] * 0.8 : 0) + rnd());
const embedder = { model: 'r', dimensions: D, maxBatch: 256, embed: async ({ texts }) => ({ vectors: texts.map(vector) }) };
await m.reindexEmbeddings(store, embedder, { userId: 'u1' });
const q = vector();
const recorded = { model: 'r', dimensions: D, embed: async () => ({ vectors: [q] }) };
for (const mode of ['terms', 'ranked', 'hybrid']) {
  const times = [];
  const cpu = [];
  for (let i = 0; i < 25; i++) {
    const t = performance.now();
    const c = process.cpuUsage();
    await m.searchUserMemories(store, 'u1', 'what is my dog called', { mode, embedder: recorded, limit: 10 });
    const used = process.cpuUsage(c);
    times.push(performance.now() - t);
    cpu.push((used.user + used.system) / 1000);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  console.log(`${mode}: median ${times[12].toFixed(2)} ms (CPU ${cpu[12].toFixed(2)} ms), min ${times[0].toFixed(2)} ms over ${N} entries`);
}

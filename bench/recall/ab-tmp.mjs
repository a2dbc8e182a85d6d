import * as A from 'memcore-ab';
import * as B from 'memcore';
const N = 10000, D = 384;
const words = ['dog', 'cat', 'city', 'work', 'coffee', 'trip', 'friend', 'car', 'book', 'music', 'food', 'sister', 'doctor', 'garden', 'phone'];
const corr = process.argv[2] === 'corr';
async function setup(m) {
  let seed = 21;
  const rnd = () => { seed = (seed * 1103515245 + 12345) >>> 0; return seed / 2 ** 32 - 0.5; };
  const common = Float32Array.from({ length: D }, rnd);
  const vector = () => Float32Array.from({ length: D }, (_, i) => (corr ? common[i] * 0.8 : 0) + rnd());
  const store = new m.InMemoryEntryStore();
  for (let i = 0; i < N; i++) store.upsert({ id: `e${String(i).padStart(6, '0')}`, userId: 'u1', key: `${words[i % 15]}_${i}`, value: `${words[(i * 7) % 15]} ${words[(i * 3) % 15]} note ${i}`, category: 'fact', visibility: 'global', createdAt: '2026-12-01T10:00:00.000Z', updatedAt: '2026-12-01T10:00:00.000Z' });
  await m.reindexEmbeddings(store, { model: 'r', dimensions: D, maxBatch: 256, embed: async ({ texts }) => ({ vectors: texts.map(vector) }) }, { userId: 'u1' });
  const q = vector();
  return { m, store, recorded: { model: 'r', dimensions: D, embed: async () => ({ vectors: [q] }) } };
}
const a = await setup(A), b = await setup(B);
const t = { a: { ranked: [], hybrid: [] }, b: { ranked: [], hybrid: [] } };
for (let round = 0; round < 12; round++) {
  for (const [name, s] of round % 2 ? [['a', a], ['b', b]] : [['b', b], ['a', a]]) {
    for (const mode of ['ranked', 'hybrid']) {
      for (let i = 0; i < 10; i++) {
        const t0 = performance.now();
        await s.m.searchUserMemories(s.store, 'u1', 'what is my dog called', { mode, embedder: s.recorded, limit: 10 });
        if (round > 0) t[name][mode].push(performance.now() - t0);
      }
    }
  }
}
const med = (x) => { const s = [...x].sort((p, q) => p - q); return s[s.length >> 1]; };
for (const mode of ['ranked', 'hybrid']) console.log(`${corr ? 'corr ' : ''}${mode}: A ${med(t.a[mode]).toFixed(2)} ms, B ${med(t.b[mode]).toFixed(2)} ms, A/B ${(med(t.a[mode]) / med(t.b[mode])).toFixed(2)}`);

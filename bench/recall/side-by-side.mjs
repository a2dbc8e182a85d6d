// Two builds of memcore side by side in one process, on the recall benchmark's corpus (10,000
// entries by default, the model's vectors): the same searches interleaved query by query, the
// order alternating, medians per mode, and whether both builds answered alike. For changes to the
// search path, where two runs minutes apart on a shared machine differ more than the change:
//
//   scripts/build.sh && scripts/install-package.sh          # the build to compare against
//   rm -rf node_modules/memcore-ab && cp -r node_modules/memcore node_modules/memcore-ab
//   sed -i 's/"name": "memcore"/"name": "memcore-ab"/' node_modules/memcore-ab/package.json
//   <change>; scripts/build.sh && scripts/install-package.sh  # (install-package removes memcore-ab:
//                                                            #  copy it again from a saved copy)
//   node bench/recall/side-by-side.mjs [size] [modes] [rounds]   # e.g. 10000 ranked,hybrid 3
//
// Needs the model (scripts/setup.sh --model); vectors come from target/embeddings-cache.
import * as A from 'memcore-ab';
import * as B from 'memcore';
import { openAIEmbeddings } from 'memcore/adapters/openai';
import { startEmbeddingServer, DEFAULT_CACHE_DIR } from '../../scripts/embeddings/server.mjs';
import { MODEL_ID } from '../../scripts/embeddings/model.mjs';
import { loadCorpus, factsOfSize, entriesOf } from './memcore.mjs';
import { recordedEmbedder } from './latency.mjs';
import { entryText } from './reference.mjs';
const size = Number(process.argv[2] ?? 10000);
const corpus = await loadCorpus();
const server = await startEmbeddingServer({ cacheDir: DEFAULT_CACHE_DIR });
const embedder = openAIEmbeddings({ baseURL: server.url, model: MODEL_ID });
const qs = corpus.questions.map((q) => q.q);
const sig = () => AbortSignal.timeout(600000);
const qv = (await embedder.embed({ texts: qs, purpose: 'query', signal: sig() })).vectors;
const entries = entriesOf(factsOfSize(corpus, size));
const texts = entries.map(entryText);
const dv = [];
for (let i = 0; i < texts.length; i += 256) dv.push(...(await embedder.embed({ texts: texts.slice(i, i + 256), purpose: 'document', signal: sig() })).vectors);
await server.close?.();
const docRec = { ...recordedEmbedder(MODEL_ID, new Map(texts.map((t, i) => [t, Float32Array.from(dv[i])]))), maxBatch: 256 };
const rec = recordedEmbedder(MODEL_ID, new Map(qs.map((q, i) => [q, Float32Array.from(qv[i])])));
async function setup(m) {
  const store = new m.InMemoryEntryStore();
  for (const e of entries) store.upsert(e);
  await m.reindexEmbeddings(store, docRec, { userId: 'u1' });
  return { m, store };
}
const a = await setup(A), b = await setup(B);
const modes = (process.argv[3] ?? 'ranked,hybrid').split(',');
const t = { a: {}, b: {} };
for (const mode of modes) { t.a[mode] = []; t.b[mode] = []; }
let same = 0, diff = 0;
for (let round = 0; round < Number(process.argv[4] ?? 3); round++) {
  for (const mode of modes) for (let i = 0; i < qs.length; i++) {
    const order = (i + round) % 2 ? [['a', a], ['b', b]] : [['b', b], ['a', a]];
    const keys = {};
    for (const [name, s] of order) {
      const t0 = performance.now();
      const found = await s.m.searchUserMemories(s.store, 'u1', qs[i], { mode, embedder: rec, limit: 10 });
      const dt = performance.now() - t0;
      if (round > 0) t[name][mode].push(dt);
      keys[name] = found.map((e) => e.id).join();
    }
    if (keys.a === keys.b) same++; else diff++;
  }
}
const med = (x) => { const s = [...x].sort((p, q) => p - q); return s[s.length >> 1]; };
for (const mode of modes) console.log(`${mode}: memcore-ab ${med(t.a[mode]).toFixed(3)} ms, memcore ${med(t.b[mode]).toFixed(3)} ms, memcore-ab / memcore ${(med(t.a[mode]) / med(t.b[mode])).toFixed(2)}`);
console.log(`answers: the same ${same}, different ${diff}`);
process.exit(0);

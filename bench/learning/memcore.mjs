// The learning benchmark (issue 42): memcore's learning from every turn on the corpus of this folder
// (one user's 48 dated sessions in LongMemEval's schema), side by side with the plain JS reference.
//
// 1. Episode retrieval: every session is learned turn by turn through `learnFromTurn` (episodes on,
//    `at` = the session's time), then each question asks `searchEpisodes` (as of the question's date)
//    in every mode; sessions ranked by their first episode; LongMemEval's session-level recall_any@5,
//    recall_all@5 and NDCG@10 beside the reference (BM25 + cosine + RRF, reference.mjs) over the same
//    episodes and the same vectors of the real MiniLM model behind the loopback server.
// 2. Fact learning with a recorded model: the extraction answers are the corpus's `extractions`
//    (what a good model answers for each exchange); the facts memory ends with are compared with
//    `expected_facts`, every update with `expected_updates` (each older value kept as a version),
//    and nothing may be lost. With MEMCORE_MODEL_BASE_URL set (an OpenAI-compatible endpoint, e.g.
//    the local SmolLM shim) the same replay runs against that model instead: a team measures its
//    own model's extraction quality.
// 3. The cost per turn: model calls and tokens of the extraction, and memcore's own time per turn
//    (the model and a deterministic embedder answering at once: episodes and learned entries get
//    vectors) at 1,000 entries in memory and on SQLite, beside the same turn without learning and
//    beside the equivalent plain JS pipeline (pipeline-js.mjs: the same prompt, candidate search,
//    answer checks, writes with history and episodes with vectors, on Maps or better-sqlite3),
//    interleaved; the JS pipeline must end with memcore's facts.
// 4. Ingest volume on real conversations nobody here wrote (chitchat-dataset, MIT; fetched by
//    scripts/fetch-chitchat.sh): turns per second through learnFromTurn with episodes only, and the
//    share of turns the profile gate skips — from a recorded gate: chitchat-gate.json holds a real
//    small model's raw answers (SmolLM2-135M-Instruct, temperature 0) to memcore's own gate prompt
//    on a spread sample of the dataset's turns (recorded once by record-gate.mjs), replayed here
//    through afterTurn so memcore's own parsing decides what a NOOP is. Without the file the share
//    is null.
//
//   node bench/learning/memcore.mjs [--json FILE] [--quick]
import { mkdtempSync, rmSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as m from 'memcore';
import { openAIEmbeddings, openAIChatModel } from 'memcore/adapters/openai';
import { openSqlite } from 'memcore/adapters/sqlite';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import { startEmbeddingServer, DEFAULT_CACHE_DIR } from '../../scripts/embeddings/server.mjs';
import { MODEL_ID } from '../../scripts/embeddings/model.mjs';
import { loadCorpus, episodesOf } from './longmemeval.mjs';
import { EpisodeIndex, rankSessions, scored, summarize } from './reference.mjs';
import { DEFAULT_DIR as CHITCHAT_DIR, loadChitchat, turnsOf } from './chitchat.mjs';
import { MemoryPipeline, SqlitePipeline, hashEmbedder } from './pipeline-js.mjs';

export const DEFAULT_JSON = fileURLToPath(new URL('../../target/learning-bench.json', import.meta.url));
const CORPUS = fileURLToPath(new URL('./corpus.json', import.meta.url));
const GATE_FILE = fileURLToPath(new URL('./chitchat-gate.json', import.meta.url));
const USER = 'maren';
const AGENT = 'assistant';

/** The turns of a session as exchanges: `{ index, user, assistant }` (index: the user turn's). */
function exchanges(session) {
  const out = [];
  session.turns.forEach((turn, index) => {
    if (turn.role !== 'user') return;
    const next = session.turns[index + 1];
    out.push({ index, user: turn.content, assistant: next?.role === 'assistant' ? next.content : '' });
  });
  return out;
}

/** The turn's time: the session's plus the user turn's index in seconds (as episodesOf dates them). */
const turnAt = (session, index) => new Date(Date.parse(session.date) + index * 1000).toISOString();

/** A recorded extraction model: answers what `current.answer` holds, counting calls and prompt size. */
function recordedModel() {
  const state = { answer: { facts: [] }, calls: 0, promptChars: 0, prompts: 0 };
  const model = async (request) => {
    state.calls += 1;
    state.promptChars += request.system.length + request.user.length;
    state.prompts += 1;
    return { text: JSON.stringify(state.answer), usage: { inputTokens: m.countTokens(request.system + request.user), outputTokens: m.countTokens(JSON.stringify(state.answer)) } };
  };
  return { model, state };
}

/** Learn the whole corpus into `store`: facts from `model` (recorded unless given), episodes on. */
async function learnCorpus(corpus, store, { model, state, embedder }) {
  const reports = [];
  for (const session of corpus.sessions) {
    for (const turn of exchanges(session)) {
      if (state) state.answer = corpus.raw.extractions[`${session.id}#${turn.index}`] ?? { facts: [] };
      const at = turnAt(session, turn.index);
      reports.push(await m.learnFromTurn({
        store, model, embedder, userId: USER, agentId: AGENT, conversationId: session.id, at, now: () => at,
        messages: [{ role: 'user', content: turn.user }, { role: 'assistant', content: turn.assistant }],
        config: { history: { retainDays: 36500, maxVersionsPerEntry: 100 }, learn: { episodeRetainDays: 36500 }, maxEntriesPerUser: 10_000 },
      }));
    }
  }
  return reports;
}

/** The facts memory holds, as the corpus writes them (`expected_facts`: key → value). */
async function factsOf(store) {
  const out = {};
  for (const e of await m.listUserMemories(store, USER)) if (!e.key.startsWith('_gdpr_')) out[e.key] = e.value;
  return out;
}

/** Compare learned facts and their histories with the corpus's expectations. */
async function factScore(corpus, store) {
  const expected = corpus.raw.expected_facts;
  const learned = await factsOf(store);
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const keys = Object.keys(expected);
  const right = keys.filter((k) => same(learned[k], expected[k])).length;
  const extra = Object.keys(learned).filter((k) => !(k in expected)).length;
  let updatesKept = 0;
  let lost = 0;
  const updates = corpus.raw.expected_updates;
  for (const [key, values] of Object.entries(updates)) {
    const history = await m.entryHistory({ store, userId: USER, key });
    const seen = new Set([...history.current, ...history.versions].map((v) => JSON.stringify(v.value)));
    const older = values.slice(0, -1).filter((v) => v !== null);
    const kept = older.every((v) => seen.has(JSON.stringify(v)));
    if (kept) updatesKept += 1;
    lost += older.filter((v) => !seen.has(JSON.stringify(v))).length;
  }
  return { expected: keys.length, right, extra, updates: Object.keys(updates).length, updatesKept, lost };
}

/** Episode retrieval in every memcore mode and in the reference, per question type. */
async function retrieval(corpus, store, embedder, vectors) {
  const rows = [];
  const scoredQuestions = corpus.questions.filter((q) => scored(q));
  const modes = embedder ? ['terms', 'ranked', 'hybrid'] : ['terms', 'ranked'];
  for (const mode of modes) {
    const results = [];
    for (const q of scoredQuestions) {
      const hits = await m.searchEpisodes(store, USER, q.question, { mode, limit: 100, asOf: q.date, ...(mode === 'hybrid' ? { embedder } : {}) });
      results.push({ ...q, ranked: rankSessions(hits.map((h) => ({ sessionId: h.conversationId }))) });
    }
    rows.push({ who: `memcore ${mode}`, summary: summarize(results) });
  }
  const episodes = episodesOf(corpus.sessions);
  for (const kind of vectors ? ['lexical', 'vector', 'hybrid'] : ['lexical']) {
    const results = [];
    for (const q of scoredQuestions) {
      const before = episodes.filter((e) => e.at <= q.date);
      const index = new EpisodeIndex(before, vectors ? before.map((e) => vectors.get(e.text) ?? null) : [], { stem: 'suffix' });
      const qv = vectors?.get(q.question) ?? null;
      const keys = kind === 'lexical' ? index.lexical(q.question) : kind === 'vector' ? index.vector(qv) : index.hybrid(q.question, qv);
      results.push({ ...q, ranked: rankSessions(keys) });
    }
    rows.push({ who: `reference ${kind}`, summary: summarize(results) });
  }
  return rows;
}

/** The learning configuration of the cost rows: memcore's defaults, a cap above the fillers, episodes kept for 100 years (the corpus's turns are months old). */
const costConfig = (size) => ({ maxEntriesPerUser: size + 1000, learn: { episodeRetainDays: 36500 } });

/** A recorded model answering at once: `state.text` (set before each turn), whoever asks. */
function instantModel() {
  const state = { text: '{"facts":[]}' };
  return { state, model: async () => ({ text: state.text }) };
}

/** The candidate lines of an extraction prompt (its <stored_facts> block), as a set. */
function candidateLines(user) {
  const block = /<stored_facts>\n([\s\S]*?)\n<\/stored_facts>/.exec(user)?.[1] ?? '';
  return new Set(block === '(none)' || block === '' ? [] : block.split('\n'));
}

/** Facts learned into memcore's store: key → value, the fillers and `_gdpr_` keys left out. */
async function learnedFacts(store) {
  const out = {};
  for (const e of await m.listUserMemories(store, USER)) if (!e.key.startsWith('_gdpr_') && !e.key.startsWith('filler_')) out[e.key] = e.value;
  return out;
}

/** Keys whose values differ between two fact maps (`null`: absent). */
function factDiff(a, b) {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys.filter((k) => JSON.stringify(a[k] ?? null) !== JSON.stringify(b[k] ?? null)).map((k) => ({ key: k, memcore: a[k] ?? null, js: b[k] ?? null }));
}

/**
 * The time per turn (the model and the embedder answering at once) at `size` entries: memcore's
 * turn without learning and with learning (`learn`, an embedder: episodes and learned entries get
 * vectors), and the plain JS pipeline doing the same learning work (pipeline-js.mjs), interleaved
 * (the order of the three rotates every turn). Then the sanity check, untimed: the JS pipeline's
 * facts against memcore's, what each did with the facts, and the candidates each put in the
 * extraction prompt.
 */
async function turnCost(corpus, open, openJs, size, rounds) {
  const { store, close } = await open();
  const { state, model } = instantModel();
  const prompts = { memcore: [], js: [] };
  const js = await openJs({ model: async (request) => { prompts.js.push(request.user); return model(request); }, maxEntriesPerUser: size + 1000, episodeRetainDays: 36500 });
  try {
    const fillers = [];
    for (let j = 0; j < size; j += 1) fillers.push({ key: `filler_${j}`, value: `an older fact number ${j} about the weather and errands`, visibility: 'global', at: '2026-01-01T00:00:00.000Z' });
    for (let i = 0; i < size; i += 100) {
      await Promise.all(fillers.slice(i, i + 100).map((f) => m.upsertUserMemory(store, { userId: USER, key: f.key, value: f.value, visibility: 'global' }, { now: () => '2026-01-01T00:00:00Z' })));
    }
    js.seed(USER, fillers);
    const turns = corpus.sessions.flatMap((s) => exchanges(s).map((t) => ({ session: s, turn: t })));
    const extract = async (request) => { prompts.memcore.push(request.user); return model(request); };
    const gateAndConsolidate = async (request) => (request.purpose === 'gate' ? 'UPDATE' : request.purpose === 'consolidate' ? 'NOOP' : extract(request));
    const hosts = () => ({ storage: new InMemoryProfileStorage(), entries: store, model: gateAndConsolidate, embedder: hashEmbedder });
    const plain = new m.ContextMemory(hosts());
    const learning = new m.ContextMemory(hosts(), { learn: { agentId: AGENT, config: costConfig(size) } });
    // Warm-up, untimed: the first turns through all three as another user (memcore's code is
    // already warm from the fact learning above; the JS pipeline's is not).
    for (const { session, turn } of turns.slice(0, 24)) {
      state.text = JSON.stringify(corpus.raw.extractions[`${session.id}#${turn.index}`] ?? { facts: [] });
      const warm = { userId: `${USER}-warmup`, conversationId: session.id, at: turnAt(session, turn.index) };
      await plain.afterTurn({ ...warm, enabled: true, userMessage: turn.user, assistantMessage: turn.assistant });
      await learning.afterTurn({ ...warm, enabled: true, userMessage: turn.user, assistantMessage: turn.assistant });
      await js.learnTurn({ ...warm, agentId: AGENT, messages: [{ role: 'user', content: turn.user }, { role: 'assistant', content: turn.assistant }] });
    }
    prompts.memcore.length = 0;
    prompts.js.length = 0;
    const time = { plain: 0, learning: 0, js: 0 };
    const reports = { learning: [], js: [] };
    // Every order of the three, in turn.
    const orders = [['plain', 'learning', 'js'], ['js', 'plain', 'learning'], ['learning', 'js', 'plain'], ['learning', 'plain', 'js'], ['js', 'learning', 'plain'], ['plain', 'js', 'learning']];
    let n = 0;
    for (let r = 0; r < rounds; r += 1) {
      for (const { session, turn } of turns) {
        state.text = JSON.stringify(corpus.raw.extractions[`${session.id}#${turn.index}`] ?? { facts: [] });
        const conversationId = `${session.id}-${r}`;
        const at = turnAt(session, turn.index);
        const input = { userId: USER, enabled: true, userMessage: turn.user, assistantMessage: turn.assistant, conversationId, at };
        const messages = [{ role: 'user', content: turn.user }, { role: 'assistant', content: turn.assistant }];
        for (const which of orders[n % orders.length]) {
          const t0 = performance.now();
          if (which === 'js') reports.js.push(await js.learnTurn({ userId: USER, agentId: AGENT, conversationId, messages, at }));
          else if (which === 'plain') await plain.afterTurn(input);
          else reports.learning.push((await learning.afterTurn(input)).learned);
          time[which] += performance.now() - t0;
        }
        n += 1;
      }
    }
    const memcoreFacts = await learnedFacts(store);
    const jsFacts = js.facts(USER, AGENT);
    const diff = factDiff(memcoreFacts, jsFacts);
    const expected = corpus.raw.expected_facts;
    const jsRight = Object.keys(expected).filter((k) => JSON.stringify(jsFacts[k]) === JSON.stringify(expected[k])).length;
    const count = (list, action) => list.reduce((sum, rep) => sum + (rep?.facts ?? []).filter((f) => f.action === action).length, 0);
    const actions = (list) => Object.fromEntries(['added', 'updated', 'unchanged', 'forgotten', 'refused'].map((a) => [a, count(list, a)]));
    const episodes = { memcore: reports.learning.reduce((s, rep) => s + (rep?.episodes?.length ?? 0), 0), js: reports.js.reduce((s, rep) => s + rep.episodes, 0) };
    let sameCandidates = 0;
    let overlap = 0;
    let candidates = 0;
    prompts.memcore.forEach((user, i) => {
      const a = candidateLines(user);
      const b = candidateLines(prompts.js[i] ?? '');
      const shared = [...a].filter((line) => b.has(line)).length;
      if (shared === a.size && shared === b.size) sameCandidates += 1;
      overlap += a.size === 0 && b.size === 0 ? 1 : shared / Math.max(a.size, b.size);
      candidates += a.size;
    });
    const mean = (list) => list.reduce((s, u) => s + u.length, 0) / Math.max(1, list.length);
    // The history each kept: versions per key (after the retention's newest 10 per entry).
    const jsCounts = js.counts(USER);
    const versions = { memcore: 0, js: 0, keysDiffering: [] };
    for (const key of [...new Set([...Object.keys(jsCounts.versions), ...Object.keys(memcoreFacts), ...Object.keys(corpus.raw.expected_updates)])].sort()) {
      const kept = (await m.entryHistory({ store, userId: USER, key })).versions.length;
      versions.memcore += kept;
      versions.js += jsCounts.versions[key] ?? 0;
      if (kept !== (jsCounts.versions[key] ?? 0)) versions.keysDiffering.push(key);
    }
    const check = {
      factsMatch: diff.length === 0,
      keys: Object.keys(memcoreFacts).length,
      diff,
      jsRight: `${jsRight} of ${Object.keys(expected).length}`,
      actions: { memcore: actions(reports.learning), js: actions(reports.js) },
      episodes,
      versions,
      prompts: prompts.memcore.length === prompts.js.length ? prompts.memcore.length : `${prompts.memcore.length} ≠ ${prompts.js.length}`,
      sameCandidates,
      candidateOverlap: overlap / Math.max(1, prompts.memcore.length),
      candidatesPerPrompt: candidates / Math.max(1, prompts.memcore.length),
      promptChars: { memcore: mean(prompts.memcore), js: mean(prompts.js) },
    };
    const addedMs = (time.learning - time.plain) / n;
    return { size, turns: n, plainMs: time.plain / n, learningMs: time.learning / n, addedMs, jsMs: time.js / n, jsRatio: time.js / n / addedMs, check };
  } finally {
    js.close();
    await close();
  }
}

/**
 * The recorded gate (chitchat-gate.json, written by record-gate.mjs) replayed through memcore: each
 * recorded turn (found by conversationId and index among `turns`) runs `afterTurn` with a model
 * that answers the gate with the recorded text and NOOP to anything else; a turn is skipped when the
 * report's `gate` is `noop`. Each turn has its own user id (an empty profile), as when recorded.
 * `null` without the file.
 */
async function recordedGate(turns) {
  if (!existsSync(GATE_FILE)) return null;
  const recorded = JSON.parse(readFileSync(GATE_FILE, 'utf8'));
  const byKey = new Map(turns.map((t) => [`${t.conversationId}#${t.index}`, t]));
  let answer = 'NOOP';
  const memory = new m.ContextMemory({ storage: new InMemoryProfileStorage(), model: async ({ purpose }) => (purpose === 'gate' ? answer : 'NOOP') });
  let n = 0;
  let skipped = 0;
  let followed = 0;
  for (const r of recorded.answers) {
    const t = byKey.get(`${r.conversationId}#${r.index}`);
    if (!t) continue;
    answer = r.answer;
    if (/^\s*(UPDATE|NOOP)\b/i.test(answer)) followed += 1;
    const report = await memory.afterTurn({ userId: `cc-${t.conversationId}-${t.index}`, enabled: true, userMessage: t.user, assistantMessage: t.assistant });
    n += 1;
    if (report.gate === 'noop') skipped += 1;
  }
  return n ? { skips: skipped / n, n, followed, model: recorded.model.split(' ')[0] } : null;
}

/** Turns per second through learnFromTurn (episodes only) on real conversations, and the recorded gate's skip share. */
async function chitchat(limit) {
  if (!existsSync(join(CHITCHAT_DIR, 'dataset.json'))) return null;
  const all = await loadChitchat(CHITCHAT_DIR, { minMessages: 2 });
  const conversations = all.slice(0, limit);
  const turns = turnsOf(conversations);
  const store = new m.InMemoryEntryStore();
  const t0 = performance.now();
  for (const t of turns) {
    await m.learnFromTurn({
      store, model: async () => '{"facts":[]}', userId: `cc-${t.conversationId}`, agentId: AGENT, conversationId: String(t.conversationId), at: t.at, now: () => t.at,
      messages: [{ role: 'user', content: t.user }, { role: 'assistant', content: t.assistant }],
      config: { learn: { facts: false, episodeRetainDays: 36500 } },
    });
  }
  const ms = performance.now() - t0;
  const gate = await recordedGate(turnsOf(all));
  return { conversations: conversations.length, turns: turns.length, turnsPerSecond: turns.length / (ms / 1000), gateSkips: gate?.skips ?? null, gateSample: gate?.n ?? null, gateModel: gate?.model ?? null, gateFollowed: gate?.followed ?? null };
}

/** The whole benchmark; `progress(line)` reports what it is doing. */
export async function learningBench({ progress = () => {}, quick = false } = {}) {
  const raw = JSON.parse(await (await import('node:fs/promises')).readFile(CORPUS, 'utf8'));
  const corpus = { ...(await loadCorpus(CORPUS)), raw };
  const report = { corpus: { sessions: corpus.sessions.length, questions: corpus.questions.length } };

  progress('learning: facts with the recorded model');
  const recorded = recordedModel();
  const store = new m.InMemoryEntryStore();
  let server = null;
  let embedder = null;
  let vectors = null;
  try {
    server = await startEmbeddingServer({ cacheDir: DEFAULT_CACHE_DIR });
    embedder = openAIEmbeddings({ baseURL: server.url, model: MODEL_ID });
  } catch (error) {
    progress(`learning: no embedding model (${error.message}); hybrid rows skipped — scripts/setup.sh --model`);
  }
  try {
    const reports = await learnCorpus(corpus, store, { model: recorded.model, state: recorded.state, embedder });
    report.facts = { ...(await factScore(corpus, store)), turns: reports.length, calls: recorded.state.calls, promptTokensPerCall: 0 };
    report.facts.failed = reports.filter((r) => r.outcome === 'failed').length;
    report.facts.refused = reports.flatMap((r) => r.facts).filter((f) => f.action === 'refused').length;
    const tokens = reports.map((r) => r.usage?.inputTokens ?? 0).filter((n) => n > 0);
    report.facts.promptTokensPerCall = tokens.length ? Math.round(tokens.reduce((a, b) => a + b, 0) / tokens.length) : 0;
    if (process.env.MEMCORE_MODEL_BASE_URL) {
      progress(`learning: facts with the model at ${process.env.MEMCORE_MODEL_BASE_URL}`);
      const real = openAIChatModel({ baseURL: process.env.MEMCORE_MODEL_BASE_URL, apiKey: process.env.MEMCORE_MODEL_API_KEY ?? 'none', model: process.env.MEMCORE_MODEL ?? 'default' });
      const realStore = new m.InMemoryEntryStore();
      await learnCorpus(corpus, realStore, { model: real });
      report.realModel = await factScore(corpus, realStore);
    }
    if (embedder) {
      progress('learning: the reference\'s vectors');
      const episodes = episodesOf(corpus.sessions);
      const texts = [...new Set([...episodes.map((e) => e.text), ...corpus.questions.map((q) => q.question)])];
      const made = await embedder.embed({ texts, purpose: 'document' });
      vectors = new Map(texts.map((t, i) => [t, Float32Array.from(made.vectors[i])]));
    }
    progress('learning: episode retrieval');
    report.retrieval = await retrieval(corpus, store, embedder, vectors);
  } finally {
    await server?.close();
  }

  progress('learning: cost per turn');
  const memory = async () => ({ store: new m.InMemoryEntryStore(), close: async () => {} });
  const memoryJs = async (options) => new MemoryPipeline(options);
  const dir = mkdtempSync(join(tmpdir(), 'memcore-learn-bench-'));
  try {
    const sqlite = async () => {
      const db = await openSqlite(join(dir, 'memcore.db'));
      return { store: db, close: async () => db.close() };
    };
    const sqliteJs = async (options) => new SqlitePipeline(join(dir, 'pipeline-js.db'), options);
    report.cost = [
      { store: 'in memory', ...(await turnCost(corpus, memory, memoryJs, 1000, quick ? 1 : 3)) },
      { store: 'SQLite (a file)', ...(await turnCost(corpus, sqlite, sqliteJs, 1000, quick ? 1 : 3)) },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  progress('learning: chitchat ingest');
  report.chitchat = await chitchat(quick ? 200 : 1000);
  return report;
}

const pct = (x) => `${Math.round(x * 100)}%`;

/** The report as Markdown tables. */
export function reportTables(report) {
  const lines = [];
  lines.push(`Corpus: ${report.corpus.sessions} sessions, ${report.corpus.questions} questions (bench/learning/corpus.json).\n`);
  lines.push('| episode retrieval | r_any@5 | r_all@5 | ndcg@10 |', '| --- | ---: | ---: | ---: |');
  for (const row of report.retrieval) {
    const all = row.summary.all;
    lines.push(`| ${row.who} | ${pct(all.recall_any5)} | ${pct(all.recall_all5)} | ${all.ndcg10.toFixed(3)} |`);
  }
  const f = report.facts;
  lines.push('', '| fact learning (recorded model) | value |', '| --- | ---: |');
  lines.push(`| final facts right | ${f.right} of ${f.expected} (${f.extra} extra) |`);
  lines.push(`| updates with every older value kept as a version | ${f.updatesKept} of ${f.updates} |`);
  lines.push(`| older values lost | ${f.lost} |`);
  lines.push(`| turns, extraction calls (one per turn at most) | ${f.turns}, ${f.calls} |`);
  lines.push(`| extraction prompt tokens per call (o200k) | ${f.promptTokensPerCall} |`);
  lines.push(`| failed extractions, refused facts | ${f.failed}, ${f.refused} |`);
  if (report.realModel) lines.push(`| with MEMCORE_MODEL_BASE_URL: facts right, updates kept, lost | ${report.realModel.right} of ${report.realModel.expected}, ${report.realModel.updatesKept} of ${report.realModel.updates}, ${report.realModel.lost} |`);
  lines.push('', '| time per turn (model and embedder answer at once) | entries | memcore without learning | memcore with learning | memcore added | JS pipeline (pipeline-js.mjs) | JS ÷ memcore added |', '| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const c of report.cost) lines.push(`| ${c.store} | ${c.size} | ${c.plainMs.toFixed(2)} ms | ${c.learningMs.toFixed(2)} ms | ${c.addedMs.toFixed(2)} ms | ${c.jsMs.toFixed(2)} ms | ${c.jsRatio.toFixed(2)} |`);
  for (const c of report.cost) {
    const k = c.check;
    const same = k.factsMatch ? `the same ${k.keys} facts as memcore (${k.jsRight} expected)` : `facts differ from memcore's on ${k.diff.length} keys (${k.diff.map((d) => d.key).join(', ')})`;
    const acts = (a) => `${a.added}/${a.updated}/${a.unchanged}/${a.forgotten}/${a.refused}`;
    lines.push(`\n${c.store}, ${c.turns} turns: the JS pipeline ends with ${same}; added/updated/unchanged/forgotten/refused memcore ${acts(k.actions.memcore)}, JS ${acts(k.actions.js)}; versions kept memcore ${k.versions.memcore}, JS ${k.versions.js}${k.versions.keysDiffering.length ? ` (differing: ${k.versions.keysDiffering.join(', ')})` : ''}; episodes stored memcore ${k.episodes.memcore}, JS ${k.episodes.js}; extraction prompts ${k.prompts}, the same candidates in ${k.sameCandidates} (overlap ${pct(k.candidateOverlap)}, ${k.candidatesPerPrompt.toFixed(1)} per prompt), ${Math.round(k.promptChars.memcore)} vs ${Math.round(k.promptChars.js)} characters.`);
  }
  if (report.chitchat) {
    const c = report.chitchat;
    const gate = c.gateSkips === null
      ? 'no recorded gate (bench/learning/chitchat-gate.json missing: bench/learning/record-gate.mjs records it)'
      : `a recorded gate (${c.gateModel}, ${c.gateSample} sampled turns) skips ${pct(c.gateSkips)} of the turns — ${c.gateFollowed} of its answers start with UPDATE or NOOP; memcore reads any other answer as UPDATE (the gate fails open), so this measures how well a model follows the gate, and a team records its own with bench/learning/record-gate.mjs --base-url`;
    lines.push('', `chitchat-dataset: ${c.conversations} conversations, ${c.turns} turns learned as episodes at ${Math.round(c.turnsPerSecond)} turns/s (in memory); ${gate}.`);
  } else {
    lines.push('', 'chitchat-dataset: not fetched (scripts/fetch-chitchat.sh).');
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const report = await learningBench({ progress: (line) => console.error(line), quick: args.includes('--quick') });
  console.log(reportTables(report));
  const at = args.indexOf('--json');
  writeFileSync(at >= 0 ? args[at + 1] : DEFAULT_JSON, `${JSON.stringify(report, null, 2)}\n`);
}

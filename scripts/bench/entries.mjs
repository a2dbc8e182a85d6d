// Recall and search over 10,000 entries of one user: memcore's tools (bundled in-memory store, and
// a JS host store) side by side with the JS a competent team would write (reference.mjs).
import { createMemoryTools, InMemoryEntryStore } from 'memcore';
import { compareAsync, fmtTime } from './harness.mjs';
import * as ref from './reference.mjs';

const AGENTS = ['agent-a', 'agent-b', 'agent-c'];
const GROUPS = ['G1', 'G2'];
const WORDS = ['coffee', 'zurich', 'python', 'report', 'dog', 'name', 'color', 'blue', 'Straße', '東京', 'team', 'deadline'];

/** 10,000 deterministic entries of user u1: a third global, self and group across three agents. */
export function makeEntries(n = 10000) {
  const entries = [];
  for (let i = 0; i < n; i++) {
    const visibility = ['global', 'self', 'group'][i % 3];
    const t = new Date(Date.UTC(2026, 0, 1) + i * 61_000).toISOString();
    entries.push({
      id: `e${String(i).padStart(5, '0')}`, userId: 'u1', key: `${WORDS[i % WORDS.length]}_${i}`,
      value: i % 7 === 0 ? { n: i, tags: [WORDS[(i + 3) % WORDS.length]] } : `${WORDS[(i * 5) % WORDS.length]} note ${i}`,
      category: ['preference', 'fact', 'context'][i % 3], visibility, sourceAgentId: AGENTS[i % 3],
      groupIds: visibility === 'group' ? [GROUPS[i % 2]] : [], sourceConversationId: null, conflicted: false,
      accessCount: (i * 7919) % 97, createdAt: t, updatedAt: t,
    });
  }
  return entries;
}

// The JS reference is scripts/bench/reference.mjs (`recall`, `search`): what a competent team
// writes — ISO timestamps compared as strings, filter/sort/slice with the built-ins.
const jsRecall = ref.recall;
const jsSearch = ref.search;

/** A plain JS host store over an array (every call crosses the boundary with all entries). */
function jsHostStore(entries) {
  return {
    list: (u) => entries.filter((e) => e.userId === u),
    get: (id) => entries.find((e) => e.id === id) ?? null,
    upsert: () => {},
    delete: () => false,
    incrementAccess: () => {},
  };
}

export async function entryRows() {
  const entries = makeEntries();
  const store = new InMemoryEntryStore();
  for (const e of entries) store.upsert(e);
  // The seeds' search rule (terms), as the JS reference implements it.
  const opts = { userId: 'u1', agentId: 'agent-a', group: 'G1', config: { search: { mode: 'terms' } } };
  const tools = createMemoryTools({ store, ...opts });
  const hostTools = createMemoryTools({ store: jsHostStore(makeEntries()), ...opts });
  const jsEntries = makeEntries();

  // Same answers before timing (access counts diverge afterwards, recency order does not).
  const [a, b] = [await tools.call('searchMemory', { query: 'dog name' }), jsSearch(jsEntries, 'agent-a', 'G1', 'dog name')];
  if (a !== b) throw new Error(`search answers differ:\n${a.slice(0, 200)}\n---\n${b.slice(0, 200)}`);
  const r0 = await tools.call('recallMemories', {});
  if (r0 !== jsRecall(makeEntries(), 'agent-a', 'G1')) throw new Error('recall answers differ');

  const rows = [];
  const [rm, rh, rj] = await compareAsync([
    { fn: () => tools.call('recallMemories', {}) },
    { fn: () => hostTools.call('recallMemories', {}) },
    { fn: async () => jsRecall(jsEntries, 'agent-a', 'G1') },
  ]);
  rows.push(['recallMemories (50 of 10,000), per call', fmtTime(rm), fmtTime(rh), fmtTime(rj), `${(rj / rm).toFixed(2)}×`]);
  const [sm, sh, sj] = await compareAsync([
    { fn: () => tools.call('searchMemory', { query: 'dog name' }) },
    { fn: () => hostTools.call('searchMemory', { query: 'dog name' }) },
    { fn: async () => jsSearch(jsEntries, 'agent-a', 'G1', 'dog name') },
  ]);
  rows.push(['searchMemory "dog name" (few hits), per call', fmtTime(sm), fmtTime(sh), fmtTime(sj), `${(sj / sm).toFixed(2)}×`]);
  if ((await tools.call('searchMemory', { query: 'blue note' })) !== jsSearch(makeEntries(), 'agent-a', 'G1', 'blue note')) throw new Error('search answers differ');
  const [bm, bh, bj] = await compareAsync([
    { fn: () => tools.call('searchMemory', { query: 'note' }) },
    { fn: () => hostTools.call('searchMemory', { query: 'note' }) },
    { fn: async () => jsSearch(jsEntries, 'agent-a', 'G1', 'note') },
  ]);
  rows.push(['searchMemory "note" (5,000+ hits, 50 shown), per call', fmtTime(bm), fmtTime(bh), fmtTime(bj), `${(bj / bm).toFixed(2)}×`]);
  return rows;
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const { printTable } = await import('./harness.mjs');
  printTable(['10,000 entries', 'memcore (InMemoryEntryStore)', 'memcore (JS host store)', 'competent JS (reference.mjs)', 'JS / memcore'], await entryRows());
}

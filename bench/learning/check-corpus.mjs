// Checks the learning benchmark's corpus.json (see its `about`): sessions dated, ascending and
// well formed; questions of LongMemEval's types (at least 12 of each) citing real sessions that
// carry evidence; extractions keyed by real user turns, one category per key; and replaying the
// extractions in order yields exactly `expected_facts` and `expected_updates`. Prints the counts;
// exits 1 on a problem.
//
//   node bench/learning/check-corpus.mjs [FILE]

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseHaystackDate } from './longmemeval.mjs';

/** LongMemEval's question types this corpus uses (not single-session-preference). */
export const QUESTION_TYPES = [
  'single-session-user',
  'single-session-assistant',
  'multi-session',
  'knowledge-update',
  'temporal-reasoning',
];
const CATEGORIES = new Set(['preference', 'fact', 'context']);
const KEY = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/**
 * Replays extractions in order: a fact sets its key, a forget removes it.
 * @param {{ facts: ({ key: string, value: string, category: string } | { key: string, forget: true })[] }[]} answers in order
 * @returns {{ facts: Record<string, string>, history: Record<string, (string | null)[]>, unknownForgets: string[] }}
 *   `history`: every value each key held, null where it was forgotten
 */
export function replay(answers) {
  const facts = new Map();
  const history = new Map();
  const unknownForgets = [];
  for (const { facts: list } of answers) {
    for (const f of list) {
      if (f.forget) {
        if (!facts.has(f.key)) {
          unknownForgets.push(f.key);
          continue;
        }
        facts.delete(f.key);
        history.get(f.key).push(null);
      } else if (facts.get(f.key) !== f.value) {
        facts.set(f.key, f.value);
        if (!history.has(f.key)) history.set(f.key, []);
        history.get(f.key).push(f.value);
      }
    }
  }
  return { facts: Object.fromEntries(facts), history: Object.fromEntries(history), unknownForgets };
}

/**
 * The problems of a corpus and its counts.
 * @param {object} corpus corpus.json, parsed
 * @returns {{ problems: string[], counts: object }}
 */
export function checkCorpus(corpus) {
  const problems = [];
  const fail = (message) => problems.push(message);
  const ids = corpus.haystack_session_ids ?? [];
  const dates = corpus.haystack_dates ?? [];
  const sessions = corpus.haystack_sessions ?? [];
  if (typeof corpus.about !== 'string' || corpus.about.length < 100) fail('about: missing or too short');
  if (ids.length === 0 || ids.length !== dates.length || ids.length !== sessions.length) {
    fail('haystack_session_ids, haystack_dates and haystack_sessions must be non-empty and of one length');
  }
  if (new Set(ids).size !== ids.length) fail('haystack_session_ids: duplicates');

  // Sessions: dates (weekday right, strictly ascending), turns alternating from the user.
  const byId = new Map();
  let previous = '';
  ids.forEach((id, i) => {
    let iso;
    try {
      iso = parseHaystackDate(dates[i]);
    } catch (error) {
      fail(`${id}: ${error.message}`);
      return;
    }
    const weekday = /\((\w{3})\)/.exec(dates[i])?.[1];
    if (weekday !== DAYS[new Date(iso).getUTCDay()]) fail(`${id}: ${dates[i]} is a ${DAYS[new Date(iso).getUTCDay()]}`);
    if (iso <= previous) fail(`${id}: ${dates[i]} is not after the session before`);
    previous = iso;
    const turns = sessions[i];
    if (!Array.isArray(turns) || turns.length < 4 || turns.length > 10) fail(`${id}: ${turns?.length} turns (want 4 to 10)`);
    (turns ?? []).forEach((t, j) => {
      if (t.role !== (j % 2 === 0 ? 'user' : 'assistant')) fail(`${id}#${j}: role ${t.role}, want alternation from user`);
      if (typeof t.content !== 'string' || t.content.trim() === '') fail(`${id}#${j}: empty content`);
      if ('has_answer' in t && t.has_answer !== true) fail(`${id}#${j}: has_answer is only ever true`);
      const extra = Object.keys(t).filter((k) => !['role', 'content', 'has_answer'].includes(k));
      if (extra.length > 0) fail(`${id}#${j}: unknown fields ${extra}`);
    });
    byId.set(id, { iso, turns: turns ?? [] });
  });
  const lastSession = previous;

  // Questions.
  const questions = corpus.questions ?? [];
  const perType = Object.fromEntries(QUESTION_TYPES.map((t) => [t, 0]));
  const cited = new Set();
  const questionIds = new Set();
  for (const q of questions) {
    const where = `question ${q.question_id}`;
    if (questionIds.has(q.question_id)) fail(`${where}: duplicate id`);
    questionIds.add(q.question_id);
    if (!QUESTION_TYPES.includes(q.question_type)) fail(`${where}: type ${q.question_type}`);
    else perType[q.question_type]++;
    for (const field of ['question', 'answer']) {
      if (typeof q[field] !== 'string' || q[field].trim() === '') fail(`${where}: empty ${field}`);
    }
    try {
      const iso = parseHaystackDate(q.question_date);
      const weekday = /\((\w{3})\)/.exec(q.question_date)?.[1];
      if (weekday !== DAYS[new Date(iso).getUTCDay()]) fail(`${where}: ${q.question_date} has the wrong weekday`);
      if (iso <= lastSession) fail(`${where}: asked before the last session`);
    } catch (error) {
      fail(`${where}: ${error.message}`);
    }
    if (!Array.isArray(q.answer_session_ids) || q.answer_session_ids.length === 0) fail(`${where}: no answer_session_ids`);
    for (const sid of q.answer_session_ids ?? []) {
      const s = byId.get(sid);
      if (!s) fail(`${where}: unknown answer session ${sid}`);
      else if (!s.turns.some((t) => t.has_answer)) fail(`${where}: answer session ${sid} has no has_answer turn`);
      cited.add(sid);
    }
    const multi = q.question_type === 'multi-session' || q.question_type === 'knowledge-update';
    if (multi && q.answer_session_ids?.length < 2) fail(`${where}: a ${q.question_type} question cites one session`);
    if (q.question_type.startsWith('single-session') && q.answer_session_ids?.length !== 1) {
      fail(`${where}: a ${q.question_type} question cites ${q.answer_session_ids?.length} sessions`);
    }
    if (q.question_type === 'single-session-assistant') {
      const s = byId.get(q.answer_session_ids?.[0]);
      if (s && !s.turns.some((t) => t.has_answer && t.role === 'assistant')) fail(`${where}: no assistant turn has the answer`);
    }
  }
  for (const [id, s] of byId) {
    if (s.turns.some((t) => t.has_answer) && !cited.has(id)) fail(`${id}: has_answer turns, but no question cites it`);
  }
  for (const [type, n] of Object.entries(perType)) if (n < 12) fail(`${type}: ${n} questions (want 12 or more)`);

  // Extractions: keys of real user turns, every user turn answered, well-formed facts.
  const extractions = corpus.extractions ?? {};
  const order = [];
  for (const [key, answer] of Object.entries(extractions)) {
    const m = /^(.+)#(\d+)$/.exec(key);
    const s = m && byId.get(m[1]);
    if (!s) {
      fail(`extraction ${key}: no such session`);
      continue;
    }
    const index = Number(m[2]);
    if (s.turns[index]?.role !== 'user') {
      fail(`extraction ${key}: turn ${index} is not a user turn`);
      continue;
    }
    if (!answer || !Array.isArray(answer.facts) || Object.keys(answer).length !== 1) {
      fail(`extraction ${key}: want { facts: [...] }`);
      continue;
    }
    for (const f of answer.facts) {
      if (!KEY.test(f.key ?? '')) fail(`extraction ${key}: key ${JSON.stringify(f.key)} is not snake_case`);
      if (f.forget === true) {
        if (Object.keys(f).length !== 2) fail(`extraction ${key}: a forget has only key and forget`);
      } else {
        if (typeof f.value !== 'string' || f.value.trim() === '') fail(`extraction ${key}: ${f.key} has no value`);
        if (!CATEGORIES.has(f.category)) fail(`extraction ${key}: ${f.key} has category ${f.category}`);
        if (Object.keys(f).length !== 3) fail(`extraction ${key}: ${f.key} has fields beyond key, value, category`);
        for (const d of String(f.value).match(/\b\d{4}-\d{2}-\d{2}\b/g) ?? []) {
          if (Number.isNaN(Date.parse(`${d}T00:00:00Z`)) || new Date(`${d}T00:00:00Z`).toISOString().slice(0, 10) !== d) {
            fail(`extraction ${key}: ${f.key} has no date ${d}`);
          }
        }
        if (/\b(yesterday|tomorrow|today|tonight|next|last|ago)\b/i.test(f.value)) {
          fail(`extraction ${key}: ${f.key} has a relative date: ${f.value}`);
        }
      }
    }
    order.push({ iso: s.iso, index, answer });
  }
  for (const [id, s] of byId) {
    s.turns.forEach((t, i) => {
      if (t.role === 'user' && !(`${id}#${i}` in extractions)) fail(`extraction ${id}#${i}: missing`);
    });
  }
  order.sort((a, b) => (a.iso < b.iso ? -1 : a.iso > b.iso ? 1 : a.index - b.index));
  // memcore counts a new category as an update, so a key keeps one category throughout.
  const categories = new Map();
  for (const { answer } of order) {
    for (const f of answer.facts) {
      if (f.forget) continue;
      if (categories.has(f.key) && categories.get(f.key) !== f.category) {
        fail(`${f.key}: category ${f.category}, earlier ${categories.get(f.key)}`);
      }
      categories.set(f.key, f.category);
    }
  }
  const { facts, history, unknownForgets } = replay(order.map((o) => o.answer));
  for (const key of unknownForgets) fail(`extractions forget ${key} while it is not set`);
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const expectedFacts = corpus.expected_facts ?? {};
  for (const key of new Set([...Object.keys(facts), ...Object.keys(expectedFacts)])) {
    if (facts[key] !== expectedFacts[key]) {
      fail(`expected_facts.${key}: ${JSON.stringify(expectedFacts[key])}, the replay gives ${JSON.stringify(facts[key])}`);
    }
  }
  const updates = Object.fromEntries(Object.entries(history).filter(([, values]) => values.length >= 2));
  const expectedUpdates = corpus.expected_updates ?? {};
  for (const key of new Set([...Object.keys(updates), ...Object.keys(expectedUpdates)])) {
    if (!same(updates[key], expectedUpdates[key])) {
      fail(`expected_updates.${key}: ${JSON.stringify(expectedUpdates[key])}, the replay gives ${JSON.stringify(updates[key])}`);
    }
  }

  const turns = [...byId.values()].reduce((n, s) => n + s.turns.length, 0);
  const factsOut = Object.values(extractions).flatMap((a) => a.facts ?? []);
  return {
    problems,
    counts: {
      sessions: ids.length,
      turns,
      userTurns: Object.keys(extractions).length,
      sessionsWithoutFacts: ids.filter((id) => Object.entries(extractions).every(([k, a]) => !k.startsWith(`${id}#`) || a.facts.length === 0)).length,
      questions: questions.length,
      perType,
      extractedFacts: factsOut.filter((f) => !f.forget).length,
      forgets: factsOut.filter((f) => f.forget).length,
      emptyExtractions: Object.values(extractions).filter((a) => a.facts?.length === 0).length,
      expectedFacts: Object.keys(expectedFacts).length,
      expectedUpdates: Object.keys(expectedUpdates).length,
      bytes: JSON.stringify(corpus).length,
    },
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = process.argv[2] ?? fileURLToPath(new URL('./corpus.json', import.meta.url));
  const { problems, counts } = checkCorpus(JSON.parse(await readFile(file, 'utf8')));
  console.log(JSON.stringify(counts, null, 2));
  for (const p of problems) console.error(`problem: ${p}`);
  if (problems.length > 0) {
    console.error(`${problems.length} problem(s) in ${file}`);
    process.exit(1);
  }
  console.log(`${file}: ok`);
}

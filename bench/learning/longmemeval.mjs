// The learning benchmark's loader: our corpus (corpus.json) or a real LongMemEval file
// (longmemeval_s.json, _m, _oracle: a JSON array of instances, each with its own haystack) as one
// shape, and the episodes memcore will store: one per user or assistant message.
//
// Both use LongMemEval's vocabulary: `haystack_session_ids`, `haystack_dates` ("2026/03/02 (Mon)
// 14:10", read as UTC; the weekday is not checked here), `haystack_sessions` (lists of turns
// `{ role, content, has_answer? }`), and questions `{ question_id, question_type, question, answer,
// question_date, answer_session_ids }`. corpus.json holds one haystack shared by every question;
// a LongMemEval instance is one question over its own haystack, and its sessions recur across
// instances — a session id seen again with another date or other turns is kept apart as
// `<id>@<question_id>` (its answer ids renamed alike).

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/**
 * A haystack date as an ISO 8601 UTC string.
 * @param {string} text `YYYY/MM/DD (Ddd) HH:MM` (the weekday optional)
 * @returns {string}
 * @example parseHaystackDate('2026/03/02 (Mon) 14:10') // '2026-03-02T14:10:00.000Z'
 */
export function parseHaystackDate(text) {
  const m = /^(\d{4})\/(\d{2})\/(\d{2})(?: \(\w{3}\))?(?: (\d{2}):(\d{2}))?$/.exec(String(text).trim());
  if (!m) throw new RangeError(`not a haystack date: ${JSON.stringify(text)}`);
  const [, y, mo, d, h = '00', mi = '00'] = m;
  const date = new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi));
  if (date.getUTCMonth() !== +mo - 1 || date.getUTCDate() !== +d || +h > 23 || +mi > 59) {
    throw new RangeError(`not a haystack date: ${JSON.stringify(text)}`);
  }
  return date.toISOString();
}

/** A question in the shape both formats load to. */
function question(q, sessionIds, rename = (id) => id) {
  return {
    id: q.question_id,
    type: q.question_type,
    question: q.question,
    answer: q.answer,
    date: parseHaystackDate(q.question_date),
    answerSessionIds: (q.answer_session_ids ?? []).map(rename),
    // LongMemEval's abstention questions (ids ending in _abs) are left out of retrieval metrics.
    abstention: String(q.question_id).endsWith('_abs'),
    sessionIds,
  };
}

/**
 * Loads corpus.json or a LongMemEval file.
 * @param {string | URL} path
 * @returns {Promise<{
 *   format: 'corpus' | 'longmemeval',
 *   sessions: { id: string, date: string, turns: { role: 'user' | 'assistant', content: string, has_answer?: boolean }[] }[],
 *   questions: { id: string, type: string, question: string, answer: string, date: string, answerSessionIds: string[], abstention: boolean, sessionIds: string[] }[],
 *   corpus?: object,
 * }>} sessions by date (then id); a question's `sessionIds`: its haystack (for corpus.json, every
 *   session dated before the question); `corpus`: corpus.json itself (its extractions and expected facts)
 */
export async function loadCorpus(path) {
  const data = JSON.parse(await readFile(path, 'utf8'));
  return Array.isArray(data) ? fromLongMemEval(data) : fromCorpus(data);
}

/** Sessions of one haystack (`haystack_session_ids`, `haystack_dates`, `haystack_sessions`). */
function haystack(h, where) {
  const ids = h.haystack_session_ids;
  if (!Array.isArray(ids) || ids.length !== h.haystack_dates?.length || ids.length !== h.haystack_sessions?.length) {
    throw new Error(`${where}: haystack_session_ids, haystack_dates and haystack_sessions differ in length`);
  }
  return ids.map((id, i) => ({ id: String(id), date: parseHaystackDate(h.haystack_dates[i]), turns: h.haystack_sessions[i] }));
}

const byDate = (a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function fromCorpus(corpus) {
  const sessions = haystack(corpus, 'corpus').sort(byDate);
  const questions = (corpus.questions ?? []).map((q) => {
    const date = parseHaystackDate(q.question_date);
    return question(q, sessions.filter((s) => s.date <= date).map((s) => s.id));
  });
  return { format: 'corpus', sessions, questions, corpus };
}

function fromLongMemEval(instances) {
  const sessions = [];
  const fingerprints = new Map();
  const questions = instances.map((instance) => {
    const renamed = new Map();
    const ids = haystack(instance, `instance ${instance.question_id}`).map((s) => {
      const fingerprint = createHash('sha1').update(s.date).update(JSON.stringify(s.turns)).digest('hex');
      let id = s.id;
      if (fingerprints.has(id) && fingerprints.get(id) !== fingerprint) id = `${s.id}@${instance.question_id}`;
      if (!fingerprints.has(id)) {
        fingerprints.set(id, fingerprint);
        sessions.push({ ...s, id });
      }
      renamed.set(s.id, id);
      return id;
    });
    return question(instance, ids, (id) => renamed.get(id) ?? id);
  });
  return { format: 'longmemeval', sessions: sessions.sort(byDate), questions };
}

/**
 * The episodes memcore stores for sessions: one per turn, in order.
 * @param {{ id: string, date: string, turns: { role: string, content: string, has_answer?: boolean }[] }[]} sessions
 * @returns {{ sessionId: string, conversationId: string, role: string, text: string, at: string, index: number, hasAnswer: boolean }[]}
 *   `at`: the session's date plus `index` seconds; `index`: the turn's index in its session (an
 *   extraction key of corpus.json is `<sessionId>#<index>` of a user turn)
 * @example episodesOf([{ id: 's01', date: '2026-01-05T19:42:00.000Z', turns: [{ role: 'user', content: 'hi' }] }])
 * // [{ sessionId: 's01', conversationId: 's01', role: 'user', text: 'hi', at: '2026-01-05T19:42:00.000Z', index: 0, hasAnswer: false }]
 */
export function episodesOf(sessions) {
  const out = [];
  for (const s of sessions) {
    const start = Date.parse(s.date);
    s.turns.forEach((turn, index) => {
      out.push({
        sessionId: s.id,
        conversationId: s.id,
        role: turn.role,
        text: String(turn.content ?? ''),
        at: new Date(start + index * 1000).toISOString(),
        index,
        hasAnswer: turn.has_answer === true,
      });
    });
  }
  return out;
}

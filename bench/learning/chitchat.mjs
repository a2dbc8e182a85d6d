// The Chit-Chat Challenge dataset (BYU PCC lab, MIT; PyPI chitchat-dataset 0.9.0, fetched by
// scripts/fetch-chitchat.sh into target/chitchat/) as two-role conversations for the learning
// benchmark: real human small talk, unlabelled, to feed memcore's per-turn learning at volume.
//
// The file maps a conversation id (a UUID) to `{ prompt, ratings, start, messages }`; `messages` is
// a list of groups, each the consecutive utterances `{ text, timestamp, sender }` of one sender
// (speakers alternate between groups). Here a group becomes one message: its first sender is the
// `user`, the other one the `assistant` (both are people; the mapping is per conversation), its
// non-empty utterances joined by a newline, `at` its first utterance's timestamp. A group of empty
// utterances only is dropped and its neighbours, then of one speaker, merged. Conversations are
// ordered by `start`, then id. 3,151 of them are a single unanswered message (one sender);
// `minMessages: 2` leaves those out.
//
// Timestamps: both fields end in `Z`, but in 6,872 of the 7,168 conversations the first
// utterance is six hours (seven after 2018-11-04) behind `start`: US Mountain wall-clock time
// labelled UTC. In 239 (April 2018) they agree; a few dozen differ by hours or days. `at` keeps the
// utterances' times as written (normalised by `toISOString`): the gaps inside a conversation are
// right, its absolute times mostly 6–7 hours off.
//
//   node bench/learning/chitchat.mjs [DIR]   prints the counts

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where scripts/fetch-chitchat.sh puts the dataset (git-ignored). */
export const DEFAULT_DIR = fileURLToPath(new URL('../../target/chitchat/', import.meta.url));

/**
 * The dataset's conversations, two roles alternating.
 * @param {string} [dir] the folder holding dataset.json
 * @param {{ minMessages?: number }} [options] drop conversations with fewer messages (1: keep all;
 *   2: only those with a reply)
 * @returns {Promise<{ id: string, prompt: string | null, start: string, messages: { role: 'user' | 'assistant', text: string, at: string }[] }[]>}
 * @example (await loadChitchat())[0].messages[0] // { role: 'user', text: 'Hi…', at: '2018-…Z' }
 */
export async function loadChitchat(dir = DEFAULT_DIR, { minMessages = 1 } = {}) {
  let raw;
  try {
    raw = await readFile(path.join(dir, 'dataset.json'), 'utf8');
  } catch (error) {
    if (error.code === 'ENOENT') {
      throw new Error(`loadChitchat: no ${path.join(dir, 'dataset.json')}; run scripts/fetch-chitchat.sh`);
    }
    throw error;
  }
  const data = JSON.parse(raw);
  const out = [];
  for (const [id, conversation] of Object.entries(data)) {
    const messages = [];
    let userSender = null;
    for (const group of conversation.messages ?? []) {
      const utterances = group.filter((u) => typeof u.text === 'string' && u.text.trim() !== '');
      if (utterances.length === 0) continue;
      const sender = utterances[0].sender;
      userSender ??= sender;
      const role = sender === userSender ? 'user' : 'assistant';
      const text = utterances.map((u) => u.text.trim()).join('\n');
      const last = messages.at(-1);
      if (last?.role === role) {
        last.text += `\n${text}`;
      } else {
        messages.push({ role, text, at: new Date(utterances[0].timestamp).toISOString() });
      }
    }
    if (messages.length >= minMessages) {
      out.push({ id, prompt: conversation.prompt ?? null, start: new Date(conversation.start).toISOString(), messages });
    }
  }
  return out.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The exchanges of conversations: each user message with the assistant message right after it,
 * what memcore's per-turn learning sees (a last user message without a reply is left out).
 * @param {{ id: string, messages: { role: string, text: string, at: string }[] }[]} conversations
 * @returns {{ conversationId: string, index: number, user: string, assistant: string, at: string }[]}
 *   `index`: the user message's index in its conversation
 */
export function turnsOf(conversations) {
  const turns = [];
  for (const { id, messages } of conversations) {
    for (let i = 0; i + 1 < messages.length; i++) {
      if (messages[i].role === 'user' && messages[i + 1].role === 'assistant') {
        turns.push({ conversationId: id, index: i, user: messages[i].text, assistant: messages[i + 1].text, at: messages[i].at });
      }
    }
  }
  return turns;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const conversations = await loadChitchat(process.argv[2] ?? DEFAULT_DIR);
  const messages = conversations.reduce((n, c) => n + c.messages.length, 0);
  const replied = conversations.filter((c) => c.messages.length >= 2);
  const turns = turnsOf(conversations);
  const lengths = conversations.map((c) => c.messages.length).sort((a, b) => a - b);
  console.log(
    JSON.stringify(
      {
        conversations: conversations.length,
        messages,
        withReply: replied.length,
        messagesWithReply: replied.reduce((n, c) => n + c.messages.length, 0),
        exchanges: turns.length,
        medianMessages: lengths[Math.floor(lengths.length / 2)],
        maxMessages: lengths.at(-1),
        first: conversations[0].start,
        last: conversations.at(-1).start,
      },
      null,
      2,
    ),
  );
}

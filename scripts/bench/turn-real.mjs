// The profile turn on real text, against the leanest competent JS turn and against the project's
// own JS reference (scripts/bench/reference.mjs), side by side in one process, interleaved,
// medians. The profiles are made of messages of the Chit-Chat Challenge dataset (PyPI
// `chitchat-dataset`, MIT; scripts/fetch-chitchat.sh) — sentences nobody here wrote — about 1,800
// tokens each, 64 users. Both sides get the same in-memory storage and an instant model whose
// rewrite changes one line, so every turn writes.
//
// The lean turn does what a competent Node team would write for the same contract and nothing
// more: a per-user promise chain, the gate call, the consolidation call, the answer's checks (the
// six headings in order), a canonical compare with the stored body, the frontmatter (`yaml`), the
// budget (`gpt-tokenizer`'s early-exit `isWithinTokenLimit`, a cut only when over) and the
// conditional write. With `scan`, it redacts secrets with the regular expressions such a team
// would use (key prefixes, JWTs, private keys, `password=`…), as memcore's default profile policy
// (`redact`) scans; without, memcore runs with `secrets: 'allow'` so neither side scans.
//
// Usage: node scripts/bench/turn-real.mjs   (also in `make bench`)
import { readFileSync, existsSync } from 'node:fs';
import YAML from 'yaml';
import { countTokens as gptCount, encode, decode, isWithinTokenLimit } from 'gpt-tokenizer/encoding/o200k_base';
import * as m from 'memcore';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import * as ref from './reference.mjs';
import { compareAsync, fmtTime, printTable } from './harness.mjs';

const DATASET = new URL('../../target/chitchat/dataset.json', import.meta.url);
const NOW = '2026-11-29T10:00:00Z';
const USERS = 64;
const MAX = 2000;
const HEADINGS = m.SECTION_HEADINGS;

/** `users` profiles of real messages, about 1,800 tokens each, every user's different. */
export function realProfiles(users = USERS) {
  if (!existsSync(DATASET)) throw new Error('run scripts/fetch-chitchat.sh first (target/chitchat/dataset.json)');
  const conversations = Object.values(JSON.parse(readFileSync(DATASET, 'utf8')));
  const messages = [];
  for (const c of conversations) for (const turn of c.messages) for (const msg of turn) if (msg.text.trim().length > 20) messages.push(msg.text.trim().replace(/\s+/g, ' '));
  const profiles = [];
  let at = 0;
  for (let u = 0; u < users; u++) {
    const sections = HEADINGS.map(() => []);
    let body = '';
    for (let i = 0; ; i++) {
      sections[i % 6].push(`- ${messages[at++ % messages.length]}`);
      if (i % 12 !== 11) continue;
      body = `# User Memory\n\n${HEADINGS.map((h, s) => `## ${h}\n${sections[s].join('\n')}\n`).join('\n')}`;
      if (gptCount(body) > 1750) break;
    }
    profiles.push(`---\nuser_id: user_${u}\nlast_updated: 2026-11-01T00:00:00+00:00\nturn_count: 3\n---\n\n${body}`);
  }
  return profiles;
}

// ─── The lean JS turn ───────────────────────────────────────────────────────────────────────

const SECRET_PATTERNS = [
  /\b(?:sk|pk|rk)-(?:proj-|live-|test-)?[A-Za-z0-9_-]{20,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  /\b(password|passwd|pwd|secret|api[_-]?key|token)\s*[:=]\s*\S+/gi,
];

function redact(text) {
  let out = text;
  for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, (match, name) => (typeof name === 'string' && match.includes(name) && /[:=]/.test(match) ? `${name}: [redacted]` : '[redacted]'));
  return out;
}

function cut(text, max) {
  if (isWithinTokenLimit(text, max) !== false) return text;
  const marker = '\n\n<!-- truncated to fit memory budget -->';
  return `${decode(encode(text).slice(0, max - gptCount(marker)))}${marker}`;
}

function split(text) {
  if (!text.startsWith('---\n')) return { head: {}, body: text };
  const end = text.indexOf('\n---\n', 3);
  return end === -1 ? { head: {}, body: text } : { head: YAML.parse(text.slice(4, end)) ?? {}, body: text.slice(end + 5).replace(/^\n+/, '') };
}

const canonical = (body) => body.split('\n').map((l) => l.trimEnd()).filter((l) => l !== '').join('\n');

function wellFormed(body) {
  let next = 0;
  for (const line of body.split('\n')) {
    if (!line.startsWith('## ')) continue;
    if (line.slice(3).trim() !== HEADINGS[next]) return false;
    next++;
  }
  return next === HEADINGS.length;
}

export class LeanContextMemory {
  constructor({ storage, model, now }, { maxTokens = MAX, prompts, scan = false }) {
    Object.assign(this, { storage, model, now, maxTokens, prompts, scan, chains: new Map() });
  }

  async load({ userId }) {
    const stored = await this.storage.read(`user-memory/${userId}/memory.md`);
    if (!stored) return { systemPromptSection: '' };
    return { systemPromptSection: `${this.prompts.sectionHead}${split(cut(stored.text, this.maxTokens)).body}` };
  }

  afterTurn(turn) {
    const previous = this.chains.get(turn.userId) ?? Promise.resolve();
    const next = previous.then(() => this.#turn(turn));
    this.chains.set(turn.userId, next.catch(() => {}));
    return next;
  }

  async #turn({ userId, userMessage, assistantMessage }) {
    const path = `user-memory/${userId}/memory.md`;
    const stored = await this.storage.read(path);
    const { head, body } = split(stored ? stored.text : '');
    const exchange = `<user_message>\n${userMessage}\n</user_message>\n\n<assistant_message>\n${assistantMessage}\n</assistant_message>`;
    const profile = `<current_profile>\n${body}\n</current_profile>`;
    const gate = await this.model.complete({ purpose: 'gate', system: this.prompts.gate, user: `${profile}\n\n${exchange}`, maxOutputTokens: 4 });
    if (gate.trim().toUpperCase() !== 'UPDATE') return { outcome: 'gate-noop' };
    const answer = await this.model.complete({ purpose: 'consolidate', system: this.prompts.consolidate, user: `Current time: ${this.now()}\n\n${profile}\n\n${exchange}`, maxOutputTokens: this.maxTokens + 200 });
    let candidate = answer.trim();
    if (/^noop\.?$/i.test(candidate)) return { outcome: 'model-noop' };
    if (!wellFormed(candidate)) return { outcome: 'invalid-output' };
    if (this.scan) candidate = redact(candidate);
    if (canonical(candidate) === canonical(body)) return { outcome: 'unchanged' };
    const frontmatter = YAML.stringify({ ...head, user_id: userId, last_updated: `${this.now().slice(0, 19)}+00:00`, turn_count: (head.turn_count ?? 0) + 1 });
    const text = cut(`---\n${frontmatter}---\n\n${candidate}\n`, this.maxTokens);
    await this.storage.write(path, text, { ifVersion: stored?.version ?? null, ifAbsent: !stored });
    return { outcome: 'updated' };
  }
}

/** The table's columns. */
export const REAL_TURN_HEADER = ['work', 'memcore', 'lean JS turn', 'lean ÷ memcore', 'project reference', 'reference ÷ memcore'];

// ─── The rows ───────────────────────────────────────────────────────────────────────────────

export async function realTurnRows() {
  // 512 users for the rotation memcore's count memo cannot hold (about 3.8 MB of profiles); the
  // first 64 of them for the rotation it holds and for the single user.
  const profiles = realProfiles(512);
  const users = profiles.map((_, i) => `user_${i}`);
  const files = () => Object.fromEntries(users.map((u, i) => [`user-memory/${u}/memory.md`, profiles[i]]));
  // The prompts both JS turns send: memcore's own, so every side sends the same bytes.
  const probe = [];
  await new m.ContextMemory({ storage: new InMemoryProfileStorage({ files: files() }), model: (r) => (probe.push(r), r.purpose === 'gate' ? 'UPDATE' : 'NOOP') }).afterTurn({ userId: users[0], enabled: true, userMessage: 'u', assistantMessage: 'a' });
  const section = m.memorySystemPromptSection(profiles[0]);
  const prompts = { gate: probe[0].system, consolidate: probe[1].system, sectionHead: section.slice(0, section.indexOf('# User Memory')) };
  // The model rewrites one line of the profile it was shown (a new count each time).
  let flip = 0;
  const model = {
    complete: (r) => {
      if (r.purpose === 'gate') return 'UPDATE';
      const shown = /<current_profile>\n([\s\S]*?)\n<\/current_profile>/.exec(r.user)[1];
      const at = shown.indexOf('\n- ', shown.indexOf('## Recent Topics'));
      return `${shown.slice(0, at)}\n- Asked about the weekend plans (${flip++})${shown.slice(shown.indexOf('\n', at + 1))}`;
    },
  };
  const turn = { enabled: true, userMessage: 'What should I cook tonight? Something quick, I got home late.', assistantMessage: 'A vegetable stir-fry takes fifteen minutes.' };
  const sides = (scan) => ({
    memcore: new m.ContextMemory({ storage: new InMemoryProfileStorage({ files: files() }), model, now: () => NOW }, { maxTokens: MAX, secrets: scan ? 'redact' : 'allow' }),
    lean: new LeanContextMemory({ storage: new InMemoryProfileStorage({ files: files() }), model, now: () => NOW }, { maxTokens: MAX, prompts, scan }),
    reference: new ref.ReferenceContextMemory({ storage: new InMemoryProfileStorage({ files: files() }), model, now: () => NOW }, { maxTokens: MAX, prompts }),
  });
  // The same work first: one turn on each side writes the same body.
  {
    const stores = [new InMemoryProfileStorage({ files: files() }), new InMemoryProfileStorage({ files: files() })];
    const memcore = new m.ContextMemory({ storage: stores[0], model, now: () => NOW }, { maxTokens: MAX, secrets: 'allow' });
    const lean = new LeanContextMemory({ storage: stores[1], model, now: () => NOW }, { maxTokens: MAX, prompts });
    for (const side of [memcore, lean]) await side.afterTurn({ ...turn, userId: users[1] });
    const written = await Promise.all(stores.map(async (store) => split((await store.read(`user-memory/${users[1]}/memory.md`)).text).body));
    const same = (body) => canonical(body.replace(/ \(\d+\)/g, ''));
    if (same(written[0]) !== same(written[1])) throw new Error('memcore and the lean turn wrote different bodies');
  }
  const run = (side, pick) => {
    let i = 0;
    return async () => {
      const userId = pick(i++);
      await side.load({ userId, enabled: true });
      const report = await side.afterTurn({ ...turn, userId });
      if (report.outcome !== 'updated') throw new Error(`a bench turn must write: ${report.outcome}`);
    };
  };
  const rows = [];
  const tokens = Math.round(profiles.slice(0, USERS).reduce((n, p) => n + m.countTokens(p), 0) / USERS);
  const rotations = [
    [`64 users in rotation (${tokens}-token profiles of real messages)`, (i) => users[i % USERS]],
    ['512 users in rotation (more profiles than memcore\'s count memo holds: each load counts afresh)', (i) => users[i % users.length]],
    ['one user, turn after turn', () => users[0]],
  ];
  for (const [label, pick] of rotations) {
    for (const scan of [false, true]) {
      const s = sides(scan);
      const [tMem, tLean, tRef] = await compareAsync([{ fn: run(s.memcore, pick) }, { fn: run(s.lean, pick) }, { fn: run(s.reference, pick) }], { rounds: 11, ms: 300 });
      rows.push([
        `load + afterTurn, ${label}, ${scan ? 'secrets scanned on both sides (memcore: redact; lean JS: regular expressions)' : 'no secret scan on either side'}`,
        fmtTime(tMem), fmtTime(tLean), `${(tLean / tMem).toFixed(2)}×`, fmtTime(tRef), `${(tRef / tMem).toFixed(2)}×`,
      ]);
    }
  }
  return rows;
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  printTable(REAL_TURN_HEADER, await realTurnRows());
}

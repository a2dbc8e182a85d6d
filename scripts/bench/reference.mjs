// The reference memcore is measured against: what a competent Node team would write for the same
// jobs, with `yaml` for the frontmatter and `gpt-tokenizer` for exact o200k counts. Nothing here is
// handicapped: regular expressions are compiled once, ISO timestamps are compared as strings (they
// are all canonical UTC `…Z` here, which is how such a team would store them), arrays are
// filtered, sorted and sliced with the built-ins, budget checks use gpt-tokenizer's early-exit
// `isWithinTokenLimit`. Each function states the rules it implements; where memcore does more (its
// diagnostics, heading variants, stray content, duplicate sections, condensing), the reference does
// not, so it is if anything faster than a feature-equal JS implementation would be.
import YAML from 'yaml';
import { countTokens, isWithinTokenLimit } from 'gpt-tokenizer/encoding/o200k_base';

export { countTokens };
export const HEADINGS = ['Identity', 'Communication Preferences', 'Work Context', 'Skills & Expertise', 'Recent Topics', 'Follow-ups'];
export const MARKER = '\n\n<!-- truncated to fit memory budget -->';
const HEADING_INDEX = new Map(HEADINGS.map((h, i) => [h, i]));
const FENCE = /^\s{0,3}(```|~~~)/;

// ─── Profile format ──────────────────────────────────────────────────────────────────────────

/**
 * Rules: a BOM and CRLF/CR line ends are normalised; a leading `---` … `---` block is the YAML
 * frontmatter (`yaml`; broken YAML reads as empty); the body is split on the six `## ` headings
 * written exactly, any other `## ` heading is demoted to `### ` inside the current section, `# `
 * titles are dropped, fenced code blocks are kept verbatim; section lines are right-trimmed, blank
 * runs collapse, `_(empty)_` is dropped, leading/trailing blank lines go.
 */
export function parseProfile(input) {
  let text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
  let frontmatter = {};
  let body = text;
  if (text.startsWith('---\n')) {
    const end = text.indexOf('\n---\n', 3);
    if (end !== -1) {
      try {
        frontmatter = YAML.parse(text.slice(4, end)) ?? {};
      } catch {
        frontmatter = {};
      }
      body = text.slice(end + 5);
    }
  }
  const sections = HEADINGS.map((heading) => ({ heading, lines: [] }));
  let current = null;
  let fenced = false;
  for (const raw of body.split('\n')) {
    const line = raw.trimEnd();
    if (FENCE.test(line)) {
      fenced = !fenced;
      current?.lines.push(line);
      continue;
    }
    if (!fenced && line.startsWith('## ')) {
      const heading = line.slice(3).trim();
      const index = HEADING_INDEX.get(heading);
      if (index !== undefined) current = sections[index];
      else current?.lines.push(`### ${heading}`);
      continue;
    }
    if (!fenced && line.startsWith('# ')) continue;
    current?.lines.push(line);
  }
  for (const section of sections) section.lines = cleanLines(section.lines);
  return { frontmatter, sections };
}

function cleanLines(lines) {
  const out = [];
  for (const line of lines) {
    if (line === '_(empty)_') continue;
    if (line === '' && (out.length === 0 || out[out.length - 1] === '')) continue;
    out.push(line);
  }
  while (out.length && out[out.length - 1] === '') out.pop();
  return out;
}

/** The body: `# User Memory`, the six sections with `_(empty)_`, one blank line between blocks. */
export function renderBody(sections) {
  return `# User Memory\n\n${sections.map((s) => `## ${s.heading}\n${s.lines.length ? s.lines.join('\n') : '_(empty)_'}`).join('\n\n')}\n`;
}

/** Rules: the known keys first (`schema_version` always 1), unknown keys after; then the body. */
export function renderProfile({ frontmatter, sections }) {
  const { user_id, schema_version, last_updated, turn_count, ...extra } = frontmatter;
  const known = {};
  if (user_id !== undefined) known.user_id = user_id;
  known.schema_version = 1;
  if (last_updated !== undefined) known.last_updated = last_updated;
  known.turn_count = Number.isInteger(turn_count) ? turn_count : 0;
  return `---\n${YAML.stringify({ ...known, ...extra })}---\n\n${renderBody(sections)}`;
}

/** The text after the frontmatter block. */
export function bodyOf(text) {
  if (!text.startsWith('---\n')) return text;
  const end = text.indexOf('\n---\n', 3);
  return end === -1 ? text : text.slice(end + 5).replace(/^\n+/, '');
}

// ─── Budget ─────────────────────────────────────────────────────────────────────────────────

/**
 * The hard cut (SPEC §1.5): whole lines from the top while each line's count (with its newline)
 * fits in `max − tokens(marker)`, right-trimmed, then the marker; the result is counted and lines
 * are dropped from the end while it is over (BPE is not additive). Text within budget is returned
 * as is.
 */
export function hardCut(text, max) {
  if (isWithinTokenLimit(text, max) !== false) return text;
  const budget = max - countTokens(MARKER);
  const kept = [];
  let spent = 0;
  for (const line of text.split('\n')) {
    const cost = countTokens(`${line}\n`);
    if (spent + cost > budget) break;
    spent += cost;
    kept.push(line);
  }
  let out = `${kept.join('\n').trimEnd()}${MARKER}`;
  while (kept.length && isWithinTokenLimit(out, max) === false) {
    kept.pop();
    out = `${kept.join('\n').trimEnd()}${MARKER}`;
  }
  return out;
}

// ─── The turn ───────────────────────────────────────────────────────────────────────────────

const sanitise = (text) => text.replaceAll('</', '< /');
const USER_ID = /^[^/\\\x00-\x1f]{1,255}$/;

/**
 * Profile memory as a JS team would build it on the same hosts: `load` reads, cuts to budget and
 * builds the system-prompt section; `afterTurn` reads, cuts, asks the gate, asks for the rewrite
 * (same system prompts as memcore's, passed in), normalises and checks the answer (six headings in
 * order), compares canonical bodies, writes a new frontmatter (`yaml`) with turn_count + 1, cuts to
 * budget and writes conditionally on the version read.
 */
export class ReferenceContextMemory {
  constructor({ storage, model, now }, { maxTokens = 2000, prompts }) {
    Object.assign(this, { storage, model, now, maxTokens, prompts });
  }

  async load({ userId, enabled }) {
    if (!enabled) return { outcome: 'disabled', systemPromptSection: '' };
    if (!USER_ID.test(userId) || userId === '.' || userId === '..') return { outcome: 'no-memory', systemPromptSection: '' };
    const stored = await this.storage.read(`user-memory/${userId}/memory.md`);
    if (!stored) return { outcome: 'no-profile', systemPromptSection: '' };
    const text = hardCut(stored.text, this.maxTokens);
    return { outcome: 'loaded', profile: text, systemPromptSection: `${this.prompts.sectionHead}${bodyOf(text)}` };
  }

  async afterTurn({ userId, enabled, userMessage, assistantMessage }) {
    if (!enabled) return { outcome: 'disabled' };
    if (!USER_ID.test(userId)) return { outcome: 'no-memory' };
    const path = `user-memory/${userId}/memory.md`;
    const stored = await this.storage.read(path);
    const current = stored ? hardCut(stored.text, this.maxTokens) : '';
    const body = bodyOf(current);
    const exchange = `<user_message>\n${sanitise(userMessage.trim())}\n</user_message>\n\n<assistant_message>\n${sanitise(assistantMessage.trim())}\n</assistant_message>`;
    const profileBlock = `<current_profile>\n${sanitise(body.trimEnd())}\n</current_profile>`;
    const gate = await this.model.complete({ purpose: 'gate', system: this.prompts.gate, user: `${profileBlock}\n\n${exchange}\n\nOne word: UPDATE or NOOP.`, maxOutputTokens: 4 });
    if (/^noop/i.test(gate.trim())) return { outcome: 'gate-noop' };
    const now = new Date(this.now());
    const stamp = `${now.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
    const answer = await this.model.complete({
      purpose: 'consolidate',
      system: this.prompts.consolidate,
      user: `Current time: ${stamp}\n\n${profileBlock}\n\n${exchange}\n\nAnswer NOOP or the complete updated profile.`,
      maxOutputTokens: this.maxTokens + 200,
    });
    if (/^noop\.?$/i.test(answer.trim())) return { outcome: 'model-noop' };
    const candidate = normalise(answer);
    if (!wellFormed(candidate)) return { outcome: 'invalid-output' };
    const next = parseProfile(candidate);
    if (renderBody(next.sections) === renderBody(parseProfile(body).sections)) return { outcome: 'unchanged' };
    const frontmatter = stored ? parseProfile(stored.text).frontmatter : {};
    const text = renderProfile({
      frontmatter: { ...frontmatter, user_id: userId, last_updated: `${now.toISOString().slice(0, 19)}+00:00`, turn_count: (frontmatter.turn_count ?? 0) + 1 },
      sections: next.sections,
    });
    await this.storage.write(path, hardCut(text, this.maxTokens), { ifVersion: stored?.version ?? null, ifAbsent: !stored, contentType: 'text/markdown', skipIngestion: true, hideInChat: true });
    return { outcome: 'updated' };
  }
}

/** SPEC §1.6: trim, unwrap a code fence, drop a frontmatter block, make sure of the title. */
export function normalise(raw) {
  let text = raw.replace(/\r\n?/g, '\n').trim();
  const fence = /^(```|~~~)[^\n]*\n([\s\S]*)\n\1\s*$/.exec(text);
  if (fence) text = fence[2].trim();
  if (text.startsWith('---\n')) text = bodyOf(text).trim();
  if (/^# user memory\s*$/im.test(text.split('\n', 1)[0])) text = text.slice(text.indexOf('\n') + 1).trim();
  return `# User Memory\n\n${text}\n`;
}

/** The six `## ` headings exactly, in order, and no other (outside code fences). */
export function wellFormed(body) {
  const found = [];
  let fenced = false;
  for (const line of body.split('\n')) {
    if (FENCE.test(line)) fenced = !fenced;
    else if (!fenced && line.startsWith('## ')) found.push(line.slice(3).trimEnd());
  }
  return found.length === 6 && found.every((h, i) => h === HEADINGS[i]);
}

// ─── Entries ────────────────────────────────────────────────────────────────────────────────

const valueText = (v) => (typeof v === 'string' ? v : JSON.stringify(v));
const line = (e) => `• ${e.key} = ${valueText(e.value)} [${e.category}, ${e.visibility}]`;

/** Visible to `agentId` in `group` (SPEC §2.4): global, the agent's own self, group entries of the group; never `_gdpr_`. */
export const visible = (e, agentId, group) =>
  !e.key.startsWith('_gdpr_') &&
  (e.visibility === 'global' || (e.visibility === 'self' ? e.sourceAgentId === agentId : e.visibility === 'group' && group != null && e.groupIds.includes(group)));

/** Most recent first (ISO strings compared as strings), ties by id. */
export const byRecency = (a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** `recallMemories`: visible entries, most recent first, the first `limit`, formatted; their access counts go up. */
export function recall(entries, agentId, group, limit = 50) {
  const chosen = entries.filter((e) => visible(e, agentId, group)).sort(byRecency).slice(0, limit);
  for (const e of chosen) e.accessCount += 1;
  return chosen.length ? chosen.map(line).join('\n') : 'No memories found for this user.';
}

const TERMS = /[^\p{L}\p{N}]+/u;

/** `searchMemory`: every term (split on non-letters/digits, lowercased) in the lowercased key or value; recall order and limit. */
export function search(entries, agentId, group, query, limit = 50) {
  const terms = query.split(TERMS).filter(Boolean).map((t) => t.toLowerCase());
  if (!terms.length) return `No memories matching '${query}' found.`;
  const hits = entries
    .filter((e) => {
      if (!visible(e, agentId, group)) return false;
      const key = e.key.toLowerCase();
      const value = valueText(e.value).toLowerCase();
      return terms.every((t) => key.includes(t) || value.includes(t));
    })
    .sort(byRecency)
    .slice(0, limit);
  return hits.length ? hits.map(line).join('\n') : `No memories matching '${query}' found.`;
}

// The profile transport (src/wasm/profile.rs).
// A profile's lines are most of its bytes. `parseProfile` answers each line as its [start, end)
// in the text JS sent, and `renderProfile` sends the lines as one text and is answered with
// positions in it, so the text crosses once each way and is never decoded back: decoding
// non-ASCII UTF-8 costs 7 µs for a 6 KB profile, the slices under 1 µs (README, "Measured").
// Conversion only; every rule is in the core.
import { SECTION_HEADINGS } from '../constants.js';
import { check, MAX_TEXT_LENGTH } from './arguments.js';

/** `parseProfile`'s answer, with its six sections' lines rebuilt from their positions in `text`. */
export function profileFromWire(text, out) {
  const wire = JSON.parse(out);
  const sections = new Array(wire.lines.length);
  // The first `\n` at or after `searched` is at `next` (Infinity: none): a search from a
  // position in [searched, next] needs no scan. Runs come in text order within a section, so
  // each character is scanned about once — a text whose lines end in `\r` has no `\n` to stop
  // a search, and searching from every line's start was quadratic there.
  let searched = Infinity;
  let next = -1;
  const newlineFrom = (from) => {
    if (from < searched || from > next) {
      searched = from;
      const at = text.indexOf('\n', from);
      next = at === -1 ? Infinity : at;
    }
    return next;
  };
  for (let s = 0; s < sections.length; s++) {
    const runs = wire.lines[s];
    const lines = [];
    for (let i = 0; i < runs.length; i++) {
      const item = runs[i];
      if (typeof item === 'string') {
        lines.push(item);
        continue;
      }
      const end = runs[++i];
      for (let from = item; ; ) {
        const at = newlineFrom(from);
        if (at >= end) {
          lines.push(text.slice(from, end));
          break;
        }
        lines.push(text.slice(from, at));
        from = at + 1;
      }
    }
    sections[s] = { heading: SECTION_HEADINGS[s], lines };
  }
  return { frontmatter: wire.frontmatter, title: wire.title, sections, diagnostics: wire.diagnostics };
}

/**
 * A profile for `renderProfileLines`: `{ head, text, counts, ranges }` — `frontmatter` and
 * `title` as JSON; each section's heading and lines as one text, each followed by `\n`; each
 * section's number of lines; and where each section's lines are in `text` ([start, end) pairs).
 * `undefined` when it is not plain data of that shape (a getter throws, a `toJSON`, a line that
 * is not a string, anything `json` refuses): it then goes as JSON, whose checks say what is
 * wrong.
 */
export function profileToWire(profile) {
  try {
    if (!plainObject(profile)) return undefined;
    const head = {};
    // Concatenation builds a rope that the encoder reads once; `join` would copy it first.
    let text = '';
    let counts = [];
    let ranges = [];
    for (const key of Object.keys(profile)) {
      const value = profile[key];
      if (key !== 'sections') {
        check(value, key, new Set());
        if (key === 'frontmatter' || key === 'title') head[key] = value;
        continue;
      }
      if (!Array.isArray(value) || typeof value.toJSON === 'function') return undefined;
      counts = new Array(value.length);
      ranges = new Array(2 * value.length);
      for (let i = 0; i < value.length; i++) {
        const section = value[i];
        if (!plainObject(section)) return undefined;
        let heading;
        let lines = [];
        for (const name of Object.keys(section)) {
          const field = section[name];
          if (name === 'heading') heading = field;
          else if (name === 'lines') lines = field === undefined ? [] : field;
          else check(field, name, new Set());
        }
        if (typeof heading !== 'string' || !Array.isArray(lines) || typeof lines.toJSON === 'function') return undefined;
        text += heading;
        text += '\n';
        ranges[2 * i] = text.length;
        for (let j = 0; j < lines.length; j++) {
          const line = lines[j];
          if (typeof line !== 'string') return undefined;
          text += line;
          text += '\n';
        }
        ranges[2 * i + 1] = text.length;
        counts[i] = lines.length;
      }
    }
    if (text.length > MAX_TEXT_LENGTH) return undefined;
    return { head: JSON.stringify(head), text, counts, ranges };
  } catch {
    return undefined;
  }
}

function plainObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && typeof value.toJSON !== 'function';
}

/** `renderProfileLines`' answer (strings, and section numbers) as the rendered text. */
export function piecesFromWire(wire, out) {
  const pieces = JSON.parse(out);
  let text = '';
  for (const piece of pieces) {
    text += typeof piece === 'string' ? piece : wire.text.slice(wire.ranges[2 * piece], wire.ranges[2 * piece + 1]);
  }
  return text;
}

// The profile transport (src/wasm/profile.rs).
// A profile's lines are most of its bytes. `parseProfile` answers each line as its [start, end)
// in the text JS sent, and `renderProfile` sends the lines as one text and is answered with
// positions in it, so the text crosses once each way and is never decoded back: decoding
// non-ASCII UTF-8 costs 7 µs for a 6 KB profile, the slices under 1 µs (README, "Measured").
//
// `parseProfile` also says which sections' lines are canonical (the core's check). JS marks
// the line arrays it built for those with a copy of their contents (`KnownLines`); when
// `renderProfile` meets one of those arrays again holding exactly the same strings, it sends
// only the count — the core needs neither the text nor a second check — and writes the lines
// from the copy it compared. Rendering a parsed profile after editing one section sends that
// section only.
// Conversion only; every rule is in the core.
import { SECTION_HEADINGS } from '../constants.js';
import { check, MAX_TEXT_LENGTH } from './arguments.js';

// The base class's constructor returns the object it is given, so `new KnownLines(lines, …)` adds
// a private field to an array we just built: invisible to the host (no key, no symbol —
// `deepStrictEqual`, `structuredClone`, JSON and spread never see it), unforgeable, and it goes
// with the array through immutable-update code exactly as a WeakMap entry keyed by the array
// would. Measured against that WeakMap (`{ copy, joined }` per section, 6 sections): 0.23 µs
// against 2.9 µs per parse, most of it the garbage collector's ephemeron work. A bundler that
// lowers private fields for old targets turns this back into a WeakMap: slower, the same answers.
class ReturnsItsArgument {
  constructor(object) {
    return object;
  }
}

/**
 * A line array `parseProfile` returned whose lines the core found canonical carries
 * `{ copy, joined }`: its contents then, and (when known) those lines joined by `\n`.
 */
class KnownLines extends ReturnsItsArgument {
  #known;
  constructor(lines, known) {
    super(lines);
    this.#known = known;
  }
  /** What `lines` carries, or `undefined` (any other value, array or not). */
  static of(lines) {
    return #known in lines ? lines.#known : undefined;
  }
}

/** Work counters for `memcore/testing`: lines `renderProfile` sent, and lines it reused as known. */
export const transportCounters = { linesSent: 0, linesKnown: 0 };

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
    if (s < 32 && (wire.canonical >>> s) & 1) {
      // One run: the lines joined by `\n` are that slice of `text` already.
      const joined = runs.length === 2 && typeof runs[0] === 'number' ? text.slice(runs[0], runs[1]) : undefined;
      new KnownLines(lines, { copy: lines.slice(), joined });
    }
    sections[s] = { heading: SECTION_HEADINGS[s], lines };
  }
  return { frontmatter: wire.frontmatter, title: wire.title, sections, diagnostics: wire.diagnostics };
}

/**
 * A profile for `renderProfileLines`: `{ head, text, counts, ranges, known, knownBits }` —
 * `frontmatter` and `title` as JSON; each section's heading and lines as one text, each followed
 * by `\n`; each section's number of lines; and where each section's lines are in `text`
 * ([start, end) pairs). With `reuse`, a section whose lines array `parseProfile` returned as
 * canonical and which holds exactly the same strings has only its heading in `text`: its bit is
 * set in `knownBits` and `known[i]` holds the copy compared, which the answer's pieces are
 * written from. `undefined` when it is not plain data of that shape (a getter throws, a `toJSON`, a line
 * that is not a string, anything `json` refuses): it then goes as JSON, whose checks say what is
 * wrong.
 */
export function profileToWire(profile, reuse = true) {
  try {
    if (!plainObject(profile)) return undefined;
    const head = {};
    // Concatenation builds a rope that the encoder reads once; `join` would copy it first.
    let text = '';
    let counts = [];
    let ranges = [];
    let known = [];
    let knownBits = 0;
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
      known = new Array(value.length);
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
        const parsed = reuse && i < 32 ? KnownLines.of(lines) : undefined;
        if (parsed !== undefined && sameLines(lines, parsed.copy)) {
          known[i] = parsed;
          knownBits |= 1 << i;
          ranges[2 * i + 1] = text.length;
          counts[i] = parsed.copy.length;
          transportCounters.linesKnown += parsed.copy.length;
          continue;
        }
        transportCounters.linesSent += lines.length;
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
    return { head: JSON.stringify(head), text, counts, ranges, known, knownBits: knownBits >>> 0 };
  } catch {
    return undefined;
  }
}

/** Whether `lines` holds exactly the strings of `copy` (each element read once). */
function sameLines(lines, copy) {
  if (lines.length !== copy.length) return false;
  for (let j = 0; j < copy.length; j++) if (lines[j] !== copy[j]) return false;
  return true;
}

function plainObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && typeof value.toJSON !== 'function';
}

/** `renderProfileLines`' answer (strings, and section numbers) as the rendered text. */
export function piecesFromWire(wire, out) {
  const pieces = JSON.parse(out);
  let text = '';
  for (const piece of pieces) {
    if (typeof piece === 'string') text += piece;
    else if (wire.known[piece] !== undefined) {
      const { copy, joined } = wire.known[piece];
      text += joined ?? copy.join('\n');
      text += '\n';
    } else text += wire.text.slice(wire.ranges[2 * piece], wire.ranges[2 * piece + 1]);
  }
  return text;
}

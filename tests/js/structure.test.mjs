// The tree keeps its shape (HACKING.md, "Layout"): no source file past 700 lines apart from data
// tables, no import circle among the package's JS modules, and no circle among the core's Rust
// modules — a module may use its ancestors and descendants, never a module that (through others)
// uses it back. Reads the repository's tracked files; nothing is built.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const tracked = (...paths) => execFileSync('git', ['ls-files', ...paths], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
const read = (file) => readFileSync(join(ROOT, file), 'utf8');

/** The most lines a source file may have. */
const MAX_LINES = 700;
/** Files that are data, not code (a table's length is its content's). */
const DATA_TABLES = new Set([]);

/** The strongly connected components with more than one node of `graph` (Map node → nodes). */
export function circles(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** Each component with the edges inside it, for a failure message. */
function describe(graph, components, name = (v) => v) {
  return components.map((c) => c.flatMap((a) => [...(graph.get(a) ?? [])].filter((b) => c.includes(b)).map((b) => `${name(a)} → ${name(b)}`)).join(', ')).join('\n');
}

test(`no source file is longer than ${MAX_LINES} lines (data tables apart)`, () => {
  const long = tracked('src', 'wasm', 'js')
    .filter((f) => /\.(rs|js|mjs|ts)$/.test(f) && !DATA_TABLES.has(f))
    .map((f) => [f, read(f).split('\n').length - 1])
    .filter(([, lines]) => lines > MAX_LINES);
  assert.deepEqual(long, [], `split these along their seams: ${long.map(([f, n]) => `${f} (${n})`).join(', ')}`);
});

test('no import circle among the JS modules of the package', () => {
  const files = tracked('js').filter((f) => /\.m?js$/.test(f));
  const known = new Set(files);
  const graph = new Map();
  for (const file of files) {
    const text = read(file);
    const targets = [
      ...text.matchAll(/^\s*(?:import|export)\s[^'";]*?\sfrom\s*['"](\.{1,2}\/[^'"]+)['"]/gm),
      ...text.matchAll(/^\s*import\s*['"](\.{1,2}\/[^'"]+)['"]/gm),
    ].map((m) => normalize(join(dirname(file), m[1])));
    graph.set(file, new Set(targets.filter((t) => known.has(t))));
  }
  assert.ok([...graph.values()].some((deps) => deps.size > 0), 'the import scan finds imports');
  const found = circles(graph);
  assert.deepEqual(found, [], `import circles:\n${describe(graph, found)}`);
});

// ---- the core's modules --------------------------------------------------------------------------

/** The module path of a Rust file under src/ (`src/entries/history/mod.rs` → `entries::history`). */
function modulePath(file) {
  const parts = file.slice('src/'.length, -'.rs'.length).split('/');
  if (parts.at(-1) === 'mod' || parts.at(-1) === 'lib') parts.pop();
  return parts.join('::');
}

/** Every path a `use` tree names: `a::{b, c::{d, e as f}}` → `a::b`, `a::c::d`, `a::c::e`. */
function useTree(prefix, tree) {
  const body = tree.trim();
  if (body.startsWith('{') && body.endsWith('}')) {
    const parts = [];
    let depth = 0;
    let current = '';
    for (const ch of body.slice(1, -1)) {
      if (ch === '{') depth += 1;
      if (ch === '}') depth -= 1;
      if (ch === ',' && depth === 0) {
        parts.push(current);
        current = '';
      } else {
        current += ch;
      }
    }
    parts.push(current);
    return parts.filter((p) => p.trim() !== '').flatMap((p) => useTree(prefix, p));
  }
  const at = body.indexOf('::');
  if (at >= 0 && !body.slice(0, at).includes('{')) return useTree([...prefix, body.slice(0, at).trim()], body.slice(at + 2));
  return [[...prefix, body.split(/\s+as\s+/)[0].trim()]];
}

test('no circle among the core\'s Rust modules (a module uses its ancestors and descendants freely)', () => {
  const files = tracked('src').filter((f) => f.endsWith('.rs'));
  const modules = new Set(files.map(modulePath));
  const resolve = (current, path) => {
    let base;
    let rest = path;
    if (rest[0] === 'crate') {
      base = [];
      rest = rest.slice(1);
    } else if (rest[0] === 'self') {
      base = current.split('::').filter(Boolean);
      rest = rest.slice(1);
    } else if (rest[0] === 'super') {
      base = current.split('::').filter(Boolean);
      while (rest[0] === 'super') {
        base = base.slice(0, -1);
        rest = rest.slice(1);
      }
    } else {
      return null;
    }
    const full = [...base, ...rest];
    for (let k = full.length; k >= 0; k -= 1) if (modules.has(full.slice(0, k).join('::'))) return full.slice(0, k).join('::');
    return null;
  };
  const related = (a, b) => a === b || a === '' || b === '' || b.startsWith(`${a}::`) || a.startsWith(`${b}::`);
  const graph = new Map();
  for (const file of files) {
    const current = modulePath(file);
    const code = read(file)
      .replace(/\/\/[^\n]*/g, '') // comments (doc links name modules without using them)
      .replace(/"(?:[^"\\]|\\.)*"/g, '""') // strings
      .replace(/#\[cfg\(test\)\]\s*mod tests\s*\{[\s\S]*$/, ''); // unit tests
    const named = new Set();
    for (const m of code.matchAll(/\buse\s+((?:crate|super|self)::[^;]*);/g)) {
      for (const path of useTree([], m[1])) named.add(resolve(current, path));
    }
    for (const m of code.matchAll(/\b((?:crate|super)(?:::\w+)+)/g)) named.add(resolve(current, m[1].split('::')));
    graph.set(current, new Set([...named].filter((n) => n !== null && !related(current, n))));
  }
  assert.ok(graph.get('entries::memories')?.has('entries::store'), 'the module scan sees uses');
  const found = circles(graph);
  assert.deepEqual(found, [], `module circles:\n${describe(graph, found)}`);
});

test('HACKING.md says how much of the Rust is binding as scripts/loc.mjs counts it today', () => {
  const sentence = execFileSync(process.execPath, [join(ROOT, 'scripts/loc.mjs'), '--hacking'], { encoding: 'utf8' }).trim();
  const hacking = read('HACKING.md').replace(/\s+/g, ' ');
  assert.ok(hacking.includes(sentence.replace(/\s+/g, ' ')), `HACKING.md should say (node scripts/loc.mjs --write-hacking): ${sentence}`);
});

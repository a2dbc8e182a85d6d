// Docs that cannot rot, part one: every relative link in the project's Markdown resolves to a file
// or folder of the repository, and every `#anchor` to a heading (GitHub's slugs) or an explicit
// `<a id>` of the target. External links are not fetched (no network in tests).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SKIP = new Set(['node_modules', 'target', 'pkg', '.git', 'fuzz', 'www-dist']);

/** The Markdown files of the repository (not dependencies or build output). */
function markdownFiles(dir = ROOT) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name) || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...markdownFiles(path));
    else if (entry.name.endsWith('.md')) out.push(path);
  }
  return out;
}

/** Text outside fenced code blocks. */
function unfenced(text) {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** Text outside fenced code blocks and inline code. */
function prose(text) {
  return unfenced(text).replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchors: lowercased, punctuation dropped, spaces to `-`, repeats numbered. */
export function anchorsOf(text) {
  const anchors = new Set();
  const seen = new Map();
  for (const [, heading] of unfenced(text).matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)) {
    const plain = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const base = plain.toLowerCase().replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const [, id] of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id);
  return anchors;
}

test('every relative link and anchor in the Markdown resolves', () => {
  const files = markdownFiles();
  assert.ok(files.length > 10, `found ${files.length} Markdown files`);
  const broken = [];
  let checked = 0;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      checked++;
      const [path, anchor] = target.split('#');
      const resolved = path ? join(dirname(file), decodeURIComponent(path)) : file;
      const where = `${relative(ROOT, file)} → ${target}`;
      if (!resolved.startsWith(ROOT) || !existsSync(resolved)) {
        broken.push(`${where}: no such file`);
        continue;
      }
      if (anchor && statSync(resolved).isFile() && resolved.endsWith('.md') && !anchorsOf(readFileSync(resolved, 'utf8')).has(anchor)) {
        broken.push(`${where}: no heading with that anchor`);
      }
    }
  }
  assert.ok(checked > 20, `checked ${checked} links`);
  assert.deepEqual(broken, [], `broken links:\n${broken.join('\n')}`);
});

test('the anchor rule follows GitHub on the cases the docs use', () => {
  const anchors = anchorsOf('# Erasure, restriction, access and export (§4.3)\n## `ready()` and tables\n## Tables\n## Tables\n```\n# not a heading\n```\n<a id="custom"></a>');
  assert.deepEqual([...anchors], ['erasure-restriction-access-and-export-43', 'ready-and-tables', 'tables', 'tables-1', 'custom']);
});

test('no user-facing document names a file the reader cannot have (the team\'s SPEC) or another product\'s settings', () => {
  const files = [...markdownFiles().filter((f) => !relative(ROOT, f).startsWith('tests')), ...typings()];
  const offending = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const [pattern, what] of [[/\bSPEC\b/, 'SPEC'], [/node-chat|admin-app|_UN_\d{5}/, "another product's names"], [/\(`issues`\)|\.\.\/shared\/|TOOLCHAIN\.md|CONVENTIONS\.md/, "the team's own tools and files"]]) {
      if (pattern.test(text)) offending.push(`${relative(ROOT, file)}: ${what}`);
    }
  }
  assert.deepEqual(offending, []);
});

/** The shipped typings (what an editor shows a user). */
function typings(dir = join(ROOT, 'js')) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...typings(path));
    else if (entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

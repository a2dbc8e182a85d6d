// Docs that cannot rot, part two: every JavaScript or TypeScript block of the README and of
// docs/guide/ is type-checked against the installed package's typings. A block uses names the
// reader supplies (`userId`, `llm`, `agentConfig` …): those are declared `any` automatically (the
// compiler's "cannot find name" answers), so what is checked is everything memcore gives — the
// import paths, the exports, the option and method names, the argument shapes. Any other error
// fails with the document and line. The README's quickstart is also run (readme.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIR = join(ROOT, 'target', 'doc-blocks');
const UNKNOWN_NAME = new Set([2304, 2552, 2580, 2581, 2582, 2591, 2592, 2593, 18004]);

function blocks() {
  const docs = ['README.md', ...readdirSync(join(ROOT, 'docs/guide')).filter((f) => f.endsWith('.md')).map((f) => `docs/guide/${f}`)];
  const out = [];
  for (const doc of docs) {
    const lines = readFileSync(join(ROOT, doc), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const open = /^```(js|ts|mjs|javascript|typescript)\s*$/.exec(lines[i]);
      if (!open) continue;
      const end = lines.findIndex((l, j) => j > i && l.startsWith('```'));
      out.push({ doc, line: i + 2, code: lines.slice(i + 1, end).join('\n') });
      i = end;
    }
  }
  return out;
}

function check(files) {
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.ESNext,
    target: ts.ScriptTarget.ES2022,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    typeRoots: [join(ROOT, 'node_modules/@types')],
    noEmit: true,
    strict: false,
    skipLibCheck: true,
    allowJs: true,
    checkJs: true,
    moduleDetection: ts.ModuleDetectionKind.Force,
  });
  return ts.getPreEmitDiagnostics(program).filter((d) => d.file && files.includes(d.file.fileName));
}

test('every js/ts block of the README and docs/guide/ type-checks against the package', () => {
  const all = blocks();
  assert.ok(all.length >= 10, `${all.length} blocks`);
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  try {
    const files = all.map((b, i) => {
      const file = join(DIR, `block-${i}.ts`);
      writeFileSync(file, b.code);
      return file;
    });
    // Pass 1: the names the reader supplies.
    const supplied = new Map(files.map((f) => [f, new Set()]));
    for (const d of check(files)) {
      if (UNKNOWN_NAME.has(d.code)) supplied.get(d.file.fileName).add(d.file.text.slice(d.start, d.start + d.length));
    }
    const prelude = (f) => [...supplied.get(f)].map((name) => `declare const ${name}: any;`).join(' ');
    files.forEach((f, i) => writeFileSync(f, `${prelude(f)}\n${all[i].code}\n`));
    // Pass 2: everything else is a real mismatch with the package.
    const problems = check(files).map((d) => {
      const i = files.indexOf(d.file.fileName);
      const { line } = d.file.getLineAndCharacterOfPosition(d.start);
      return `${all[i].doc}:${all[i].line + line - 1}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
    });
    assert.deepEqual(problems, [], `doc blocks that do not type-check:\n${problems.join('\n')}`);
  } finally {
    rmSync(DIR, { recursive: true, force: true });
  }
});

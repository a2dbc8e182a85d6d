// The binding share: non-blank, non-comment Rust lines in the binding (src/wasm/) and the
// boundary (src/boundary/) against all of src/. Unit tests (`#[cfg(test)]` modules) are counted
// as code in both columns, and also reported apart, so the share can be read either way.
// Usage: node scripts/loc.mjs [--hacking | --write-hacking] (the sentence HACKING.md carries,
// which tests/js/structure.test.mjs holds to this count; --write-hacking rewrites it there).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const src = join(root, 'src');

function* rustFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* rustFiles(path);
    else if (entry.name.endsWith('.rs')) yield path;
  }
}

/** `{ code, tests }`: code lines, and how many of them are inside a `#[cfg(test)]` module. */
function count(text) {
  let code = 0, tests = 0, inBlock = false, testDepth = null, depth = 0, pendingTest = false;
  for (const raw of text.split('\n')) {
    let line = raw.trim();
    if (inBlock) {
      const end = line.indexOf('*/');
      if (end < 0) continue;
      inBlock = false;
      line = line.slice(end + 2).trim();
    }
    if (line.startsWith('/*')) {
      if (!line.includes('*/')) inBlock = true;
      continue;
    }
    if (line === '' || line.startsWith('//')) continue;
    code += 1;
    if (line === '#[cfg(test)]') pendingTest = true;
    else if (pendingTest && /^(pub(\([a-z]+\))? )?mod \w+ \{$/.test(line)) {
      testDepth = depth;
      pendingTest = false;
    } else pendingTest = false;
    if (testDepth !== null) tests += 1;
    // Braces in strings and chars are rare enough in this code base not to matter for a count.
    for (const c of line) {
      if (c === '{') depth += 1;
      else if (c === '}') depth -= 1;
    }
    if (testDepth !== null && depth <= testDepth) testDepth = null;
  }
  return { code, tests };
}

const totals = { binding: { code: 0, tests: 0 }, boundary: { code: 0, tests: 0 }, all: { code: 0, tests: 0 } };
for (const file of rustFiles(src)) {
  const { code, tests } = count(readFileSync(file, 'utf8'));
  const rel = relative(src, file);
  const part = rel.startsWith('wasm/') ? 'binding' : rel.startsWith('boundary/') ? 'boundary' : null;
  for (const key of part ? [part, 'all'] : ['all']) {
    totals[key].code += code;
    totals[key].tests += tests;
  }
}

const share = (a, b) => `${((100 * a) / b).toFixed(1)} %`;
const { binding, boundary, all } = totals;
const both = binding.code + boundary.code;
const bothTests = binding.tests + boundary.tests;
const n = (x) => x.toLocaleString('en');
if (process.argv.includes('--hacking') || process.argv.includes('--write-hacking')) {
  // Rounded (lines to the hundred), so the sentence changes when the share does, not every edit.
  const r = (x) => n(Math.round(x / 100) * 100);
  const sentence = `\`src/wasm/\` (the binding) about ${r(binding.code)} and \`src/boundary/\` about ${r(boundary.code)} (about ${r(boundary.tests)} of them unit tests) of about ${r(all.code)} in \`src/\` — binding + boundary **${share(both, all.code)}** of the Rust (${share(both - bothTests, all.code - all.tests)} without unit tests).`;
  if (process.argv.includes('--write-hacking')) {
    // Rewrite the sentence in HACKING.md (between the heading words and "The rest is the core.").
    const file = join(root, 'HACKING.md');
    const text = readFileSync(file, 'utf8');
    const start = text.indexOf('counts non-blank, non-comment lines:\n');
    const end = text.indexOf(' The rest is the core.', start);
    if (start < 0 || end < 0) throw new Error('loc.mjs: HACKING.md has no binding-share sentence to rewrite');
    writeFileSync(file, text.slice(0, start) + 'counts non-blank, non-comment lines:\n' + sentence + text.slice(end));
  }
  console.log(sentence);
  process.exit(0);
}
console.log(`src/wasm/ (binding)        ${binding.code} lines (${binding.tests} in unit tests)`);
console.log(`src/boundary/              ${boundary.code} lines (${boundary.tests} in unit tests)`);
console.log(`binding + boundary         ${both} lines`);
console.log(`all of src/                ${all.code} lines (${all.tests} in unit tests)`);
console.log(`share, binding + boundary  ${share(both, all.code)} (without unit tests: ${share(both - bothTests, all.code - all.tests)})`);

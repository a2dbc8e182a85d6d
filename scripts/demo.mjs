// The demo (README's main command). It imports the installed package by name, as a user would.
// Today: parse a sample profile, print what memcore understood and the canonical rendering.
import { readFileSync } from 'node:fs';
import { version, parseProfile, renderProfile } from 'memcore';

const file = process.argv[2] ?? new URL('./demo/sample-memory.md', import.meta.url);
const text = readFileSync(file, 'utf8');

console.log(`memcore ${version()} — profile memory demo\n`);
const parsed = parseProfile(text);
const fm = parsed.frontmatter;
console.log(`frontmatter: user_id=${fm.userId} turn_count=${fm.turnCount} last_updated=${fm.lastUpdated}`);
for (const section of parsed.sections) {
  const lines = section.lines.filter((l) => l.trim() !== '');
  console.log(`\n## ${section.heading} (${lines.length} line${lines.length === 1 ? '' : 's'})`);
  for (const line of lines) console.log(`   ${line}`);
}
console.log(`\ndiagnostics: ${parsed.diagnostics.length ? '' : 'none'}`);
for (const d of parsed.diagnostics) console.log(`  line ${d.line}: ${d.code} (${d.severity}) ${d.message}`);
const canonical = renderProfile(parsed);
console.log(`\ncanonical rendering (${canonical === text ? 'identical to the input' : 'differs from the input'}):\n`);
console.log(canonical);

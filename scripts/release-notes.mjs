// The changelog entry of a version, checked: `node scripts/release-notes.mjs <version>` prints the
// `## [<version>] - YYYY-MM-DD` section of CHANGELOG.md, or fails with the reason (not a semantic
// version, no entry, an entry without a date or without content). `make release` uses it.
import { readFileSync } from 'node:fs';

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

/** The entry of `version` in the changelog `text` (its heading and body), or throws why not. */
export function releaseEntry(text, version) {
  if (!SEMVER.test(version)) throw new Error(`${version} is not a semantic version (MAJOR.MINOR.PATCH)`);
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`## [${version}]`));
  if (start < 0) throw new Error(`CHANGELOG.md has no entry for ${version}: add "## [${version}] - YYYY-MM-DD" above the previous version`);
  const heading = lines[start];
  if (!new RegExp(`^## \\[${version.replace(/[.+]/g, '\\$&')}\\] - \\d{4}-\\d{2}-\\d{2}$`).test(heading)) {
    throw new Error(`CHANGELOG.md: "${heading}" must read "## [${version}] - YYYY-MM-DD" (the release date)`);
  }
  const end = lines.findIndex((line, i) => i > start && line.startsWith('## '));
  const body = lines.slice(start + 1, end < 0 ? lines.length : end).join('\n').trim();
  if (!/^- /m.test(body)) throw new Error(`CHANGELOG.md: the entry for ${version} lists no change`);
  return `${heading}\n\n${body}\n`;
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const version = process.argv[2];
  try {
    process.stdout.write(releaseEntry(readFileSync(new URL('../CHANGELOG.md', import.meta.url), 'utf8'), version ?? ''));
  } catch (error) {
    console.error(`release: ${error.message}`);
    process.exit(1);
  }
}

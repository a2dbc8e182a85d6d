// The docs ship with the package (issue 44): the installed package (from the packed tarball) holds
// README.md, CHANGELOG.md and docs/, and every relative link of its Markdown — pages, anchors'
// pages and images — resolves to a file inside the installed package. An npm user reading the
// docs in node_modules (or an editor following a link) never meets a dead one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';

const PKG = dirname(createRequire(import.meta.url).resolve('memcore/package.json'));

function* markdown(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules') yield* markdown(path);
    else if (entry.name.endsWith('.md')) yield path;
  }
}

test('the package ships its docs, and every relative link of its Markdown resolves inside it', () => {
  for (const file of ['README.md', 'CHANGELOG.md', 'docs/README.md', 'docs/guide/console.md', 'docs/reference/behaviour.md']) {
    assert.ok(existsSync(join(PKG, file)), `the package has ${file}`);
  }
  const files = [...markdown(PKG)];
  assert.ok(files.length > 20, `${files.length} Markdown files`);
  const dead = [];
  let links = 0;
  for (const file of files) {
    const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue; // a URL or an anchor in the page
      links += 1;
      const path = resolve(dirname(file), decodeURIComponent(target.split('#')[0]));
      const inside = path === PKG || path.startsWith(PKG + sep);
      if (!inside || !existsSync(path) || (statSync(path).isDirectory() && !existsSync(join(path, 'README.md')))) dead.push(`${relative(PKG, file)} → ${target}`);
    }
  }
  assert.ok(links > 100, `${links} relative links checked`);
  assert.deepEqual(dead, [], 'links that do not resolve inside the installed package');
});

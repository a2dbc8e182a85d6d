// The profile playground (www/playground.html) in headless Chromium: every number and text the
// page shows equals what the package computes in Node for the same input — token counts in both
// encodings (and js-tiktoken's, as an independent oracle), the fit preview (fitProfile), the
// injected section (memorySystemPromptSection), the canonical rendering and its diff, the
// diagnostics at their line. The page is waited on by its render counter, never by time.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getEncoding } from 'js-tiktoken';
import {
  DEFAULT_MAX_TOKENS, MAX_MAX_TOKENS, MIN_MAX_TOKENS, TRUNCATION_MARKER, condenseProfile, countTokens, fitProfile, memorySystemPromptSection, parseProfile, renderProfile, version,
} from 'memcore';
import { serve } from '../../scripts/serve.mjs';
import { packageDir } from '../../scripts/serve/memcore.mjs';
import { diffLines } from '../../js/console/line-diff.js';
import { launchChromium, loadedFiles, openPage, screenshot } from './chromium.mjs';

const T = { timeout: 60000 };
const SAMPLE = readFileSync(new URL('../../www/sample-memory.md', import.meta.url), 'utf8');
const ENCODINGS = ['o200k_base', 'cl100k_base'];
const oracle = Object.fromEntries(ENCODINGS.map((e) => [e, getEncoding(e)]));
const sectionText = (s) => `## ${s.heading}\n${s.lines.length ? s.lines.join('\n') : '_(empty)_'}\n`;

let server;
let browser;
let dataDir;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'memcore-playground-'));
  server = await serve({ dataDir });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Resolves once the page has rendered its latest input. */
const rendered = (page) =>
  page.waitForFunction(() => document.body.dataset.renderedRev && document.body.dataset.renderedRev === document.body.dataset.inputRev);

async function open() {
  const page = await openPage(browser, { width: 1440, height: 1100 });
  await page.goto(`${server.url}playground.html`);
  await rendered(page);
  return page;
}

async function setInput(page, text) {
  await page.getByTestId('source').fill(text);
  await rendered(page);
}
async function setBudget(page, n) {
  await page.getByTestId('budget-number').fill(String(n));
  await page.getByTestId('budget-number').press('Enter');
  await rendered(page);
}
async function setEncoding(page, encoding) {
  await page.getByTestId('encoding').selectOption(encoding);
  await rendered(page);
}

/** The page's token figures: the total and one count per part. */
async function shownTokens(page) {
  const total = Number(await page.getByTestId('token-total').getAttribute('data-tokens'));
  const text = await page.getByTestId('token-total').textContent();
  const parts = await page.locator('[data-testid="token-parts"] .n').evaluateAll((ns) => ns.map((n) => [n.dataset.part, Number(n.dataset.tokens), n.textContent]));
  return { total, text, parts };
}

function expectedParts(text, encoding) {
  const parsed = parseProfile(text);
  const canonical = renderProfile(parsed);
  const head = canonical.slice(0, canonical.indexOf(`\n## ${parsed.sections[0].heading}\n`) + 1);
  return [['Frontmatter & title', head], ...parsed.sections.map((s) => [s.heading, sectionText(s)])].map(([name, t]) => [name, countTokens(t, { encoding })]);
}

async function assertTokens(page, text, encoding) {
  const shown = await shownTokens(page);
  const expected = countTokens(text, { encoding });
  assert.equal(shown.total, expected, `total in ${encoding}`);
  assert.equal(shown.total, oracle[encoding].encode(text, [], []).length, `js-tiktoken ${encoding}`);
  assert.equal(shown.text, expected.toLocaleString('en'));
  assert.deepEqual(shown.parts.map(([name, n]) => [name, n]), expectedParts(text, encoding));
  for (const [, n, visible] of shown.parts) assert.equal(visible, n.toLocaleString('en'));
  assert.equal(await page.getByTestId('meter-encoding').textContent(), encoding);
}

/** The fit preview equals fitProfile; the injected section is memorySystemPromptSection of it. */
async function assertFit(page, text, maxTokens, encoding) {
  const fit = await fitProfile(text, { maxTokens, encoding });
  const result = page.getByTestId('fit-result');
  assert.equal(await result.textContent(), fit.text);
  assert.equal(await result.getAttribute('data-condensed'), String(fit.condensed));
  assert.equal(await result.getAttribute('data-truncated'), String(fit.truncated));
  assert.equal(Number(await result.getAttribute('data-tokens-after')), fit.tokensAfter);
  assert.ok(fit.tokensAfter <= maxTokens);
  const injected = memorySystemPromptSection(fit.text);
  assert.equal(await page.getByTestId('injected').textContent(), injected);
  assert.equal(await page.getByTestId('injected-tokens').textContent(), `${countTokens(injected, { encoding }).toLocaleString('en')} tokens`);
  return fit;
}

test('the sample: exact tokens in both encodings; the second table is fetched only when chosen', T, async () => {
  const page = await open();
  assert.equal(await page.getByTestId('version').textContent(), version());
  // The budget's bounds and default are the package's, not a copy in www/.
  for (const id of ['budget', 'budget-number']) {
    const input = page.getByTestId(id);
    assert.deepEqual([await input.getAttribute('min'), await input.getAttribute('max'), await input.inputValue()], [MIN_MAX_TOKENS, MAX_MAX_TOKENS, DEFAULT_MAX_TOKENS].map(String), id);
  }
  assert.deepEqual([await page.getByTestId('budget-min').textContent(), await page.getByTestId('budget-max').textContent(), await page.getByTestId('budget-default').textContent()], [MIN_MAX_TOKENS, MAX_MAX_TOKENS, DEFAULT_MAX_TOKENS].map(String));
  assert.equal(await page.getByTestId('source').inputValue(), SAMPLE);
  await assertTokens(page, SAMPLE, 'o200k_base');
  await assertFit(page, SAMPLE, 2000, 'o200k_base');
  assert.match(await page.getByTestId('fit-summary').textContent(), /^Within budget: 561 of 2,000 tokens/);
  let files = await loadedFiles(page);
  assert.ok(files.includes('memcore_bg.wasm') && files.includes('o200k_base.bin'), files.join());
  assert.ok(!files.includes('cl100k_base.bin'), 'cl100k_base was fetched before it was needed');

  await setEncoding(page, 'cl100k_base');
  await assertTokens(page, SAMPLE, 'cl100k_base');
  await assertFit(page, SAMPLE, 2000, 'cl100k_base');
  files = await loadedFiles(page);
  assert.ok(files.includes('cl100k_base.bin'), files.join());
  // The printed total is the sum of what came over the wire: here (no compression) the files' sizes.
  const pkg = packageDir; // what the server serves under /node_modules/memcore/
  const sizes = { 'memcore_bg.wasm': statSync(`${pkg}/wasm/memcore_bg.wasm`).size, 'o200k_base.bin': statSync(`${pkg}/tokenizer/o200k_base.bin`).size, 'cl100k_base.bin': statSync(`${pkg}/tokenizer/cl100k_base.bin`).size };
  const perFile = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType('resource').map((e) => [e.name.split('/').pop(), e.encodedBodySize])));
  for (const [file, size] of Object.entries(sizes)) assert.equal(perFile[file], size, file);
  const all = await page.evaluate(() => [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')].reduce((n, e) => n + e.encodedBodySize, 0));
  assert.equal(Number(await page.getByTestId('loaded').getAttribute('data-bytes')), all);
  assert.match(await page.getByTestId('loaded').textContent(), /^Loaded \d+\.\d\d MiB in \d+ files: /);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('fit preview at budgets between 500 and 8000: condensing highlighted, equal to fitProfile', T, async () => {
  const page = await open();
  await setBudget(page, 500);
  const fit = await assertFit(page, SAMPLE, 500, 'o200k_base');
  assert.equal(fit.condensed, true);
  assert.equal(fit.truncated, false);
  // The lines condensing removes, highlighted by kind, are exactly the lines missing from its text.
  const condensed = condenseProfile(SAMPLE, 500).text.split('\n');
  const removed = diffLines(SAMPLE.split('\n'), condensed).filter((o) => o.op === 'del');
  const dup = await page.locator('[data-testid="fit-listing"] .row.dup .tx').evaluateAll((xs) => xs.map((x) => x.lastChild.textContent));
  const topics = await page.locator('[data-testid="fit-listing"] .row.topic .tx').evaluateAll((xs) => xs.map((x) => x.lastChild.textContent));
  assert.equal(dup.length, fit.removedDuplicates);
  assert.equal(topics.length, fit.removedTopics);
  assert.deepEqual([...dup, ...topics].sort(), removed.map((o) => o.text).sort());
  assert.deepEqual(dup, ['- Prefers concise answers with concrete examples']);
  assert.ok(topics.every((t) => /^- 2026-04-\d\d /.test(t)), topics.join('\n'));
  assert.equal(await page.locator('[data-testid="fit-listing"] .cutline').count(), 0);
  assert.equal(await page.getByTestId('fit-summary').textContent(),
    `Over budget: 561 > 500 tokens. Condensing merged 1 duplicate bullet and dropped the 4 oldest Recent Topics → ${fit.tokensAfter} tokens.`);
  assert.equal(await page.getByTestId('token-verdict').textContent(), '61 over');
  await screenshot(page, 'playground');
  await screenshot(page, 'playground-full', { fullPage: true });

  // The slider, from the keyboard: one step is 50 tokens.
  await page.getByTestId('budget').focus();
  await page.keyboard.press('ArrowRight');
  await rendered(page);
  assert.equal(await page.getByTestId('budget-number').inputValue(), '550');
  await assertFit(page, SAMPLE, 550, 'o200k_base');
  // Out of range: the page says so instead of calling fitProfile with it.
  await page.getByTestId('budget-number').fill('499');
  await rendered(page);
  assert.equal(await page.getByTestId('status').textContent(), 'The budget must be a whole number between 500 and 8000.');
  await page.getByTestId('budget-number').press('Enter'); // clamps
  await rendered(page);
  assert.equal(await page.getByTestId('budget-number').inputValue(), '500');
  await setBudget(page, 8000);
  await assertFit(page, SAMPLE, 8000, 'o200k_base');
  await page.close();
});

test('the hard cut: where it falls and the marker, in both encodings, equal to fitProfile', T, async () => {
  const page = await open();
  // Nothing to condense (distinct bullets, no dated topics): only the hard cut can fit this.
  const identity = Array.from({ length: 40 }, (_, i) => `- Fact ${i + 1}: speaks ${['German', 'French', 'Italian', 'Romansh'][i % 4]} with colleague group ${i * 7 + 3} on project ${String.fromCharCode(65 + (i % 26))}-${i * 13}.`);
  const text = `---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-06-17T12:00:00+00:00\nturn_count: 3\n---\n\n# User Memory\n\n## Identity\n${identity.join('\n')}\n\n## Communication Preferences\n_(empty)_\n\n## Work Context\n_(empty)_\n\n## Skills & Expertise\n_(empty)_\n\n## Recent Topics\n_(empty)_\n\n## Follow-ups\n_(empty)_\n`;
  await setInput(page, text);
  for (const [encoding, budget] of [['o200k_base', 500], ['cl100k_base', 650]]) {
    await setEncoding(page, encoding);
    await setBudget(page, budget);
    await assertTokens(page, text, encoding);
    const fit = await assertFit(page, text, budget, encoding);
    assert.equal(fit.truncated, true);
    assert.ok(fit.text.endsWith(TRUNCATION_MARKER));
    // The cut line names the last line kept: the input up to it, right-trimmed, plus the marker
    // is the fitted text (nothing was condensed here).
    const listing = page.getByTestId('fit-listing');
    assert.equal(await listing.locator('.cutline').count(), 1);
    const afterLine = Number(await listing.locator('.cutline').getAttribute('data-after-line'));
    assert.equal(`${text.split('\n').slice(0, afterLine).join('\n').trimEnd()}${TRUNCATION_MARKER}`, fit.text);
    const firstCut = await listing.locator('.row.cut .ln').first().textContent();
    assert.equal(Number(firstCut), afterLine + 1);
    assert.equal(await listing.locator('.row.marker .tx').evaluate((x) => x.lastChild.textContent), TRUNCATION_MARKER.trim());
    assert.ok((await listing.locator('.row.cut').count()) > 0);
    assert.match(await page.getByTestId('fit-summary').textContent(), /There is nothing to condense .*the hard cut keeps whole lines from the top and appends the marker → [\d,]+ tokens\.$/);
  }
  await screenshot(page, 'playground-hard-cut', { fullPage: true });
  await page.close();
});

test('diagnostics at their line, the canonical rendering and its diff; live while typing', T, async () => {
  const page = await open();
  const messy = '---\nuser_id: u1\nturn_count: many\n---\n# user memory\n## identity\n- Ada\n## Hobbies\n- chess\n\n## Work Context\n- memcore\n';
  await setInput(page, messy);
  const parsed = parseProfile(messy);
  assert.ok(parsed.diagnostics.length >= 4, JSON.stringify(parsed.diagnostics));
  const lineCount = messy.split('\n').length - 1;
  // Every diagnostic is listed once, right under its line (or at the end when past the last line).
  const shown = await page.getByTestId('sections-listing').evaluate((listing) => {
    const out = [];
    let lastLine = null;
    for (const node of listing.children) {
      if (node.classList.contains('row')) lastLine = Number(node.querySelector('.ln').textContent);
      else if (node.classList.contains('diag')) out.push({ line: Number(node.dataset.line), code: node.dataset.code, under: lastLine, text: node.textContent });
    }
    return out;
  });
  assert.deepEqual(shown.map((d) => [d.line, d.code]), parsed.diagnostics.map((d) => [d.line, d.code]));
  for (const d of shown) assert.equal(d.under, Math.min(d.line, lineCount), JSON.stringify(d));
  for (const [i, d] of parsed.diagnostics.entries()) assert.equal(shown[i].text, `${d.severity} · ${d.code}: ${d.message}`);
  assert.equal(await page.getByTestId('parse-summary').textContent(), `${parsed.diagnostics.length} diagnostics`);
  // Frontmatter as parsed.
  const fm = await page.getByTestId('frontmatter').evaluate((dl) => [...dl.querySelectorAll('dt')].map((dt) => [dt.textContent, dt.nextElementSibling.textContent]));
  assert.deepEqual(fm.slice(0, 4), [['user_id', 'u1'], ['schema_version', '—'], ['last_updated', '—'], ['turn_count', '0']]);

  // Canonical rendering, and a diff that turns the input into it.
  const canonical = renderProfile(parsed);
  assert.equal(await page.getByTestId('canonical').textContent(), canonical);
  const ops = diffLines(messy.split('\n'), canonical.split('\n'));
  const changes = ops.filter((o) => o.op !== 'same');
  assert.equal(await page.getByTestId('canonical-summary').textContent(), `${changes.length} changed lines`);
  const rows = await page.locator('[data-testid="canonical-diff"] .row').evaluateAll((rs) => rs.map((r) => [r.dataset.op, r.querySelector('.tx').textContent]));
  assert.deepEqual(rows.filter(([op]) => op !== 'same').map(([op, t]) => [op, t]), changes.map((o) => [o.op, o.text]));
  await assertTokens(page, messy, 'o200k_base');

  // A canonical input says so.
  await setInput(page, canonical);
  assert.equal(await page.getByTestId('canonical-summary').textContent(), 'identical to the input');

  // Typing (real key presses, debounced): the numbers follow the text.
  await page.getByTestId('source').focus();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('- likes long walks\n');
  await rendered(page);
  const typed = await page.getByTestId('source').inputValue();
  assert.equal(typed, `${canonical}- likes long walks\n`);
  await assertTokens(page, typed, 'o200k_base');
  await assertFit(page, typed, 2000, 'o200k_base');
  // An empty profile injects nothing.
  await setInput(page, '');
  assert.equal(await page.getByTestId('injected-tokens').textContent(), 'nothing is injected');
  assert.equal(memorySystemPromptSection((await fitProfile('', { maxTokens: 2000 })).text), '');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('line diff: a shortest edit script that rebuilds both sides (seeded random cases)', () => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const lcs = (a, b) => {
    const dp = Array.from({ length: a.length + 1 }, () => new Array(b.length + 1).fill(0));
    for (let i = 1; i <= a.length; i += 1) for (let j = 1; j <= b.length; j += 1) dp[i][j] = a[i - 1] === b[j - 1] ? dp[i - 1][j - 1] + 1 : Math.max(dp[i - 1][j], dp[i][j - 1]);
    return dp[a.length][b.length];
  };
  for (let t = 0; t < 2000; t += 1) {
    const a = Array.from({ length: Math.floor(random() * 14) }, () => 'abcd'[Math.floor(random() * 4)]);
    const b = Array.from({ length: Math.floor(random() * 14) }, () => 'abcd'[Math.floor(random() * 4)]);
    const ops = diffLines(a, b);
    assert.deepEqual(ops.filter((o) => o.op !== 'add').map((o) => o.text), a);
    assert.deepEqual(ops.filter((o) => o.op !== 'del').map((o) => o.text), b);
    for (const o of ops) {
      if (o.a !== null) assert.equal(a[o.a - 1], o.text);
      if (o.b !== null) assert.equal(b[o.b - 1], o.text);
    }
    assert.equal(ops.filter((o) => o.op === 'same').length, lcs(a, b), `${a} → ${b}`);
  }
  assert.equal(diffLines(['x'], ['y'], 1), null, 'gives up beyond maxEdits');
});

// The Settings → Context Memory editor (www/editor.html) in headless Chromium against the local
// server (scripts/serve.mjs: GET/PUT /contextmemory/me over a ContextMemory with file storage).
// Every state is reached by making the server answer late (held until the test releases it),
// fail, refuse a save, never answer, or report memory disabled — the test waits for states,
// never for time. Each state is checked by its visible text and the controls' enabled state, and
// photographed into target/screenshots/editor-<state>.png.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { MAX_EDIT_BODY_BYTES, SECTION_HEADINGS, WEB_SEARCH_TOOLTIP, applyUserEdit, editableBody, parseProfile } from 'memcore';
import * as constants from 'memcore/constants';
import { serve } from '../../scripts/serve.mjs';
import { MAX_BODY_BYTES } from 'memcore/editor';
import { launchChromium, loadedFiles, openPage, screenshot } from './chromium.mjs';

// A stored profile whose frontmatter is anything but canonical: a comment, an unknown key, odd
// spacing. A save must keep these bytes exactly.
const FRONTMATTER = '---\nuser_id:   local-user   # the owner\nschema_version: 1\nlast_updated: 2026-06-17T12:00:00+00:00\nturn_count: 12\nteam: "risk & finance"\n---\n';
const BODY = `# User Memory

## Identity
- Works as a credit risk analyst in Zurich.

## Communication Preferences
- Prefers concise answers with concrete examples.

## Work Context
- Preparing the quarterly IFRS 9 impairment report.

## Skills & Expertise
_(empty)_

## Recent Topics
- 2026-06-17 11:40 UTC: Discussed expected-credit-loss staging rules.

## Follow-ups
_(empty)_
`;
const STORED = `${FRONTMATTER}\n${BODY}`;

// Generous: a state that never comes fails the test instead of hanging the run.
const T = { timeout: 30000 };

let server;
let browser;
let dataDir;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'memcore-editor-'));
  server = await serve({ dataDir, userId: 'local-user' });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

beforeEach(() => {
  server.faults.clear();
  server.setEnablement(null);
  rmSync(join(dataDir, 'user-memory'), { recursive: true, force: true });
});

function store(text) {
  mkdirSync(dirname(server.memoryFile), { recursive: true });
  writeFileSync(server.memoryFile, text);
}
const stored = () => readFileSync(server.memoryFile, 'utf8');

const ui = (page) => ({
  root: page.locator('#memory'),
  status: page.getByTestId('editor-status'),
  message: page.getByTestId('editor-message'),
  body: page.getByTestId('editor-body'),
  save: page.getByTestId('editor-save'),
  discard: page.getByTestId('editor-discard'),
  retry: page.getByTestId('editor-retry'),
  start: page.getByTestId('editor-start'),
  diagnostics: page.getByTestId('editor-diagnostics'),
  size: page.getByTestId('editor-size'),
  meta: page.getByTestId('editor-meta'),
});
const inState = (page, state) => page.locator(`#memory[data-state="${state}"]`).waitFor();

async function open(path = 'editor.html') {
  const page = await openPage(browser);
  await page.goto(server.url + path);
  return page;
}

test('loading, then the stored body without its frontmatter; nothing to save yet', T, async () => {
  store(STORED);
  const held = server.faults.hold('GET');
  const page = await open();
  const e = ui(page);
  await held.arrived;
  await inState(page, 'loading');
  assert.equal(await e.status.textContent(), 'Loading your context memory…');
  assert.equal(await e.root.getAttribute('aria-busy'), 'true');
  assert.equal(await e.body.isVisible(), false);
  assert.equal(await e.message.isVisible(), false);
  await screenshot(page, 'editor-loading');
  held.release();

  await inState(page, 'ready');
  assert.equal(await e.status.textContent(), 'Up to date.');
  assert.equal(await e.root.getAttribute('aria-busy'), 'false');
  assert.equal(await e.body.inputValue(), BODY);
  assert.equal(await e.body.inputValue(), editableBody(STORED));
  assert.doesNotMatch(await e.body.inputValue(), /user_id|turn_count|---/);
  assert.equal(await e.meta.textContent(), 'Last updated 2026-06-17 12:00 UTC · 12 automatic rewrites');
  assert.equal(await e.save.isDisabled(), true);
  assert.equal(await e.discard.isDisabled(), true);
  assert.equal(await e.body.isEditable(), true);
  // Labelled controls and a live status region.
  assert.equal(await page.getByLabel('What the assistant knows about you (Markdown)').getAttribute('data-testid'), 'editor-body');
  assert.equal(await page.getByRole('status').getAttribute('aria-live'), 'polite');
  assert.equal(await page.getByRole('button', { name: 'Save' }).count(), 1);
  await screenshot(page, 'editor-ready');
  // Only the page's own files and the answer: no wasm, no tokenizer table before an edit.
  const files = await loadedFiles(page);
  assert.ok(files.includes('editor.js') && files.includes('editor.css') && files.includes('/contextmemory/me'), files.join());
  assert.ok(!files.some((f) => f.endsWith('.wasm') || f.endsWith('.bin')), files.join());
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('empty: explains that memory builds up, creates nothing; writing it yourself creates it with turn_count 0', T, async () => {
  const page = await open();
  const e = ui(page);
  await inState(page, 'empty');
  assert.equal(await e.status.textContent(), 'No context memory yet.');
  const message = await e.message.textContent();
  assert.match(message, /Memory builds up from your conversations/);
  assert.match(message, /Nothing has been created by opening this page\./);
  assert.equal(await e.body.isVisible(), false);
  assert.equal(await e.save.isVisible(), false);
  assert.equal(await e.retry.isVisible(), false);
  assert.equal(await e.start.isEnabled(), true);
  assert.equal(existsSync(dirname(server.memoryFile)), false, 'opening the page created the user folder');
  await screenshot(page, 'editor-empty');

  await e.start.click();
  await inState(page, 'unsaved');
  assert.match(await e.body.inputValue(), /^# User Memory\n\n## Identity\n_\(empty\)_\n/);
  // The page's starting body and its headings are the package's, not a copy in www/.
  assert.equal(await e.body.inputValue(), constants.EMPTY_PROFILE_BODY);
  assert.deepEqual(parseProfile(await e.body.inputValue()).sections.map((x) => x.heading), [...SECTION_HEADINGS]);
  assert.equal(await e.save.isEnabled(), true);
  await e.save.click();
  await inState(page, 'saved');
  assert.match(stored(), /^---\nuser_id: local-user\nschema_version: 1\nlast_updated: \S+\+00:00\nturn_count: 0\n---\n\n# User Memory\n/);
  await page.reload();
  await inState(page, 'ready');
  assert.equal(await e.body.inputValue(), editableBody(stored()));
  await page.close();
});

test('unavailable: memory disabled for the user or space shows the reason, and no editor', T, async () => {
  store(STORED);
  server.setEnablement({ companyId: 'c1', featureFlag: 'true', webSearchEnabled: true });
  let page = await open();
  let e = ui(page);
  await inState(page, 'unavailable');
  assert.equal(await e.status.textContent(), 'Context memory is unavailable.');
  assert.equal((await e.message.textContent()).trim(), WEB_SEARCH_TOOLTIP);
  assert.equal(await e.message.getAttribute('data-reason'), 'web-search-enabled');
  assert.equal(await e.body.isVisible(), false);
  assert.equal(await e.retry.isVisible(), false);
  assert.equal(await e.save.isVisible(), false);
  await screenshot(page, 'editor-unavailable');
  await page.close();

  server.setEnablement({ companyId: 'c1', featureFlag: 'true', userAllowsMemory: false });
  page = await open();
  e = ui(page);
  await inState(page, 'unavailable');
  assert.match(await e.message.textContent(), /You turned context memory off in your preferences/);
  assert.equal(await e.message.getAttribute('data-reason'), 'user-opted-out');
  await page.close();
  // The server refuses a save too, and the file is untouched.
  const response = await fetch(`${server.url}contextmemory/me`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"body":"x"}' });
  assert.equal(response.status, 403);
  assert.equal((await response.json()).error.code, 'E_MEMORY_DISABLED');
  assert.equal(stored(), STORED);
});

test('error with retry: a failing and a silent server both end in the error state; Retry loads', T, async () => {
  store(STORED);
  server.faults.fail('GET', { status: 500, code: 'E_HOST', message: 'the storage is not answering', times: 1 });
  const page = await open();
  const e = ui(page);
  await inState(page, 'error');
  assert.equal(await e.status.textContent(), 'Could not load your context memory.');
  assert.equal((await e.message.textContent()).includes('The storage is not answering. Your memory is unchanged.'), true);
  assert.equal(await e.retry.isEnabled(), true);
  assert.equal(await e.retry.evaluate((b) => b === document.activeElement), true, 'Retry has the focus');
  assert.equal(await e.body.isVisible(), false);
  await screenshot(page, 'editor-error');
  await page.keyboard.press('Enter'); // Retry, from the keyboard
  await inState(page, 'ready');
  assert.equal(await e.body.inputValue(), BODY);
  await page.close();

  // A server that never answers: the page gives up after its timeout (here 1 s; the answered
  // requests of this page take milliseconds, so they never reach it).
  server.faults.hang('GET');
  const silent = await open('editor.html?timeout=1000');
  const s = ui(silent);
  await inState(silent, 'error');
  assert.match(await s.message.textContent(), /^The server did not answer within 1 s\. Your memory is unchanged\.$/);
  server.faults.clear();
  await s.retry.click();
  await inState(silent, 'ready');
  await silent.close();
});

test('unsaved changes: heading diagnostics inline before saving, a warning before leaving, discard', T, async () => {
  store(STORED);
  const page = await open();
  const e = ui(page);
  await inState(page, 'ready');
  await e.body.click(); // a real user gesture: Chromium only asks before leaving a page the user touched
  const puts = server.faults.count('PUT');
  const edited = BODY.replace('## Work Context', '## Work').replace('## Follow-ups\n_(empty)_\n', '');
  await e.body.fill(edited);
  await inState(page, 'unsaved');
  assert.equal(await e.status.textContent(), 'Unsaved changes.');
  assert.equal(await e.save.isEnabled(), true);
  assert.equal(await e.discard.isEnabled(), true);
  // The diagnostics come from the core itself (the wasm, loaded now, on the first edit).
  await page.locator('#memory[data-diagnosed]').waitFor();
  const expected = applyUserEdit(null, edited, { userId: 'preview', now: 0 }).diagnostics.filter((d) => d.severity === 'warning');
  assert.ok(expected.some((d) => d.code === 'unknown-section') && expected.some((d) => d.code === 'missing-section'));
  const shown = await e.diagnostics.locator('.cm-diagnostic').evaluateAll((lis) => lis.map((li) => [li.dataset.code, li.textContent]));
  assert.deepEqual(shown, expected.map((d) => [d.code, `line ${d.line} ${d.message}`]));
  assert.match(await e.diagnostics.textContent(), /`## Work` is not one of the six sections/);
  assert.match(await e.diagnostics.textContent(), /`## Follow-ups` is missing/);
  assert.ok((await loadedFiles(page)).includes('memcore_bg.wasm'));
  assert.ok(!(await loadedFiles(page)).some((f) => f.endsWith('.bin')), 'the editor never loads a tokenizer table');
  // A diagnostic's line button selects that line in the editor.
  const unknown = expected.find((d) => d.code === 'unknown-section');
  await e.diagnostics.getByRole('button', { name: `Go to line ${unknown.line}` }).click();
  assert.equal(await e.body.evaluate((t) => t.value.slice(t.selectionStart, t.selectionEnd)), '## Work');
  await screenshot(page, 'editor-unsaved');

  // Leaving (the site's own Playground link) asks first; staying keeps the edit.
  const dialogs = [];
  const asked = new Promise((resolve) => {
    page.once('dialog', async (dialog) => {
      dialogs.push(dialog.type());
      await dialog.dismiss(); // "Stay on page"
      resolve();
    });
  });
  await page.getByRole('link', { name: 'Playground' }).click();
  await asked;
  assert.deepEqual(dialogs, ['beforeunload']);
  assert.match(page.url(), /editor\.html$/);
  assert.equal(await e.body.inputValue(), edited);

  await e.discard.click();
  await inState(page, 'ready');
  assert.equal(await e.body.inputValue(), BODY);
  assert.equal(await e.diagnostics.locator('li').count(), 0);
  assert.equal(await e.save.isDisabled(), true);
  assert.equal(server.faults.count('PUT'), puts);
  assert.equal(stored(), STORED);
  // Nothing unsaved: leaving asks nothing.
  page.once('dialog', (dialog) => {
    dialogs.push(dialog.type());
    dialog.dismiss();
  });
  await page.getByRole('link', { name: 'Playground' }).click();
  await page.waitForURL(/playground\.html$/);
  assert.deepEqual(dialogs, ['beforeunload']);
  page.removeAllListeners('dialog');
  await page.close();
});

test('saving, saved (from the keyboard), frontmatter byte for byte unchanged, reload shows the saved body', T, async () => {
  store(STORED);
  const page = await open();
  const e = ui(page);
  await inState(page, 'ready');
  await e.body.focus();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('- Wants a reminder about the audit on Friday.\n');
  await inState(page, 'unsaved');
  const typed = await e.body.inputValue();
  assert.equal(typed, `${BODY}- Wants a reminder about the audit on Friday.\n`);

  const puts = server.faults.count('PUT');
  const held = server.faults.hold('PUT');
  await page.keyboard.press('Control+s');
  await held.arrived;
  await inState(page, 'saving');
  assert.equal(await e.status.textContent(), 'Saving…');
  assert.equal(await e.save.textContent(), 'Saving…');
  assert.equal(await e.save.isDisabled(), true);
  assert.equal(await e.discard.isDisabled(), true);
  assert.equal(await e.body.getAttribute('readonly'), '');
  assert.equal(await e.root.getAttribute('aria-busy'), 'true');
  await screenshot(page, 'editor-saving');
  held.release();

  await inState(page, 'saved');
  assert.equal(await e.status.textContent(), 'Saved.');
  assert.equal(await e.save.isDisabled(), true);
  assert.equal(await e.body.isEditable(), true);
  await screenshot(page, 'editor-saved');
  const text = stored();
  assert.ok(text.startsWith(FRONTMATTER), 'the stored frontmatter changed');
  assert.equal(text, `${FRONTMATTER}\n${typed}`);
  assert.equal(server.faults.count('PUT'), puts + 1);

  await page.reload();
  await inState(page, 'ready');
  assert.equal(await e.body.inputValue(), typed);
  assert.equal(await e.meta.textContent(), 'Last updated 2026-06-17 12:00 UTC · 12 automatic rewrites');

  // Tab order: from the editor to Save, pressed with the keyboard; a renamed heading is saved
  // anyway and the server's diagnostics are shown.
  await e.body.fill(typed.replace('## Identity', '## Who I am'));
  await inState(page, 'unsaved');
  await e.body.focus();
  await page.keyboard.press('Tab');
  assert.equal(await e.save.evaluate((b) => b === document.activeElement), true, 'Tab from the editor reaches Save');
  await page.keyboard.press('Enter');
  await inState(page, 'saved');
  assert.equal(await e.status.textContent(), 'Saved — see the notes below.');
  assert.match(await e.diagnostics.textContent(), /Saved with these notes:.*`## Who I am` is not one of the six sections/s);
  assert.ok(stored().startsWith(FRONTMATTER));

  // A credential typed into the profile is saved as [redacted], and the status says so.
  const key = ['sk', '-proj-', 'Zq8vT2mPw9LkR4sY7bXcQ1wE'].join('');
  await e.body.fill(typed.replace('## Identity', `## Identity\n- My API key is ${key}`));
  await inState(page, 'unsaved');
  await e.save.click();
  await inState(page, 'saved');
  assert.equal(await e.status.textContent(), 'Saved. A password or key was replaced by [redacted]: memory never keeps credentials.');
  assert.match(await e.body.inputValue(), /- My API key is \[redacted\]/);
  assert.ok(!stored().includes(key), 'the key was stored');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('save error: a refused save and a save that never returns keep the edit; saving again works', T, async () => {
  store(STORED);
  const page = await open('editor.html?timeout=1000');
  const e = ui(page);
  await inState(page, 'ready');
  const edit = BODY.replace('in Zurich', 'in Geneva');
  await e.body.fill(edit);
  await inState(page, 'unsaved');

  server.faults.fail('PUT', { status: 503, code: 'E_HOST', message: 'the storage refused the write', times: 1 });
  await e.save.click();
  await inState(page, 'save-error');
  assert.equal(await e.status.textContent(), 'Could not save: the storage refused the write. Your edit is still here; try again.');
  assert.equal(await e.body.inputValue(), edit);
  assert.equal(await e.body.isEditable(), true);
  assert.equal(await e.save.isEnabled(), true);
  assert.equal(await e.discard.isEnabled(), true);
  assert.equal(stored(), STORED);
  await screenshot(page, 'editor-save-error');

  server.faults.hang('PUT');
  await e.save.click();
  await inState(page, 'save-error');
  assert.equal(await e.status.textContent(), 'Could not save: the server did not answer within 1 s. Your edit is still here; try again.');
  assert.equal(await e.body.inputValue(), edit);

  server.faults.clear();
  await e.save.click();
  await inState(page, 'saved');
  assert.equal(stored(), `${FRONTMATTER}\n${edit}`);
  await page.close();
});

test('a body over 1 MiB of UTF-8 is refused in the page before it is sent, and by the server', T, async () => {
  assert.equal(MAX_BODY_BYTES, MAX_EDIT_BODY_BYTES);
  assert.equal(constants.MAX_EDIT_BODY_BYTES, MAX_EDIT_BODY_BYTES, 'the page reads the limit from memcore/constants');
  store(STORED);
  const page = await open();
  const e = ui(page);
  await inState(page, 'ready');
  const puts = server.faults.count('PUT');
  // 524,289 characters but 1,048,578 bytes: the limit is bytes, not characters.
  const big = 'é'.repeat(MAX_EDIT_BODY_BYTES / 2 + 1);
  await e.body.fill(big);
  await inState(page, 'unsaved');
  await page.locator('.cm-size.cm-over').waitFor();
  assert.equal(await e.size.textContent(), '1,048,578 bytes — over the 1,048,576 bytes (1 MiB) limit; shorten it to save');
  assert.equal(await e.save.isDisabled(), true);
  await e.body.press('Control+s');
  await e.body.fill(`${'é'.repeat(MAX_EDIT_BODY_BYTES / 2)}`); // exactly 1 MiB: allowed
  await page.locator('.cm-size:not(.cm-over)').waitFor();
  assert.equal(await e.save.isEnabled(), true);
  assert.equal(server.faults.count('PUT'), puts, 'the page sent the oversized body');

  // The page sends the body as text/markdown, so the request's 1 MiB limit is the body's.
  const response = await fetch(`${server.url}contextmemory/me`, {
    method: 'PUT',
    headers: { 'content-type': 'text/markdown; charset=utf-8' },
    body: big,
  });
  assert.equal(response.status, 413);
  const answer = await response.json();
  assert.equal(answer.error.code, 'E_TOO_LARGE');
  assert.deepEqual(answer.error.details, { limit: MAX_EDIT_BODY_BYTES });
  assert.equal(stored(), STORED);
  await page.close();
});

test('the JSON contract: GET shapes, PUT answer with diagnostics, bad requests', T, async () => {
  const url = `${server.url}contextmemory/me`;
  assert.deepEqual(await (await fetch(url)).json(), { exists: false, body: '', lastUpdated: null, turnCount: null });
  assert.equal(existsSync(dirname(server.memoryFile)), false);
  store(STORED);
  const got = await fetch(url);
  assert.equal(got.headers.get('cache-control'), 'no-store');
  assert.deepEqual(await got.json(), { exists: true, body: BODY, lastUpdated: '2026-06-17T12:00:00+00:00', turnCount: 12 });
  const put = await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ body: '## Identity\n- Ada\n' }) });
  const answer = await put.json();
  assert.equal(put.status, 200);
  assert.deepEqual(Object.keys(answer), ['saved', 'exists', 'body', 'lastUpdated', 'turnCount', 'diagnostics', 'redactedSecrets']);
  assert.equal(answer.body, '## Identity\n- Ada\n');
  assert.equal(answer.turnCount, 12);
  assert.deepEqual(answer.diagnostics, applyUserEdit(STORED, '## Identity\n- Ada\n', { userId: 'local-user', now: 0 }).diagnostics);
  assert.ok(stored().startsWith(FRONTMATTER));
  const bad = async (init, status, code) => {
    const r = await fetch(url, init);
    assert.equal(r.status, status, JSON.stringify(init).slice(0, 80));
    assert.equal((await r.json()).error.code, code);
    return r;
  };
  // The errors are memcore/server's (the page reads any of its codes; only E_MEMORY_DISABLED matters).
  await bad({ method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{' }, 400, 'E_BAD_REQUEST');
  await bad({ method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"body":3}' }, 400, 'E_BAD_REQUEST');
  await bad({ method: 'PUT', headers: { 'content-type': 'application/xml' }, body: 'x' }, 415, 'E_UNSUPPORTED_MEDIA_TYPE');
  const r = await bad({ method: 'DELETE' }, 405, 'E_METHOD_NOT_ALLOWED');
  assert.equal(r.headers.get('allow'), 'GET, PUT, HEAD');
});

// Smoke test in headless Chromium (Debian's, driven by playwright-core): the playground page in
// www/ imports the installed package by name and shows a parsed profile.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { getEncoding } from 'js-tiktoken';
import { serve } from '../../scripts/serve.mjs';

let server;
let browser;

before(async () => {
  server = await serve(0);
  // playwright gives every launch a fresh, empty user-data-dir of its own.
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('the playground parses and renders a profile in Chromium', async () => {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(server.url);
  await page.getByTestId('status').filter({ hasText: 'parsed:' }).waitFor({ timeout: 15000 });

  assert.match(await page.getByTestId('version').textContent(), /^\d+\.\d+\.\d+$/);
  // The tokenizer tables were fetched next to the package and count exactly.
  const sample = await page.getByTestId('source').inputValue();
  const expected = getEncoding('o200k_base').encode(sample, [], []).length;
  assert.match(await page.getByTestId('status').textContent(), new RegExp(`, ${expected} tokens \\(o200k_base\\)$`));
  const headings = await page.locator('#sections li').evaluateAll((lis) => lis.map((li) => li.dataset.heading));
  assert.deepEqual(headings, ['Identity', 'Communication Preferences', 'Work Context', 'Skills & Expertise', 'Recent Topics', 'Follow-ups']);
  const identity = await page.locator('#sections li[data-heading="Identity"]').textContent();
  assert.match(identity, /credit risk analyst/);
  const canonical = await page.getByTestId('canonical').textContent();
  assert.ok(canonical.startsWith('---\nuser_id: user_123\n'), canonical.slice(0, 80));
  assert.match(canonical, /## Skills & Expertise\n_\(empty\)_\n/);

  // Edit the text: a broken profile still parses, with diagnostics, and the page keeps working.
  await page.getByTestId('source').fill('## identity\n- likes tea\n');
  await page.getByTestId('parse').click();
  await page.getByTestId('status').filter({ hasText: 'parsed:' }).waitFor();
  assert.match(await page.locator('#sections li[data-heading="Identity"]').textContent(), /likes tea/);
  assert.ok((await page.locator('#diagnostics li.info, #diagnostics li.warning').count()) > 0);
  assert.deepEqual(errors, []);
});

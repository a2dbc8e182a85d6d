// Shared by the Chromium smoke tests: Debian's Chromium driven by playwright-core (headless, a
// fresh profile per launch), and PNG screenshots into target/screenshots/.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const screenshotDir = fileURLToPath(new URL('../../target/screenshots/', import.meta.url));

export function launchChromium() {
  // playwright gives every launch a fresh, empty user-data-dir of its own.
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
}

/** A new page (its own browser context: no cache, no storage) that records uncaught errors. */
export async function openPage(browser, { width = 1360, height = 1000 } = {}) {
  const page = await browser.newPage({ viewport: { width, height } });
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  return page;
}

export async function screenshot(page, name, options = {}) {
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: `${screenshotDir}${name}.png`, ...options });
}

/** The files the page's "bytes loaded" footer lists. */
export async function loadedFiles(page) {
  return (await page.getByTestId('loaded').getAttribute('data-files')).split(',').filter(Boolean);
}

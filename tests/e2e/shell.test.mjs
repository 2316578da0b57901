// The web shell: loads, lists the registered applications, keeps state in the URL, explains
// bad links, and logs no console errors.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { serve, launch, openPage, screenshot, root } from './harness.mjs';

let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

/** The native CLI's view of the registry, to compare with what the page shows. */
function nativeApps() {
  const bin = process.env.NETPRESS_BIN || path.join(root, 'target', 'debug', 'netpress');
  const out = execFileSync(bin, ['list'], { encoding: 'utf8' });
  return [...out.matchAll(/^(\w+) \(v\d+\): (.+)$/gm)].map((m) => m[2]);
}

test('home page renders every registered application', async () => {
  const page = await openPage(browser.context);
  await page.goto(site.url);
  await page.waitForSelector('header.top .brand');
  const titles = await page.$$eval('.app-card h2', (els) => els.map((e) => e.textContent));
  assert.deepEqual(titles, nativeApps());
  await screenshot(page, 'shell-home');
  assert.deepEqual(page.errors, []);
});

test('a malformed link explains itself and offers a way home', async () => {
  const page = await openPage(browser.context);
  await page.goto(site.url + '#/task/route-v1-Lx-s0-i0');
  const alert = await page.waitForSelector('[role=alert]');
  assert.match(await alert.textContent(), /bad query id/);
  await page.click('text=Go to the home page');
  await page.waitForFunction(() => location.hash === '#/');
  await screenshot(page, 'shell-bad-link');
  assert.deepEqual(page.errors, []);
});

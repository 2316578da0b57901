// The task view's Baseline and Paste modes on an application whose episodes run in the page:
// the baseline's turns appear one by one and end as the CLI's did; the same replies pasted
// as one answer end the same way, and the link carries the pasted answer.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, screenshot } from './harness.mjs';
import { localApp, baselineRecords } from './ui.mjs';

let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

test('the baseline plays a task turn by turn and scores as the CLI did', async () => {
  const page = await openPage(browser.context);
  const app = await localApp(page, site);
  const record = baselineRecords(app, { levels: '1', seeds: '5..5' })[0];
  await page.goto(`${site.url}#/task/${record.id}?mode=baseline`);
  await page.selectOption('#pace', '300');
  await page.click('#baseline-run');
  await page.waitForSelector('.turn[data-turn="1"]');
  const score = await page.waitForSelector('.score', { timeout: 60_000 });
  assert.equal(await page.$$eval('.turn', (t) => t.length), record.turns.length);
  assert.match(await score.textContent(), record.score.correct ? /✓ correct/ : /✗ not correct/);
  const actions = await page.$$eval('.turn .action code', (c) => c.map((e) => e.textContent));
  assert.deepEqual(actions, record.turns.map((t) => t.action).filter((a) => a));
  await screenshot(page, 'mode-baseline');
  assert.deepEqual(page.errors, []);
});

test('a pasted multi-turn answer runs turn by turn and travels in the link', async () => {
  const page = await openPage(browser.context);
  const app = await localApp(page, site);
  const record = baselineRecords(app, { levels: '1', seeds: '6..6' })[0];
  // JSON actions and fenced replies paste as they are, one per line or block.
  const answer = record.turns.map((t) => t.reply.includes('\n') ? t.reply : t.reply.trim()).join('\n');
  await page.goto(`${site.url}#/task/${record.id}?mode=paste`);
  await page.fill('#paste-text', answer);
  await page.click('#paste-run');
  const score = await page.waitForSelector('.score');
  assert.match(await score.textContent(), record.score.correct ? /✓ correct/ : /✗ not correct/);
  assert.match(await score.textContent(), /not measured/, 'pasted answers have no latency');
  assert.match(page.url(), /[?&]answer=/);
  const again = await openPage(browser.context);
  await again.goto(page.url());
  assert.equal(await again.inputValue('#paste-text'), answer);
  await again.waitForSelector('.score');
  await screenshot(again, 'mode-paste-from-link');
  assert.deepEqual([...page.errors, ...again.errors], []);
});

// Batch: the built-in baseline on 20 tasks, with the progress bar reaching 100%, a live results
// table, per-label Wilson intervals, and the run saved to the history.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, screenshot } from './harness.mjs';
import { localApp, runBatch, historyRuns, baselineRecords } from './ui.mjs';

let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

test('a baseline batch of 20 tasks runs to 100% and matches the CLI', async () => {
  const page = await openPage(browser.context);
  const app = await localApp(page, site);
  await page.goto(`${site.url}#/batch?app=${app}&seeds=0..19&levels=1`);
  assert.match(await page.textContent('#batch-run'), /Run 20 tasks/);
  // Progress is visible while it runs: the bar starts below its end.
  const status = await runBatch(page, site, `app=${app}&seeds=0..19&levels=1`);
  assert.match(status, /^100\.0% · 20 \/ 20 · done/);
  assert.equal(await page.$eval('#batch-progress', (p) => p.value), 20);
  assert.equal(await page.$$eval('#batch-results tbody tr', (r) => r.length), 20);
  assert.ok(await page.$('figure.report-chart[data-kind=bars] svg'), 'per-label chart drawn');
  // Same tasks, same agent, same outcomes as the native CLI.
  const native = baselineRecords(app, { levels: '1', seeds: '0..19' });
  const correct = native.filter((r) => r.score.correct).length;
  assert.match(await page.textContent('.totals'), new RegExp(`^correct ${(100 * correct / 20).toFixed(1)}%`));
  await screenshot(page, 'batch-20');
  const runs = await historyRuns(page, site);
  assert.equal(runs[0].tasks, 20);
  assert.deepEqual(page.errors, []);
});

test('a batch can be cancelled and keeps what it ran', async () => {
  const page = await openPage(browser.context);
  const app = await localApp(page, site);
  await page.goto(`${site.url}#/batch?app=${app}&seeds=0..4999`);
  await page.click('#batch-run');
  await page.waitForFunction(() => Number(document.querySelector('#batch-progress')?.value) > 0);
  // The page answers input while the batch runs.
  const t0 = Date.now();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  assert.ok(Date.now() - t0 < 1000, 'a frame was drawn within a second');
  // Tasks run seed by seed, so a few finished ones already cover more than one level.
  await page.waitForFunction(() => Number(document.querySelector('#batch-progress')?.value) >= 4);
  await page.click('#batch-cancel');
  await page.waitForFunction(() => /cancelled/.test(document.querySelector('#batch-status')?.textContent ?? ''));
  const done = await page.$eval('#batch-progress', (p) => Number(p.value));
  const total = await page.$eval("#batch-progress", (p) => Number(p.max));
  assert.ok(done > 0 && done < total, `stopped part way (${done} of ${total})`);
  const ids = await page.$$eval('#batch-results tbody tr td:first-child', (c) => c.map((t) => t.textContent));
  const levels = new Set(ids.map((id) => id.match(/-L(\d+)-/)[1]));
  assert.ok(levels.size > 1, `a cancelled batch covers several levels (${[...levels]} in ${ids.length} results)`);
  assert.match(await page.textContent('.cli-line'), /--interleave/);
  await screenshot(page, 'batch-cancelled');
  assert.deepEqual(page.errors, []);
});

/** A batch form of seeds 0..19 with `4` typed into the last seed, not yet left (fill types
 * without leaving the field: no change event yet), once the count shows it. */
async function typedSeedsTo4() {
  const page = await openPage(browser.context);
  const app = await localApp(page, site);
  await page.goto(`${site.url}#/batch?app=${app}&seeds=0..19&levels=1`);
  assert.match(await page.textContent('#batch-run'), /Run 20 tasks/);
  await page.fill('#b-to', '4');
  await page.waitForFunction(() => /Run 5 tasks/.test(document.querySelector('#batch-run').textContent));
  return page;
}

test('a keystroke in the next field counts even before the previous field\'s commit is rendered', async () => {
  const page = await typedSeedsTo4();
  // Leaving #b-to commits it (its change event navigates); the hashchange that renders the new
  // link comes later than #b-per's first keystroke when the page is busy. Doing both in one
  // task makes that order certain.
  await page.evaluate(() => {
    document.querySelector('#b-to').dispatchEvent(new Event('change', { bubbles: true }));
    const per = document.querySelector('#b-per');
    per.value = '3';
    per.dispatchEvent(new InputEvent('input', { bubbles: true }));
  });
  await page.waitForFunction(() => /seeds=0\.\.4/.test(location.hash));
  await page.waitForFunction(() => /Run 15 tasks/.test(document.querySelector('#batch-run').textContent), null, { timeout: 10_000 });
  assert.deepEqual(page.errors, []);
});

test('the task count follows the fields as they are typed, and prompts have their names', async () => {
  const page = await typedSeedsTo4();
  await page.fill('#b-per', '3');
  await page.waitForFunction(() => /Run 15 tasks/.test(document.querySelector('#batch-run').textContent));
  await page.fill('#b-per', '1');
  await page.fill('#b-to', '0');
  await page.waitForFunction(() => /Run 1 task$/.test(document.querySelector('#batch-run').textContent.trim()));
  // Run takes what the fields show, even before they are left.
  await page.fill('#b-to', '2');
  await page.click('#batch-run');
  await page.waitForFunction(() => /done/.test(document.querySelector('#batch-status')?.textContent ?? ''));
  assert.match(await page.textContent('#batch-status'), /3 \/ 3 · done/);
  const options = await page.$$eval('#b-variant option', (o) => o.map((e) => e.textContent));
  assert.deepEqual(options, ['zero-shot', 'zero-shot, chain of thought', 'few-shot', 'few-shot, chain of thought']);
  assert.deepEqual(page.errors, []);
});

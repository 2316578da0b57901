// Compare: two saved batch runs (overlapping seeds, two turn limits) side by side — rates with
// intervals, overlap, the per-label breakdown, the report's charts (bars per label, a radar per
// run over task labels) and per-query differences on the shared query ids.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, screenshot } from './harness.mjs';
import { localApp, runBatch, historyRuns } from './ui.mjs';

let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

test('two runs compared side by side', async () => {
  const page = await openPage(browser.context);
  const app = await localApp(page, site);
  await runBatch(page, site, `app=${app}&seeds=100..129`);
  await runBatch(page, site, `app=${app}&seeds=110..139&turns=2`);
  const runs = await historyRuns(page, site);
  // Pick the two newest runs in the history and compare them.
  for (const run of runs.slice(0, 2)) await page.check(`tr[data-run="${run.id}"] input[type=checkbox]`);
  await page.click('#compare-selected');
  await page.waitForSelector('#compare-overall');
  assert.match(page.url(), new RegExp(`#/compare\\?runs=${runs[0].id},${runs[1].id}$`));
  assert.equal(await page.$$eval('#compare-overall tbody tr', (r) => r.length), 2);
  assert.match(await page.textContent('#compare-overlap'), /vs/);
  assert.ok(await page.$$eval('#compare-labels tbody tr', (r) => r.length) >= 1);
  const kinds = await page.$$eval('figure.report-chart', (fs) => fs.map((f) => f.dataset.kind));
  assert.equal(kinds.filter((k) => k === 'radar').length, 2, 'a radar chart per run');
  assert.ok(kinds.includes('bars') && kinds.includes('scatter'), kinds.join());
  // Seeds 110..129 are shared: the same query ids in both runs.
  assert.match(await page.textContent('#compare-shared'), /^\d+ query ids are shared by all 2 runs/);
  const shared = Number((await page.textContent('#compare-shared')).match(/^(\d+)/)[1]);
  assert.ok(shared >= 20 && shared % 20 === 0, `shared ids: ${shared}`);
  await screenshot(page, 'compare-two-runs');
  // The link reopens the comparison.
  const again = await openPage(browser.context);
  await again.goto(page.url());
  await again.waitForSelector('#compare-overall');
  assert.deepEqual([...page.errors, ...again.errors], []);
});

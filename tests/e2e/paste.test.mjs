// Paste mode: a correct MALT answer (the Python program the native baseline wrote for a task it
// got right) pasted and run in the sandbox worker, scored correct; a wrong one explained.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, screenshot } from './harness.mjs';
import { listedApps, solvedByBaseline } from './ui.mjs';

let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

test('a correct MALT answer pasted and run in the sandbox is scored correct', async (t) => {
  if (!listedApps().includes('malt')) return t.skip('malt is not registered in this build');
  const record = solvedByBaseline('malt', { levels: '1', seeds: '0..19' });
  const answer = record.turns.at(-1).reply;
  const page = await openPage(browser.context);
  const workers = [];
  page.on('worker', (w) => workers.push(w));
  await page.goto(`${site.url}#/task/${record.id}?mode=paste`);
  await page.waitForSelector('#paste-text');
  // The page links no engine: MALT's worker bundle loads when its task opens (docs/bundles.md).
  assert.equal(workers.length, 1, 'the MALT worker loads when its task opens');
  assert.match(workers[0].url(), /\/netpress-worker_loader\.js$/);
  assert.equal(await workers[0].evaluate(() => self.name), 'malt', 'the worker is named after its application');
  await page.fill('#paste-text', answer);
  await page.click('#paste-run');
  const score = await page.waitForSelector('.score', { timeout: 60_000 });
  assert.match(await score.textContent(), /✓ correct/);
  assert.match(await score.textContent(), /✓ safe/);
  assert.equal(workers.length, 1, 'the same worker ran the answer');
  await screenshot(page, 'paste-malt');

  // The same task with a broken answer: an explanation, not a crash.
  await page.fill('#paste-text', 'def process_graph(G):\n    return {"type": "text", "data": G.no_such_method()}\n');
  await page.click('#paste-run');
  await page.waitForFunction(() => /not correct/.test(document.querySelector('.score')?.textContent ?? ''));
  assert.deepEqual(page.errors, []);
});

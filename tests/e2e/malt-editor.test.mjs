// The MALT editor (Paste on a sandboxed task): a run says that it is running, and switching
// tabs while it runs does not cancel it; the editor opens with the task's runnable template
// and offers its examples when the task has starters (Task::starters).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, screenshot } from './harness.mjs';
import { listedApps, solvedByBaseline, modeShown } from './ui.mjs';

let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

test('a MALT run shows its progress and survives a tab switch', async (t) => {
  if (!listedApps().includes('malt')) return t.skip('malt is not registered in this build');
  const record = solvedByBaseline('malt', { levels: '1', seeds: '0..19' });
  const page = await openPage(browser.context);
  const workers = [];
  page.on('worker', (w) => workers.push(w));
  await page.goto(`${site.url}#/task/${record.id}?mode=paste`);
  await page.waitForSelector('#paste-text');
  // MALT's worker loaded with the task view, so a run takes milliseconds. To see it in
  // progress, the worker holds the requests it gets for 2 s (well inside the page's deadlines),
  // then serves them in order.
  assert.equal(workers.length, 1);
  await workers[0].evaluate(() => {
    const serve = self.onmessage;
    const held = [];
    self.onmessage = (e) => {
      if (held.push(e) === 1) setTimeout(() => { self.onmessage = serve; held.forEach((m) => serve(m)); }, 2000);
    };
  });
  await page.fill('#paste-text', record.turns.at(-1).reply);
  await page.click('#paste-run');
  const running = await page.waitForSelector('#paste-running');
  assert.match(await running.textContent(), /Running in the sandbox worker… Switching tabs does not stop it\./);
  await page.click('#tab-baseline');
  await page.waitForFunction(() => location.hash.includes('mode=baseline'));
  // A tab's click does nothing while it is the tab drawn as current: wait for the redraw.
  await modeShown(page, 'baseline');
  await page.click('#tab-paste');
  const score = await page.waitForSelector('.mode-pane[data-mode="paste"] .score', { timeout: 60_000 });
  assert.match(await score.textContent(), /✓ correct/);
  assert.equal(await page.$('#paste-running'), null, 'the status goes once the run is over');
  await screenshot(page, 'malt-editor-run');
  assert.deepEqual(page.errors, []);
});

test('the editor starts from the task\'s template and offers its examples', async (t) => {
  if (!listedApps().includes('malt')) return t.skip('malt is not registered in this build');
  const page = await openPage(browser.context);
  await page.goto(`${site.url}#/task/malt-v1-L1-s0-i0?mode=paste`);
  await page.waitForSelector('#paste-text');
  await page.waitForSelector('#paste-start', { timeout: 10_000 });
  const template = await page.inputValue('#paste-text');
  assert.match(template, /def process_graph\(G\)/, 'opens with a runnable template');
  const options = await page.$$eval('#paste-start option', (o) => o.map((e) => e.value).filter((v) => v));
  assert.ok(options.length >= 2, 'the template and at least one example');
  await page.fill('#paste-text', `${template}\n# my own edit`);
  await page.selectOption('#paste-start', options[1]);
  assert.notEqual(await page.inputValue('#paste-text'), `${template}\n# my own edit`);
  await page.click('#paste-undo');
  assert.equal(await page.inputValue('#paste-text'), `${template}\n# my own edit`, 'Undo brings the draft back');
  // The template runs: it is scored, not a crash.
  await page.fill('#paste-text', template);
  await page.click('#paste-run');
  await page.waitForSelector('.mode-pane[data-mode="paste"] .score', { timeout: 60_000 });
  assert.deepEqual(page.errors, []);
});

// Adapt: the library's adaptive search run in the tab (the route baseline held to 1 turn,
// against the baseline with the task's own limit), the weakness map and table drawn, the same
// state hash as `netpress adapt` with the same settings, the page drawing frames meanwhile; the
// link reopens the search without running anything, and Continue runs one more round with the
// state's turn hold. The curriculum and mixture downloads are what `netpress adapt export`
// writes (rl lines but for the command their provenance names); a CLI state file opens in the view, and a bad one says why.
// Also: a worker whose bundle cannot load says so (not "crashed").
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve, launch, openPage, screenshot } from './harness.mjs';
import { cli } from './ui.mjs';

let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

const phase = (page) => page.$eval('#adapt-status', (s) => s.dataset.phase).catch(() => null);

async function setField(page, selector, value) {
  await page.fill(selector, String(value));
  await page.dispatchEvent(selector, 'change');
}

/** The state file `netpress adapt` writes for the same search (its path). */
function nativeFile(rounds) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'netpress-adapt-')), 'state.json');
  cli(['adapt', '--app', 'route', '--agent', 'baseline', '--max-turns', '1', '--levels', '1', '--turns', '10',
    '--rounds', String(rounds), '--budget', '4', '--k', '3', '--confirm', '6', '--state', file]);
  return file;
}

/** The state `netpress adapt` writes for the same search. */
function nativeState(rounds) {
  const file = nativeFile(rounds);
  const state = JSON.parse(fs.readFileSync(file, 'utf8'));
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  return state;
}

/** The text of the file a click on `selector` downloads. */
async function downloaded(page, selector) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'netpress-adapt-dl-')), download.suggestedFilename());
  await download.saveAs(file);
  const text = fs.readFileSync(file, 'utf8');
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  return text;
}

test('an adaptive search runs in the tab as the CLI runs it, and its link reopens and continues it', async () => {
  const page = await openPage(browser.context);
  await page.goto(`${site.url}#/adapt`);
  await page.waitForSelector('#adapt-run');
  await page.selectOption('#a-app', 'route');
  await page.waitForSelector('#a-turns option[value="10"]', { state: 'attached' });
  // Every field's change and the click on Run in one task, before the page can redraw: the
  // search must still run with all of them (a quick user or a loaded machine delivers events
  // so; the form once started from the last drawn settings and lost all but one).
  await page.evaluate((fields) => {
    for (const [selector, value] of fields) {
      const el = document.querySelector(selector);
      el.value = value;
      el.dispatchEvent(new Event('change', { bubbles: true }));
    }
    document.querySelector('#adapt-run').click();
  }, [['#a-levels', '1'], ['#a-turns', '10'], ['#a-held', '1'], ['#a-rounds', '2'], ['#a-budget', '4'], ['#a-k', '3'], ['#a-confirm', '6']]);
  await page.waitForFunction(() => document.querySelector('#adapt-status')?.dataset.phase === 'running');
  // The page draws frames while the search runs.
  const t0 = Date.now();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  assert.ok(Date.now() - t0 < 1000, 'a frame was drawn within a second');
  await page.waitForFunction(() => document.querySelector('#adapt-status')?.dataset.phase !== 'running', null, { timeout: 300_000 });
  assert.equal(await phase(page), 'done', await page.textContent('#adapt-status'));
  assert.match(await page.textContent('#adapt-status'), /8\/8 points/);
  assert.ok(await page.$('#adapt-map svg rect'), 'the weakness map is drawn');
  assert.ok((await page.$$('#adapt-table tbody tr')).length > 0, 'the confirmed cells are listed');
  // One turn is too few for some of these tasks: the search finds a gap and promotes it.
  assert.match(await page.textContent('#adapt-promotions'), /^[1-9]\d* promoted/);
  const hash = await page.textContent('#adapt-hash');
  const cliFile = nativeFile(2);
  // A mismatch names the episodes the page ended on a failed call (a worker past its deadline),
  // the one way the page's search can part from the CLI's on the same seeds.
  const cut = (await page.$('#adapt-cut-short')) ? await page.textContent('#adapt-cut-short') : 'none';
  assert.equal(hash, JSON.parse(fs.readFileSync(cliFile, 'utf8')).state_hash, `the same search as netpress adapt (cut short: ${cut})`);
  await screenshot(page, 'adapt-done');
  // The curriculum files are the CLI's (the first 1,000 tasks: export's default): the mixture
  // byte for byte, the rl lines (whole generated tasks, written by the Route worker) but for
  // the command their provenance names.
  const uncommanded = (text) => text.trimEnd().split('\n').map((l) => {
    const v = JSON.parse(l);
    v.netpress.command = null;
    return JSON.stringify(v);
  });
  const rl = uncommanded(await downloaded(page, '#adapt-rl'));
  assert.equal(rl.length, 1000);
  assert.deepEqual(rl, uncommanded(cli(['adapt', 'export', cliFile, '--format', 'rl'])));
  assert.ok(JSON.parse(rl[0]).prompt && JSON.parse(rl[0]).curriculum, 'rl lines hold the task and its component');
  assert.equal(await downloaded(page, '#adapt-mixture'), cli(['adapt', 'export', cliFile, '--format', 'mixture']));

  // The address bar holds the state: a reload-free open of the link draws it, running nothing.
  const link = await page.getAttribute('#adapt-link', 'href');
  assert.match(link, /^#\/adapt\/[A-Za-z0-9_-]+$/);
  const other = await openPage(browser.context);
  await other.goto(`${site.url}${link}`);
  await other.waitForFunction(() => document.querySelector('#adapt-status')?.dataset.phase === 'loaded');
  assert.equal(await other.textContent('#adapt-hash'), hash);
  assert.match(await other.textContent('#adapt-status'), /0\+0 episodes/);
  assert.ok(await other.$('#adapt-map svg rect'), 'the map is drawn from the link');
  // Continue with one more round: the CLI's three-round search, resumed. The turn hold is in
  // the state (the form shows it), and Continue holds the agent as the state says even when the
  // field is changed.
  assert.equal(await other.inputValue('#a-held'), '1');
  await setField(other, '#a-held', 5);
  await setField(other, '#a-rounds', 3);
  await other.click('#adapt-continue');
  await other.waitForFunction(() => document.querySelector('#adapt-status')?.dataset.phase === 'running');
  await other.waitForFunction(() => document.querySelector('#adapt-status')?.dataset.phase !== 'running', null, { timeout: 300_000 });
  assert.match(await other.textContent('#adapt-status'), /12\/12 points/);
  // A two-round search continued to three ends as a three-round one does.
  assert.equal(await other.textContent('#adapt-hash'), nativeState(3).state_hash);
  await screenshot(other, 'adapt-continued');
  assert.deepEqual(page.errors, []);
  assert.deepEqual(other.errors, []);

  // A CLI state file opens in the view as the link does; a bad file says why.
  const third = await openPage(browser.context);
  await third.goto(`${site.url}#/adapt`);
  await third.waitForSelector('#adapt-import');
  await third.setInputFiles('#adapt-import', { name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"schema": 1') });
  await third.waitForSelector('#adapt-error');
  assert.match(await third.textContent('#adapt-error'), /^bad\.json: not an adapt state/);
  await third.setInputFiles('#adapt-import', cliFile);
  await third.waitForFunction(() => document.querySelector('#adapt-status')?.dataset.phase === 'loaded');
  assert.equal(await third.textContent('#adapt-hash'), hash);
  assert.equal(await third.$('#adapt-error'), null, 'the error is gone');
  fs.rmSync(path.dirname(cliFile), { recursive: true, force: true });
  assert.deepEqual(third.errors, []);
});

test('a worker whose bundle does not load says so', async () => {
  const blocked = await launch({ serviceWorkers: 'block' });
  try {
    const page = await openPage(blocked.context);
    await page.route('**/netpress-worker-route*', (r) => r.abort());
    await page.goto(`${site.url}#/task/route-v1-L1-s0-i0`);
    await page.waitForFunction(() => /failed to load/.test(document.body.textContent), null, { timeout: 60_000 });
    const text = await page.textContent('main');
    assert.match(text, /the route worker failed to load/);
    assert.doesNotMatch(text, /crashed/);
  } finally {
    await blocked.close();
  }
});

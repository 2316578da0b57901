// Adapt: the library's adaptive search run in the tab (the route baseline held to 1 turn,
// against the baseline with the task's own limit), the weakness map and table drawn, the same
// state hash as `netpress adapt` with the same settings, the page drawing frames meanwhile; the
// link reopens the search without running anything, and Continue runs one more round.
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

/** The state `netpress adapt` writes for the same search. */
function nativeState(rounds) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netpress-adapt-'));
  const file = path.join(dir, 'state.json');
  cli(['adapt', '--app', 'route', '--agent', 'baseline', '--max-turns', '1', '--levels', '1', '--turns', '10',
    '--rounds', String(rounds), '--budget', '4', '--k', '3', '--confirm', '6', '--state', file]);
  const state = JSON.parse(fs.readFileSync(file, 'utf8'));
  fs.rmSync(dir, { recursive: true, force: true });
  return state;
}

test('an adaptive search runs in the tab as the CLI runs it, and its link reopens and continues it', async () => {
  const page = await openPage(browser.context);
  await page.goto(`${site.url}#/adapt`);
  await page.waitForSelector('#adapt-run');
  await page.selectOption('#a-app', 'route');
  await setField(page, '#a-levels', '1');
  await page.selectOption('#a-turns', '10');
  await setField(page, '#a-held', 1);
  await setField(page, '#a-rounds', 2);
  await setField(page, '#a-budget', 4);
  await setField(page, '#a-k', 3);
  await setField(page, '#a-confirm', 6);
  await page.click('#adapt-run');
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
  assert.equal(hash, nativeState(2).state_hash, 'the same search as netpress adapt');
  await screenshot(page, 'adapt-done');

  // The address bar holds the state: a reload-free open of the link draws it, running nothing.
  const link = await page.getAttribute('#adapt-link', 'href');
  assert.match(link, /^#\/adapt\/[A-Za-z0-9_-]+$/);
  const other = await openPage(browser.context);
  await other.goto(`${site.url}${link}`);
  await other.waitForFunction(() => document.querySelector('#adapt-status')?.dataset.phase === 'loaded');
  assert.equal(await other.textContent('#adapt-hash'), hash);
  assert.match(await other.textContent('#adapt-status'), /0\+0 episodes/);
  assert.ok(await other.$('#adapt-map svg rect'), 'the map is drawn from the link');
  // Continue with one more round: the CLI's three-round search, resumed. The turn hold is the
  // agent's run setting, not part of the state (as with the CLI's --max-turns), so it is set again.
  await setField(other, '#a-held', 1);
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

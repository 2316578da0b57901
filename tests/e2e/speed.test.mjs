// Speed (issue 9): time from navigation to an interactive task view on loopback, and time to
// the first sandbox result (a MALT answer run in MALT's worker, which loads with the task view).
// Each figure is measured in a fresh browser profile (nothing cached), read from the page's own
// clock (performance.now(), whose origin is the navigation), printed, and written to
// tests/e2e/test-results/speed.json. The bounds asserted are loose: they catch a broken or
// pathologically slow build, not a regression of a few percent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, openPage, screenshot, outDir } from './harness.mjs';
import { listedApps, localApp, solvedByBaseline } from './ui.mjs';

let site;
const figures = {};
before(async () => { site = await serve(); });
after(async () => {
  await site?.close();
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, 'speed.json'), JSON.stringify(figures, null, 2) + '\n');
});

/** Resolves with the page's performance.now() at the first frame where `ready()` holds. */
async function timeTo(page, ready, timeout) {
  const handle = await page.waitForFunction(`(${ready})() ? performance.now() : false`, null, { polling: 'raf', timeout });
  return handle.jsonValue();
}

/** The task view is interactive: the prompt is shown and the command line takes input. */
const interactive = () => {
  const input = document.querySelector('#term-command');
  return input && !input.disabled && document.querySelector('#prompt')?.textContent.length > 0;
};

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(0)} ms`;

test('navigation to an interactive task view', async () => {
  // Which application runs in the page: asked in a profile of its own, so the measured one
  // starts cold.
  const probe = await launch();
  const app = await localApp(await openPage(probe.context), site);
  await probe.close();

  const browser = await launch();
  try {
    const page = await openPage(browser.context);
    const url = `${site.url}#/task/${app}-v1-L1-s0-i0?mode=terminal`;
    await page.goto(url, { waitUntil: 'commit' });
    const cold = await timeTo(page, interactive, 30_000);
    assert.ok(await page.textContent('#prompt'), 'the prompt is shown');
    // Reloads: the wasm comes from the browser's cache.
    const warm = [];
    for (let i = 0; i < 3; i++) {
      await page.reload({ waitUntil: 'commit' });
      warm.push(await timeTo(page, interactive, 30_000));
    }
    figures.interactive_task_view = { url: url.replace(site.url, '/'), cold_ms: cold, warm_median_ms: median(warm), warm_ms: warm };
    console.log(`time to an interactive task view (${app}, loopback): cold ${ms(cold)}, warm median ${ms(median(warm))}`);
    // The typed command works at that point.
    await page.fill('#term-command', 'help');
    await screenshot(page, 'speed-task-view');
    assert.ok(cold < 10_000, `interactive after ${ms(cold)}`);
    assert.deepEqual(page.errors, []);
  } finally {
    await browser.close();
  }
});

test('time to the first sandbox result', async (t) => {
  const sandboxed = listedApps().includes('malt') ? 'malt' : null;
  if (!sandboxed) return t.skip('no sandboxed application is registered in this build');
  const record = solvedByBaseline(sandboxed, { levels: '1', seeds: '0..19' });
  const browser = await launch();
  try {
    const page = await openPage(browser.context);
    await page.goto(`${site.url}#/task/${record.id}?mode=paste`, { waitUntil: 'commit' });
    await page.waitForSelector('#paste-text');
    await page.fill('#paste-text', record.turns.at(-1).reply);
    // Clicked from inside the page, so the start is on the same clock as the end.
    const clicked = await page.evaluate(() => { document.querySelector('#paste-run').click(); return performance.now(); });
    const scored = await timeTo(page, () => document.querySelector('.score'), 60_000);
    assert.match(await page.textContent('.score'), /✓ correct/);
    const first = scored - clicked;
    // Another answer (a wrong one) in the worker already loaded.
    await page.fill('#paste-text', 'def process_graph(G):\n    return {"type": "text", "data": 0}\n');
    const again = await page.evaluate(() => { document.querySelector('#paste-run').click(); return performance.now(); });
    const rescored = await timeTo(page, () => /not correct/.test(document.querySelector('.score')?.textContent ?? ''), 30_000);
    const second = rescored - again;
    figures.first_sandbox_result = { id: record.id, from_navigation_ms: scored, from_click_ms: first, next_answer_ms: second };
    console.log(`time to the first sandbox result (${record.id}): ${ms(first)} from Run (episode + run; the worker loaded with the view), ` +
      `${ms(scored)} from navigation; next answer ${ms(second)}`);
    await screenshot(page, 'speed-first-sandbox-result');
    assert.ok(first < 30_000, `first sandbox result after ${ms(first)}`);
    assert.deepEqual(page.errors, []);
  } finally {
    await browser.close();
  }
});

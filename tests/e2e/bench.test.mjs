// Benchmark view (issue 9): the workload of `netpress bench` timed in the browser (sandboxed
// applications inside the sandbox worker), with the native figures of the same workload loaded
// beside it. The workload is seeded, so the baseline solves the same tasks in both places.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve, launch, openPage, screenshot } from './harness.mjs';
import { cli, listedApps, startBench } from './ui.mjs';

let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

test('the Benchmark view runs the netpress bench workload and shows native figures beside it', async () => {
  const tasks = 20;
  const native = JSON.parse(cli(['bench', '--tasks', String(tasks), '--json']));
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'netpress-bench-')), 'native.json');
  fs.writeFileSync(file, JSON.stringify(native));

  const page = await openPage(browser.context);
  await startBench(page, site, tasks, file);
  // The page keeps drawing while the workload runs.
  await page.waitForFunction(() => /tasks…/.test(document.querySelector('#bench-status')?.textContent ?? ''));
  const t0 = Date.now();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  assert.ok(Date.now() - t0 < 1000, 'a frame was drawn within a second');
  await page.waitForFunction(() => /^done/.test(document.querySelector('#bench-status')?.textContent ?? ''), null, { timeout: 120_000 });

  assert.equal(await page.$$eval('#bench-results td.error', (e) => e.length), 0, 'no application failed');
  const rows = await page.$$eval('#bench-results tbody tr', (rs) => rs.map((r) => ({
    app: r.dataset.app, stage: r.dataset.stage, samples: Number(r.cells[2].textContent),
    solved: r.querySelector('.solved').textContent, ratio: r.querySelector('.ratio')?.textContent,
  })));
  const apps = listedApps();
  assert.deepEqual([...new Set(rows.map((r) => r.app))], apps, 'every application, sandboxed ones too');
  for (const app of native.apps) {
    for (const stage of app.stages) {
      const row = rows.find((r) => r.app === app.app && r.stage === stage.stage);
      assert.ok(row, `${app.app} ${stage.stage}`);
      // Same workload: same number of timed samples and the same tasks solved.
      assert.equal(row.samples, stage.samples, `${app.app} ${stage.stage} samples`);
      assert.equal(row.solved, `${app.solved}/${tasks}`, `${app.app} solved`);
      assert.match(row.ratio, /^\d+\.\d\d×$|^—$/, `${app.app} ${stage.stage} ratio`);
    }
  }
  await screenshot(page, 'bench-view');
  assert.deepEqual(page.errors, []);
});

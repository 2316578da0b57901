// History: runs survive a reload; export all as JSONL, then import it back into an empty
// history and get the same runs; a file with bad lines is explained and changes nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve, launch, openPage, screenshot } from './harness.mjs';
import { localApp, runBatch, historyRuns } from './ui.mjs';

let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

test('runs survive a reload', async () => {
  const page = await openPage(browser.context);
  const app = await localApp(page, site);
  await runBatch(page, site, `app=${app}&seeds=200..204`);
  const before = await historyRuns(page, site);
  await page.reload();
  const after = await historyRuns(page, site);
  assert.deepEqual(after, before);
  assert.ok(after.some((r) => r.tasks === (before[0].tasks)));
  await page.goto(site.url + '#/');
  await page.waitForSelector('.recent-list li');
  await screenshot(page, 'history-after-reload');
  assert.deepEqual(page.errors, []);
});

test('export then import round-trips, and a bad file is refused line by line', async () => {
  const page = await openPage(browser.context);
  const app = await localApp(page, site);
  await runBatch(page, site, `app=${app}&seeds=300..306`);
  const runs = await historyRuns(page, site);
  assert.ok(runs.length >= 1);

  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-all')]);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'netpress-export-')), 'all.jsonl');
  await download.saveAs(file);
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
  assert.equal(lines.length, runs.reduce((n, r) => n + r.tasks, 0));
  assert.ok(lines.every((l) => JSON.parse(l).schema === 'netpress.result.v1'));

  // Empty the history, then import the export.
  page.once('dialog', (d) => d.accept());
  await page.check('#runs thead input[type=checkbox]');
  await page.click('text=Delete selected');
  await page.waitForSelector('text=No runs yet');
  await page.setInputFiles('#import-file', file);
  await page.waitForSelector('#history-message.ok');
  const n = (k, one, many) => `${k} ${k === 1 ? one : many}`;
  assert.match(await page.textContent('#history-message'),
    new RegExp(`Imported ${n(lines.length, 'record', 'records')} in ${n(runs.length, 'run', 'runs')}\\.`));
  // The message comes first; the table is read from the store after it: wait for it to list
  // the runs (historyRuns then reads them as stored).
  await page.waitForFunction((n) => document.querySelectorAll('#runs tbody tr[data-run]').length === n, runs.length);
  assert.deepEqual(await historyRuns(page, site), runs);

  // Importing it again adds nothing.
  await page.setInputFiles('#import-file', file);
  // The first import's message (also .ok) stays until this one's is written: wait for it; a
  // wrong message still fails, on the assertion below.
  await page.waitForFunction(() => /already in the history/.test(document.querySelector('#history-message.ok')?.textContent ?? ''),
    null, { timeout: 10_000 }).catch(() => {});
  assert.match(await page.textContent('#history-message'), /already in the history/);
  assert.deepEqual(await historyRuns(page, site), runs);

  // A file with bad lines: each reported with its number; "import nothing" changes nothing.
  const bad = path.join(path.dirname(file), 'bad.jsonl');
  fs.writeFileSync(bad, `${lines[0].replace(/"run":\{[^}]*\}/, '"run":null')}\nnot json\n{"schema":"other"}\n`);
  await page.setInputFiles('#import-file', bad);
  const errors = await page.waitForSelector('#import-errors');
  const text = await errors.textContent();
  assert.match(text, /2 bad lines/);
  assert.match(text, /line 2: not JSON/);
  assert.match(text, /line 3: unsupported schema/);
  await screenshot(page, 'history-import-errors');
  await page.click('text=Import nothing');
  assert.deepEqual(await historyRuns(page, site), runs);
  assert.deepEqual(page.errors, []);
});

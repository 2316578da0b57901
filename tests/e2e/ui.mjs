// Helpers shared by the web app's flow tests: the native CLI as the reference, and the steps
// several flows take (open a view, run a batch, read the history).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root } from './harness.mjs';

const bin = process.env.NETPRESS_BIN || path.join(root, 'target', 'debug', 'netpress');

/** Runs the native CLI and returns its standard output. */
export function cli(args) {
  return execFileSync(bin, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
}

/** Names of the registered applications, from `netpress list`. */
export function listedApps() {
  return [...cli(['list']).matchAll(/^(\w+) \(v\d+\): /gm)].map((m) => m[1]);
}

/** Result records of the native baseline on `app` (levels, seeds as the CLI takes them). */
export function baselineRecords(app, { levels, seeds, extra = [] }) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'netpress-e2e-')), 'run.jsonl');
  const args = ['run', '--app', app, '--agent', 'baseline', '--seeds', seeds, '-q', '-o', file, ...extra];
  if (levels) args.push('--levels', levels);
  cli(args);
  return fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

/** The first record the native baseline got right, or a clear failure. */
export function solvedByBaseline(app, options) {
  const records = baselineRecords(app, options);
  const solved = records.find((r) => r.score.correct && r.score.safe);
  if (!solved) throw new Error(`the ${app} baseline solved none of ${records.length} tasks (${JSON.stringify(options)})`);
  return solved;
}

/** Applications as the page lists them: name and whether episodes need the sandbox worker. */
export async function pageApps(page, site) {
  await page.goto(site.url + '#/');
  await page.waitForSelector('.app-card');
  return page.$$eval('.app-card', (els) => els.map((e) => ({ name: e.dataset.app, sandboxed: e.dataset.sandboxed === 'true' })));
}

/** An application whose episodes run in the page (for flows that any such app exercises). */
export async function localApp(page, site) {
  const app = (await pageApps(page, site)).find((a) => !a.sandboxed);
  if (!app) throw new Error('no application without the sandbox is registered');
  return app.name;
}

/** Waits for `predicate` (run in the page with `arg`) to hold; on a timeout, fails with
 * `what` and the state `shown` (run in the page) reports, not a bare timeout. */
async function waitFor(page, what, predicate, arg, shown, timeout = 30_000) {
  try {
    await page.waitForFunction(predicate, arg, { timeout });
  } catch (e) {
    const now = await page.evaluate(shown).catch((err) => `unreadable: ${err.message}`);
    throw new Error(`${what}; the page shows ${JSON.stringify(now)} (${e.message.split('\n')[0]})`);
  }
}

const cardIds = new Map();

/** The id a task's card shows: a knob given as a preset (`-klarge`) is spelled out there, as
 * `netpress generate` prints it. */
function cardId(id) {
  if (!/-i\d+-/.test(id)) return id;  // no knobs: the id as given
  if (!cardIds.has(id)) cardIds.set(id, JSON.parse(cli(['generate', '--id', id])).id);
  return cardIds.get(id);
}

/** Waits until the task view shows the task `id`. Opening a task is asynchronous (it opens in
 * its application's worker): after the address changes the page still shows the previous
 * task's card, then "Opening the task…", then this one's, so an element that exists (a
 * `#query-id`, a `#term-command`) may still be the previous task's. */
export async function taskShown(page, id, timeout = 30_000) {
  const card = cardId(id);
  await waitFor(page, `the task view did not show ${id}${card === id ? '' : ` (${card})`}`,
    (card) => document.querySelector('#query-id')?.textContent === card, card,
    () => document.querySelector('#query-id')?.textContent ?? document.querySelector('main')?.textContent.slice(0, 200),
    timeout);
}

/** Waits until the answer tab `mode` is the one drawn: its tab selected and its pane in view.
 * A tab switch (click, arrow key, Back) changes the address first and redraws after, and the
 * other tabs stay mounted (hidden), so their fields answer queries meanwhile. */
export async function modeShown(page, mode) {
  await waitFor(page, `the ${mode} tab is not the one shown`, (mode) =>
    document.querySelector(`#tab-${mode}`)?.getAttribute('aria-selected') === 'true'
      && document.querySelector(`.answer .mode-pane[data-mode="${mode}"]:not([hidden])`) !== null, mode,
    () => ({ hash: location.hash, selected: document.querySelector('.answer [role=tab][aria-selected=true]')?.id ?? null,
      shown: document.querySelector('.answer .mode-pane:not([hidden])')?.dataset.mode ?? null }));
}

/** Waits until the terminal in view takes a command: its field is drawn before its episode
 * has started in the worker, and Enter before that (or while a command runs) does nothing, so
 * wait for its Run button, which is enabled exactly when a command can run. */
export async function terminalReady(page) {
  await page.waitForSelector('.answer .mode-pane[data-mode="terminal"]:not([hidden]) .term-input button:not([disabled])');
}

/** Waits until the batch view shows the batch `query` names (its seeds and turn limit in the
 * fields): after the address changes from another batch, the previous batch's form and Run
 * button (which runs the batch it was drawn for) are still there until the redraw. */
export async function batchShown(page, query) {
  const q = new URLSearchParams(query);
  const want = { '#b-turns': q.get('turns') ?? '' };
  if (q.has('seeds')) [want['#b-from'], want['#b-to']] = q.get('seeds').split('..');
  await waitFor(page, `the batch view does not show ${query}`,
    (want) => Object.entries(want).every(([sel, v]) => document.querySelector(sel)?.value === v), want,
    () => [location.hash, ...['#b-from', '#b-to', '#b-turns'].map((sel) => document.querySelector(sel)?.value ?? null)]);
}

/** Runs the batch a batch link describes and waits until its progress bar is full. */
export async function runBatch(page, site, query, timeout = 120_000) {
  await page.goto(`${site.url}#/batch?${query}`);
  await page.waitForSelector('#batch-run');
  await batchShown(page, query);
  // The previous job's card stays on the view, finished, until the new job replaces it: wait for
  // a saved run other than the one shown before the click, or a fast page passes on the old one.
  const saved = () => document.querySelector('.job a[href^="#/compare"]')?.getAttribute('href') ?? null;
  const before = await page.evaluate(saved);
  await page.click('#batch-run');
  await page.waitForFunction((before) => {
    const p = document.querySelector('#batch-progress');
    const link = document.querySelector('.job a[href^="#/compare"]')?.getAttribute('href') ?? null;
    return link && link !== before && p && p.max > 0 && Number(p.value) === Number(p.max)
      && /done/.test(document.querySelector('#batch-status')?.textContent ?? '');
  }, before, { timeout });
  return page.$eval('#batch-status', (e) => e.textContent);
}

/** The history's runs as shown: name, task count. The view is opened afresh, so it reads
 * the stored history: on the History view already, going to its own address redraws nothing,
 * and its table refreshes asynchronously after an import or a deletion. */
export async function historyRuns(page, site) {
  if (await page.evaluate(() => location.hash === '#/history')) {
    await page.goto(`${site.url}#/`);
    await page.waitForSelector('.app-card');
  }
  await page.goto(`${site.url}#/history`);
  await page.waitForSelector('#runs, .history p.muted:not(:empty)');
  await page.waitForFunction(() => !/Loading/.test(document.querySelector('.history').textContent));
  return page.$$eval('#runs tbody tr[data-run]', (rows) => rows.map((r) => ({
    id: r.dataset.run, name: r.cells[1].textContent.trim(), tasks: Number(r.cells[6].textContent),
  })));
}

/** The command a recorded reply carries: `{machine, command}` JSON, a fenced block, or the text. */
export function commandOf(reply) {
  const json = reply.match(/\{[\s\S]*\}/);
  if (json) {
    try {
      const v = JSON.parse(json[0]);
      if (typeof v.command === 'string') return { machine: v.machine ?? null, command: v.command };
    } catch { /* not JSON: fall through */ }
  }
  const fence = reply.match(/```[^\n]*\n([\s\S]*?)```/);
  return { machine: null, command: (fence ? fence[1] : reply).trim() };
}

/** Opens the Benchmark view, loads the native figures in `nativeFile` and starts the workload of
 * `tasks` tasks per application; returns once it runs. */
export async function startBench(page, site, tasks, nativeFile) {
  await page.goto(`${site.url}#/bench`);
  await page.selectOption('#bench-size', String(tasks));
  await page.setInputFiles('#bench-native', nativeFile);
  await page.waitForSelector('#bench-native-status');
  await page.click('#bench-run');
}

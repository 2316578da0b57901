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
export function baselineRecords(app, { levels, seeds }) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'netpress-e2e-')), 'run.jsonl');
  const args = ['run', '--app', app, '--agent', 'baseline', '--seeds', seeds, '-q', '-o', file];
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

/** Runs the batch a batch link describes and waits until its progress bar is full. */
export async function runBatch(page, site, query, timeout = 120_000) {
  await page.goto(`${site.url}#/batch?${query}`);
  await page.waitForSelector('#batch-run');
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

/** The history's runs as shown: name, task count. */
export async function historyRuns(page, site) {
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

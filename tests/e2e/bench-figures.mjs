// Prints the browser-versus-native figures of README's Performance section: the `netpress bench`
// workload natively (the release CLI), then the same workload in the Benchmark view of the built
// site in headless Chromium, as one Markdown table. Not a test (no assertion on speed); run it
// after `cargo build --release --bin netpress` and `trunk build --release --offline`:
//
//   node tests/e2e/bench-figures.mjs [TASKS]        (default 100 tasks per application)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { serve, launch, openPage, root } from './harness.mjs';
import { startBench } from './ui.mjs';

const tasks = Number(process.argv[2] ?? 100);
const bin = process.env.NETPRESS_BIN || path.join(root, 'target', 'release', 'netpress');
const native = JSON.parse(execFileSync(bin, ['bench', '--tasks', String(tasks), '--json'], { encoding: 'utf8' }));
const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'netpress-bench-')), 'native.json');
fs.writeFileSync(file, JSON.stringify(native));

const site = await serve();
const browser = await launch();
try {
  const page = await openPage(browser.context);
  await startBench(page, site, tasks, file);
  await page.waitForFunction(() => /^done/.test(document.querySelector('#bench-status')?.textContent ?? ''),
    null, { timeout: 600_000 });
  const rows = await page.$$eval('#bench-results tbody tr', (rs) => rs.map((r) => [...r.cells].map((c) => c.textContent)));
  console.log(`| app | stage | samples | browser median ms | browser mean ms | native median ms | native mean ms | browser / native (mean) |`);
  console.log(`|---|---|---:|---:|---:|---:|---:|---:|`);
  // Columns of the view: app, stage, samples, median, mean, p95, max, per second, solved,
  // native median, native mean, ratio.
  for (const c of rows) console.log(`| ${c[0]} | ${c[1]} | ${c[2]} | ${c[3]} | ${c[4]} | ${c[9]} | ${c[10]} | ${c[11]} |`);
  if (page.errors.length) console.error('page errors:', page.errors);
} finally {
  await browser.close();
  await site.close();
}

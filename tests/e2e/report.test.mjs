// The HTML report of `netpress report`: opens in headless Chromium from a file:// URL, fetches
// nothing, logs no console errors, and draws every chart.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, openPage, screenshot, root } from './harness.mjs';

const bin = process.env.NETPRESS_BIN || path.join(root, 'target', 'debug', 'netpress');
let browser, dir;

/** A result record (schema netpress.result.v1) of a synthetic episode. */
function record(seed, agent, maxTurns, correct, safe) {
  const labels = ['DR', 'DI', 'RI', 'DR+DI'];
  return {
    schema: 'netpress.result.v1', netpress_version: '0.1.0',
    id: `route-v1-L1-s${seed}-i0`, content_hash: seed.toString(16).padStart(64, '0'),
    app: 'route', level: 1, label: labels[seed % 4],
    agent: { kind: 'baseline', name: agent }, prompt_variant: 'zeroshot_base', max_turns: maxTurns,
    prompt: `Task ${seed} <fix> the "network" & more`,
    turns: [{ turn: 1, reply: '```\nr0: ip route\n```', action: 'r0: ip route', output: '', observation: 'ok', latency_ms: 40 }],
    finish: correct ? 'solved' : 'turn_limit',
    score: { correct, safe, progress: correct ? 1 : 0.5, turns: 1, latency_ms: 40, explanation: '', details: {} },
  };
}

/** Deterministic pseudo-random outcomes (a small LCG; the Rust tests cover the statistics). */
function outcomes(n, rate, seed) {
  let x = seed;
  return Array.from({ length: n }, () => { x = (x * 1103515245 + 12345) % 2147483648; return x / 2147483648 < rate; });
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netpress-report-'));
  const write = (file, agent, maxTurns, rate, seed) => {
    const ok = outcomes(300, rate, seed);
    const lines = ok.map((c, i) => JSON.stringify(record(i, agent, maxTurns, c, i % 9 !== 0)));
    fs.writeFileSync(path.join(dir, file), lines.join('\n') + '\n');
  };
  write('base.jsonl', 'route-baseline', 10, 0.62, 1);
  write('b3.jsonl', 'route-baseline', 3, 0.5, 2);
  execFileSync(bin, ['report', path.join(dir, 'base.jsonl'), path.join(dir, 'b3.jsonl'), '-o', path.join(dir, 'report.html')], { stdio: 'pipe' });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('the report opens offline, fetches nothing and logs no errors', async () => {
  const page = await openPage(browser.context);
  const file = pathToFileURL(path.join(dir, 'report.html')).href;
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(file);
  await page.waitForSelector('figure svg');
  assert.deepEqual(requests.filter((u) => u !== file && !u.startsWith('data:')), []);
  assert.equal(await page.title(), 'NetPress report');
  await screenshot(page, 'report');
  assert.deepEqual(page.errors, []);
});

test('every chart is drawn with a size and tooltips', async () => {
  const page = await openPage(browser.context);
  await page.goto(pathToFileURL(path.join(dir, 'report.html')).href);
  const figures = await page.$$eval('figure', (fs) => fs.map((f) => {
    const box = f.querySelector('svg').getBoundingClientRect();
    return { id: f.id, width: box.width, height: box.height, tips: f.querySelectorAll('g > title').length };
  }));
  assert.deepEqual(figures.map((f) => f.id), [
    'correctness-route', 'safety-route', 'safety-vs-correctness',
    'radar-baseline-route-baseline-t10', 'radar-baseline-route-baseline-t3',
    'convergence-correctness', 'convergence-safety',
  ]);
  for (const f of figures) {
    assert.ok(f.width > 300 && f.height > 150, `${f.id} is drawn: ${f.width}x${f.height}`);
    assert.ok(f.tips > 0, `${f.id} has tooltips`);
  }
  const rows = await page.$$eval('#queries ~ details table tbody tr', (rs) => rs.length);
  assert.equal(rows, 300);
  const data = JSON.parse(await page.$eval('#netpress-tables', (s) => s.textContent));
  assert.deepEqual(data.agents, ['baseline:route-baseline T10', 'baseline:route-baseline T3']);
  assert.deepEqual(page.errors, []);
});

/** Browser-side: every chart's background, and the lowest contrast of its text against it. */
const chartColours = () => {
  const rgb = (s) => s.match(/[\d.]+/g).slice(0, 3).map(Number);
  const lum = (c) => c.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  return [...document.querySelectorAll('figure svg')].map((svg) => {
    const bg = rgb(getComputedStyle(svg.querySelector('rect')).fill);
    const worst = Math.min(...[...svg.querySelectorAll('text')].map((t) => ratio(rgb(getComputedStyle(t).fill), bg)));
    // A transparent body shows the light canvas (the dark scheme sets its own background).
    const body = getComputedStyle(document.body).backgroundColor;
    const page = /rgba\(.*, 0\)$/.test(body) ? [255, 255, 255] : rgb(body);
    return { id: svg.parentElement.id, bg, worst, page };
  });
};

for (const colorScheme of ['light', 'dark']) {
  test(`charts and page follow the ${colorScheme} colour scheme with readable text`, async () => {
    const page = await openPage(browser.context);
    await page.emulateMedia({ colorScheme });
    await page.goto(pathToFileURL(path.join(dir, 'report.html')).href);
    await page.waitForSelector('figure svg');
    for (const c of await page.evaluate(chartColours)) {
      const dark = c.bg.every((v) => v < 64);
      assert.equal(dark, colorScheme === 'dark', `${c.id}: background ${c.bg} in the ${colorScheme} scheme`);
      assert.equal(c.page.every((v) => v < 64), colorScheme === 'dark', `page background ${c.page}`);
      assert.ok(c.worst >= 4.5, `${c.id}: text at ${c.worst.toFixed(2)}:1`);
    }
    await screenshot(page, `report-${colorScheme}`);
    assert.deepEqual(page.errors, []);
  });
}

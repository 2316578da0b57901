// Browser test of the MALT sandbox worker (docs/malt.md, the sandbox in the browser).
// Run by scripts/malt-worker-e2e.sh, which builds the worker bundle, serves SITE and writes
// CASES (oracle answers with the native result records). Proves in headless Chromium:
// - an infinite loop returns a TimeoutError in 2.0–2.5 s while the page keeps ticking;
// - a huge allocation and gradual growth return a MemoryError;
// - the watchdog terminates and respawns a worker that runs past the page's limit;
// - correct answers score correct with the same result record as natively;
// - the in-worker check time of every mutating family's oracle answer (p50/p95/max printed,
//   p95 < 100 ms);
// - a task on the one-million-node fabric runs in the worker while the page keeps ticking.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';

const { chromium } = await import(process.env.PLAYWRIGHT_CORE || 'playwright-core');
const SITE = process.env.SITE;
const CASES = JSON.parse(fs.readFileSync(process.env.CASES, 'utf8'));
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };

const server = http.createServer((req, res) => {
  const file = path.join(SITE, decodeURIComponent(new URL(req.url, 'http://x').pathname));
  if (!file.startsWith(SITE) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' });
  fs.createReadStream(file).pipe(res);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}/index.html`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage();
page.on('pageerror', (e) => console.error('page error:', e.message));
// Console warnings of the page and its workers (wasm-bindgen warns when the worker's entry
// script starts the wasm with deprecated parameters).
const warnings = [];
page.on('console', (msg) => { if (msg.type() === 'warning') warnings.push(msg.text()); });
await page.goto(url);
await page.waitForFunction(() => document.getElementById('status').textContent === 'ready', null, { timeout: 60000 });

const ID = 'malt-v1-L1-s0-i4';
const body = (lines) => `def process_graph(G):\n${lines}\n`;
const check = (id, answer, limits = {}, watchdogMs = 2000) =>
  page.evaluate(([i, a, l, w]) => window.malt.check(i, a, l, w), [id, answer, limits, watchdogMs]);
const observation = (msg) => msg.record.turns[0].observation;
let failures = 0;
async function test(name, fn) {
  try {
    await fn();
    console.log(`ok   ${name}`);
  } catch (e) {
    failures += 1;
    console.log(`FAIL ${name}\n${e.stack || e}`);
  }
}

await test('warm-up: the first check builds the topology', async () => {
  const msg = await check(ID, body("    return {'type': 'text', 'data': 1}"), {}, 30000);
  assert.equal(msg.op, 'checked', JSON.stringify(msg));
});

await test('infinite loop: TimeoutError in 2.0-2.5 s, page responsive', async () => {
  const ticks0 = await page.evaluate(() => window.malt.ticks());
  const t0 = Date.now();
  const msg = await check(ID, body('    while True:\n        pass'));
  const seconds = (Date.now() - t0) / 1000;
  const ticks = (await page.evaluate(() => window.malt.ticks())) - ticks0;
  assert.equal(msg.op, 'checked', JSON.stringify(msg));
  assert.match(observation(msg), /TimeoutError/);
  assert.ok(seconds >= 2.0 && seconds <= 2.5, `took ${seconds} s`);
  assert.ok(ticks >= (seconds * 1000 / 50) * 0.6, `page ticked ${ticks} times in ${seconds} s`);
  console.log(`     timeout after ${seconds.toFixed(3)} s; page ticked ${ticks} times meanwhile`);
});

await test('huge allocation: MemoryError', async () => {
  const msg = await check(ID, body('    x = [0] * 10**8\n    return 1'));
  assert.equal(msg.op, 'checked', JSON.stringify(msg));
  assert.match(observation(msg), /MemoryError/);
});

await test('gradual growth: MemoryError', async () => {
  const msg = await check(ID, body("    x = []\n    while True:\n        x.append('y' * 1000)"), {}, 10000);
  assert.equal(msg.op, 'checked', JSON.stringify(msg));
  assert.match(observation(msg), /MemoryError/);
});

await test('watchdog: a worker past the page limit is terminated and respawned', async () => {
  const before = await page.evaluate(() => window.malt.client.respawns);
  const t0 = Date.now();
  const msg = await check(ID, body('    while True:\n        pass'), { time_ms: 60000 }, 2000);
  const seconds = (Date.now() - t0) / 1000;
  assert.equal(msg.message, 'TimeoutError: sandbox terminated');
  assert.ok(seconds >= 5 && seconds < 7, `watchdog fired after ${seconds} s`);
  assert.equal(await page.evaluate(() => window.malt.client.respawns), before + 1);
  const next = await check(ID, body("    return {'type': 'text', 'data': 1}"), {}, 30000);
  assert.equal(next.op, 'checked', 'the respawned worker answers');
});

const times = {};
await test('oracle answers score correct with the native result records', async () => {
  for (const c of CASES) {
    const msg = await check(c.id, c.answer, {}, 30000);
    assert.equal(msg.op, 'checked', `${c.id}: ${JSON.stringify(msg)}`);
    assert.deepEqual(msg.record, c.record, `${c.id}: browser record differs from native`);
    if (c.mutating) (times[c.family] ||= []).push(msg.check_ms);
  }
});

const pct = (xs, q) => xs[Math.round((xs.length - 1) * q)];
let all = [];
console.log('in-worker check time of oracle answers (ms)   p50     p95     max');
for (const [family, xs] of Object.entries(times)) {
  xs.sort((a, b) => a - b);
  all = all.concat(xs);
  console.log(`  ${family.padEnd(42)} ${pct(xs, 0.5).toFixed(1).padStart(6)} ${pct(xs, 0.95).toFixed(1).padStart(7)} ${xs[xs.length - 1].toFixed(1).padStart(7)}`);
}
all.sort((a, b) => a - b);
if (all.length) {
  console.log(`  ${'all mutating families'.padEnd(42)} ${pct(all, 0.5).toFixed(1).padStart(6)} ${pct(all, 0.95).toFixed(1).padStart(7)} ${all[all.length - 1].toFixed(1).padStart(7)}`);
  await test('check p95 < 100 ms in the browser worker', async () => {
    assert.ok(pct(all, 0.95) < 100, `p95 ${pct(all, 0.95)} ms`);
  });
}

await test('scale: a task on the xl fabric (1,166,929 nodes) runs in the worker, page responsive', async () => {
  const ticks0 = await page.evaluate(() => window.malt.ticks());
  const t0 = Date.now();
  const msg = await check('malt-v1-L1-s0-i4-kxl', body("    return {'type': 'text', 'data': G.number_of_nodes()}"), {}, 120000);
  const seconds = (Date.now() - t0) / 1000;
  const ticks = (await page.evaluate(() => window.malt.ticks())) - ticks0;
  assert.equal(msg.op, 'checked', JSON.stringify(msg).slice(0, 400));
  assert.match(observation(msg), /Answer received/);
  assert.ok(ticks >= (seconds * 1000 / 50) * 0.6, `page ticked ${ticks} times in ${seconds} s`);
  console.log(`     xl fabric built and checked in ${seconds.toFixed(2)} s (check ${msg.check_ms.toFixed(1)} ms); page ticked ${ticks} times`);
  const again = await check('malt-v1-L1-s0-i4-kxl', body("    return {'type': 'text', 'data': G.number_of_nodes()}"), {}, 120000);
  console.log(`     again on the cached xl fabric: check ${again.check_ms.toFixed(1)} ms`);
});

await test('no console warnings from the page or its workers', async () => {
  assert.deepEqual(warnings, []);
});

await browser.close();
server.close();
process.exit(failures ? 1 : 0);

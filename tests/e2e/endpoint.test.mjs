// Endpoint mode and endpoint batches against the scripted mock agent server (`netpress
// mock-agent`) on loopback: the agent's replies are those the native baseline gave, so the
// episodes must end as the CLI's did; Stop aborts a slow call; a wrong key stops a batch; the
// key is sent to the endpoint and nowhere else.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { serve, launch, openPage, screenshot, root } from './harness.mjs';
import { localApp, baselineRecords } from './ui.mjs';

let site, browser, mock, mockUrl;
before(async () => {
  site = await serve();
  browser = await launch();
  const bin = process.env.NETPRESS_BIN || path.join(root, 'target', 'debug', 'netpress');
  mock = spawn(bin, ['mock-agent'], { stdio: ['ignore', 'pipe', 'inherit'] });
  mockUrl = await new Promise((resolve, reject) => {
    mock.stdout.on('data', (d) => { const m = String(d).match(/listening on (\S+)/); if (m) resolve(m[1]); });
    mock.on('exit', (code) => reject(new Error(`mock-agent exited with ${code}`)));
  });
});
after(async () => { mock?.kill(); await browser?.close(); await site?.close(); });

/** Loads a script of chat replies into a namespace of the mock server. */
async function script(name, openai) {
  const res = await fetch(`${mockUrl}/_mock/${name}`, { method: 'PUT', body: JSON.stringify({ openai }) });
  assert.equal(res.status, 200);
}

/** Fills the endpoint form (each field commits on blur). */
async function configure(page, { url, key = '' }) {
  for (const [sel, value] of [['#ep-url', url], ['#ep-model', 'mock-model'], ['#ep-key', key]]) {
    await page.fill(sel, value);
    await page.press(sel, 'Tab');
  }
}

test('an endpoint agent solves a task turn by turn; the key goes only to the endpoint', async () => {
  const page = await openPage(browser.context);
  const app = await localApp(page, site);
  const record = baselineRecords(app, { levels: '1', seeds: '0..9' }).find((r) => r.score.correct);
  await script('solve', record.turns.map((t) => ({ text: t.reply, delay_ms: 100, usage: [120, 30] })));
  await page.goto(`${site.url}#/task/${record.id}?mode=endpoint`);
  await configure(page, { url: `${mockUrl}/s/solve/v1`, key: 'sk-test-secret' });
  await page.click('#endpoint-run');
  await page.waitForSelector('.turn[data-turn="1"]');
  const score = await page.waitForSelector('.score');
  assert.match(await score.textContent(), /✓ correct/);
  assert.match(await score.textContent(), new RegExp(`tokens${150 * record.turns.length}`));
  assert.equal(await page.$$eval('.turn', (t) => t.length), record.turns.length);
  const log = await (await fetch(`${mockUrl}/_mock/solve/requests`)).json();
  assert.ok(log.every((r) => r.headers.authorization === 'Bearer sk-test-secret'));
  const stored = await page.evaluate(() => JSON.stringify(localStorage));
  assert.ok(!stored.includes('sk-test-secret'), 'the key is not stored unless asked');
  assert.ok(!page.url().includes('sk-test'), 'nor put in the URL');
  await screenshot(page, 'endpoint-solved');
  assert.deepEqual(page.errors, []);
});

test('Stop aborts the call in flight', async () => {
  const page = await openPage(browser.context);
  const app = await localApp(page, site);
  await script('slow', [{ text: 'thinking…', delay_ms: 20_000 }]);
  await page.goto(`${site.url}#/task/${app}-v1-L1-s0-i0?mode=endpoint`);
  await configure(page, { url: `${mockUrl}/s/slow/v1` });
  await page.click('#endpoint-run');
  await page.waitForFunction(() => document.querySelector('#endpoint-run').disabled);
  const t0 = Date.now();
  await page.click('text=Stop');
  await page.waitForSelector('.score');
  assert.ok(Date.now() - t0 < 5000, 'stopped at once, not after the slow reply');
  assert.match(await page.textContent('.finish'), /Stopped: cancelled by the user/);
  assert.deepEqual(page.errors, []);
});

test('an unreachable endpoint stops the run at once, and the card counts turns one way', async () => {
  const page = await openPage(browser.context);
  const app = await localApp(page, site);
  // A port nothing listens on: the mock server's, after this test's own server closed it.
  const closed = await new Promise((resolve) => {
    const s = http.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
  await page.goto(`${site.url}#/task/${app}-v1-L1-s0-i0?mode=endpoint`);
  await configure(page, { url: `http://127.0.0.1:${closed}/v1` });
  const t0 = Date.now();
  await page.click('#endpoint-run');
  const score = await page.waitForSelector('.score', { timeout: 30_000 });
  const took = Date.now() - t0;
  assert.ok(took < 5000, `gave up in ${took} ms (was about 21 s: 3 calls × 3 retries)`);
  assert.match(await page.textContent('.finish'), /gave up after one retry/);
  const text = await score.textContent();
  assert.match(text, /turns used1 of \d+ \(1 failed agent call\)/);
  assert.doesNotMatch(text, /turn\(s\)|\b1 turns\b/, 'plurals are words, not "(s)"');
  assert.deepEqual(page.errors.filter((e) => !/Failed to load resource|ERR_CONNECTION_REFUSED/.test(e)), []);
});

test('an endpoint batch matches the CLI, and a rejected key stops a batch', async () => {
  const page = await openPage(browser.context);
  const app = await localApp(page, site);
  const native = baselineRecords(app, { levels: '1', seeds: '0..3' });
  await script('batch', native.flatMap((r) => r.turns.map((t) => ({ text: t.reply }))));
  await page.goto(`${site.url}#/batch?app=${app}&levels=1&seeds=0..3&agent=endpoint`);
  await configure(page, { url: `${mockUrl}/s/batch/v1` });
  await page.click('#batch-run');
  await page.waitForFunction(() => /done/.test(document.querySelector('#batch-status')?.textContent ?? ''));
  const correct = native.filter((r) => r.score.correct).length;
  assert.match(await page.textContent('.totals'), new RegExp(`^correct ${(100 * correct / native.length).toFixed(1)}%`));
  await screenshot(page, 'endpoint-batch');

  await script('denied', [{ status: 401 }]);
  await configure(page, { url: `${mockUrl}/s/denied/v1` });
  await page.click('#batch-run');
  await page.waitForFunction(() => /stopped:/.test(document.querySelector('#batch-status')?.textContent ?? ''));
  assert.match(await page.textContent('#batch-status'), /401/);
  // The browser itself logs the refused request; nothing else may be logged.
  assert.deepEqual(page.errors.filter((e) => !/status of 401/.test(e)), []);
});

// Paste mode: a correct MALT answer (the Python program the native baseline wrote for a task it
// got right) pasted and run in the sandbox worker, scored correct; a wrong one explained.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, screenshot } from './harness.mjs';
import { baselineRecords, listedApps, solvedByBaseline } from './ui.mjs';

let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

test('a correct MALT answer pasted and run in the sandbox is scored correct', async (t) => {
  if (!listedApps().includes('malt')) return t.skip('malt is not registered in this build');
  const record = solvedByBaseline('malt', { levels: '1', seeds: '0..19' });
  const answer = record.turns.at(-1).reply;
  const page = await openPage(browser.context);
  const workers = [];
  page.on('worker', (w) => workers.push(w));
  await page.goto(`${site.url}#/task/${record.id}?mode=paste`);
  await page.waitForSelector('#paste-text');
  // The page links no engine: MALT's worker bundle loads when its task opens (docs/bundles.md).
  assert.equal(workers.length, 1, 'the MALT worker loads when its task opens');
  assert.match(workers[0].url(), /\/netpress-worker_loader\.js$/);
  assert.equal(await workers[0].evaluate(() => self.name), 'malt', 'the worker is named after its application');
  await page.fill('#paste-text', answer);
  await page.click('#paste-run');
  const score = await page.waitForSelector('.score', { timeout: 60_000 });
  assert.match(await score.textContent(), /✓ correct/);
  assert.match(await score.textContent(), /✓ safe/);
  assert.equal(workers.length, 1, 'the same worker ran the answer');
  await screenshot(page, 'paste-malt');

  // The same task with a broken answer: an explanation, not a crash.
  await page.fill('#paste-text', 'def process_graph(G):\n    return {"type": "text", "data": G.no_such_method()}\n');
  await page.click('#paste-run');
  await page.waitForFunction(() => /not correct/.test(document.querySelector('.score')?.textContent ?? ''));
  assert.deepEqual(page.errors, []);
});

// Traffic and microseg answer in Python too, each from a worker bundle of its own (with its own
// copy of the interpreter, docs/bundles.md): their tasks must load that bundle, not MALT's, and
// score a pasted program there. The native baseline solves traffic tasks but no microseg task,
// so microseg's check is that its answer is scored at all, with the baseline's own verdict.
// Traffic's chain is 24 program answers in one episode: pasted as a transcript, one reply per
// `=== Your reply ===` section, it plays all 24 turns in the worker and scores as natively.
test('a pasted transcript plays traffic\'s 24-question chain turn by turn', async (t) => {
  if (!listedApps().includes('traffic')) return t.skip('traffic is not registered in this build');
  const [record] = baselineRecords('traffic', { levels: '4', seeds: '0', extra: ['--question-mode', 'chain'] });
  assert.equal(record.turns.length, 24);
  const page = await openPage(browser.context);
  await page.goto(`${site.url}#/task/${record.id}?mode=paste`);
  await page.waitForSelector('#paste-text');
  await page.fill('#paste-text', record.turns.map((turn) => `=== Your reply ===\n${turn.reply}`).join('\n\n'));
  await page.click('#paste-run');
  const score = await page.waitForSelector('.score', { timeout: 120_000 });
  const passes = record.score.explanation.match(/\d+ of 24 questions pass/)[0];
  assert.match(await score.textContent(), new RegExp(passes), 'the same count as the native run');
  assert.match(await score.textContent(), /24 turns of 24/);
  assert.deepEqual(page.errors, []);
});

for (const app of ['traffic', 'microseg']) {
  test(`a ${app} task loads its own worker bundle and scores a pasted answer there`, async (t) => {
    if (!listedApps().includes(app)) return t.skip(`${app} is not registered in this build`);
    const records = baselineRecords(app, { levels: '1', seeds: '0..9' });
    const record = records.find((r) => r.score.correct) ?? records[0];
    const page = await openPage(browser.context);
    const workers = [];
    page.on('worker', (w) => workers.push(w));
    await page.goto(`${site.url}#/task/${record.id}?mode=paste`);
    await page.waitForSelector('#paste-text');
    assert.equal(workers.length, 1, `the ${app} worker loads when its task opens`);
    assert.equal(await workers[0].evaluate(() => self.name), app);
    const fetched = await workers[0].evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
    const bundles = fetched.map((u) => u.match(/netpress-worker-(\w+)(?:_bg\.wasm|\.js)$/)?.[1]).filter(Boolean);
    assert.deepEqual([...new Set(bundles)], [app], `the worker fetched only ${app}'s bundle: ${fetched.join(', ')}`);
    await page.fill('#paste-text', record.turns.at(-1).reply);
    await page.click('#paste-run');
    const score = await page.waitForSelector('.score', { timeout: 60_000 });
    const verdict = record.score.correct ? /✓ correct/ : /not correct/;
    assert.match(await score.textContent(), verdict, 'the same verdict as the native run');
    assert.equal(workers.length, 1, 'the same worker ran the answer');
    assert.deepEqual(page.errors, []);
  });
}

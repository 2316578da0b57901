// Terminal mode: a person solves a Route task and a K8s task by typing commands, one per turn.
// The commands are those the native baseline used on a task it solved; the page must show the
// same outputs as the native emulator and end with a correct, safe score.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, screenshot } from './harness.mjs';
import { listedApps, solvedByBaseline, commandOf, terminalReady } from './ui.mjs';

let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

async function solveByTyping(app, t) {
  if (!listedApps().includes(app)) return t.skip(`${app} is not registered in this build`);
  const record = solvedByBaseline(app, { levels: '1', seeds: '0..9' });
  const page = await openPage(browser.context);
  await page.goto(`${site.url}#/task/${record.id}?mode=terminal`);
  await page.waitForSelector('#term-command:not([disabled])');
  assert.equal(await page.textContent('#content-hash'), record.content_hash);
  for (const [i, turn] of record.turns.entries()) {
    const { machine, command } = commandOf(turn.reply);
    // The field is drawn before the episode has started in the worker: Enter then does nothing.
    await terminalReady(page);
    if (machine) await page.selectOption('#term-target', machine);
    await page.fill('#term-command', command);
    await page.press('#term-command', 'Enter');
    const out = await page.waitForSelector(`.term-turn[data-turn="${i + 1}"] pre.out`);
    assert.equal(await out.textContent(), turn.output || '(no output)', `turn ${i + 1}: ${command}`);
  }
  const score = await page.waitForSelector('.score');
  assert.match(await score.textContent(), /✓ correct/);
  assert.match(await score.textContent(), /✓ safe/);
  // The commands typed are in the URL: reopening it replays the session to the same end.
  const again = await openPage(browser.context);
  await again.goto(page.url());
  assert.match(await (await again.waitForSelector('.score')).textContent(), /✓ correct/);
  await screenshot(page, `terminal-${app}`);
  assert.deepEqual([...page.errors, ...again.errors], []);
}

test('a Route task solved by typing commands in the terminal', (t) => solveByTyping('route', t));
test('a K8s task solved by typing commands in the terminal', (t) => solveByTyping('k8s', t));

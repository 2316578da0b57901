// The answer tabs keep the user's work: switching tabs (clicks, ←/→, Back) keeps each tab's
// session and its `answer=`; drafts survive a reload; a reset can be undone; Copy link says
// what the link holds when the session is too long for it; opening a shared link adds nothing
// to the viewer's history until the viewer acts; `/` focuses the answer without typing into
// it; the terminal takes `machine: command` and refuses, without using a turn, what it will
// not run; the newest output stays in view.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, screenshot } from './harness.mjs';
import { listedApps, historyRuns, taskShown, modeShown, terminalReady } from './ui.mjs';

let site, browser, other;
before(async () => { site = await serve(); browser = await launch(); other = await launch(); });
after(async () => { await browser?.close(); await other?.close(); await site?.close(); });

// Drafts persist per task in the shared browser profile: each test uses tasks of its own.
const TASK = 'route-v1-L1-s0-i0';
const pane = (mode) => `.mode-pane[data-mode="${mode}"]`;

/** A page that records every console message (warnings too), not only errors. */
async function watchedPage(context) {
  const page = await openPage(context);
  page.messages = [];
  page.on('console', (msg) => page.messages.push(`${msg.type()}: ${msg.text()}`));
  return page;
}

/** Types one command at the terminal prompt (once it takes one) and waits for its turn to be
 * shown. */
async function typeCommand(page, command, turn) {
  await terminalReady(page);
  await page.fill('#term-command', command);
  await page.press('#term-command', 'Enter');
  return page.waitForSelector(`${pane('terminal')} .term-turn[data-turn="${turn}"] pre.out`);
}

function skipWithoutRoute(t) {
  if (!listedApps().includes('route')) { t.skip('route is not registered in this build'); return true; }
  return false;
}

test('switching tabs keeps each tab\'s session and answer, and Back brings them back', async (t) => {
  if (skipWithoutRoute(t)) return;
  const page = await watchedPage(browser.context);
  await page.goto(`${site.url}#/task/${TASK}?mode=terminal`);
  await page.waitForSelector('#term-command:not([disabled])');
  // `machine: command`, as Paste and agents write it, runs on that machine.
  const out = await typeCommand(page, 'h1: ip addr', 1);
  assert.doesNotMatch(await out.textContent(), /command not found/);
  assert.match(await page.textContent(`${pane('terminal')} .term-turn[data-turn="1"] .cmd`), /^h1\$ ip addr$/);
  await typeCommand(page, 'r0: ip route', 2);
  await page.waitForFunction(() => /[?&]answer=/.test(location.hash));
  const terminalUrl = page.url();

  await page.click('#tab-paste');
  await page.waitForFunction(() => location.hash.includes('mode=paste'));
  await page.fill('#paste-text', 'r0: ip link');
  await page.click('#tab-terminal');
  await page.waitForFunction(() => location.hash.includes('mode=terminal'));
  assert.equal(page.url(), terminalUrl, 'the terminal tab comes back with its answer in the URL');
  // The address changes before the tab is redrawn, and the hidden terminal pane holds its turns
  // all along: count them once the terminal is the tab in view.
  await modeShown(page, 'terminal');
  assert.equal(await page.$$eval(`${pane('terminal')} .term-turn`, (x) => x.length), 2, 'session kept');

  // ←/→ on the tab bar move between tabs the same way.
  await page.focus('#tab-terminal');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => location.hash.includes('mode=paste'));
  // Also before the next key: the tab bar moves from the tab it last drew.
  await modeShown(page, 'paste');
  assert.equal(await page.inputValue('#paste-text'), 'r0: ip link', 'the paste draft survives');
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => location.hash.includes('mode=terminal'));
  await modeShown(page, 'terminal');
  assert.equal(await page.$$eval(`${pane('terminal')} .term-turn`, (x) => x.length), 2);

  // Back walks the tabs in reverse, each with its own answer.
  await page.goBack();
  await page.waitForFunction(() => location.hash.includes('mode=paste'));
  await modeShown(page, 'paste');
  assert.equal(await page.inputValue('#paste-text'), 'r0: ip link');
  await page.goBack();
  await page.waitForFunction(() => location.hash.includes('mode=terminal'));
  await page.goBack();
  await page.waitForFunction(() => location.hash.includes('mode=paste'));
  await page.goBack();
  await page.waitForFunction(() => location.hash.includes('mode=terminal'));
  assert.equal(page.url(), terminalUrl, 'Back restores answer= too');
  await modeShown(page, 'terminal');
  assert.equal(await page.$$eval(`${pane('terminal')} .term-turn`, (x) => x.length), 2);
  await screenshot(page, 'session-tabs');
  assert.deepEqual(page.errors, []);
});

test('drafts are kept in this browser across reloads, and a reset can be undone', async (t) => {
  if (skipWithoutRoute(t)) return;
  const page = await watchedPage(browser.context);
  const id = 'route-v1-L1-s1-i0';
  await page.goto(`${site.url}#/task/${id}?mode=paste`);
  await page.fill('#paste-text', 'h1: ip addr\nr0: ip route');
  await page.reload();
  await page.waitForSelector('#paste-text');
  assert.equal(await page.inputValue('#paste-text'), 'h1: ip addr\nr0: ip route', 'the paste draft is restored');

  await page.goto(`${site.url}#/task/${id}?mode=terminal`);
  await page.waitForSelector('#term-command:not([disabled])');
  await typeCommand(page, 'h1: ip addr', 1);
  await typeCommand(page, 'h2: ip addr', 2);
  // A bare link to the task (no answer=) finds the session this browser kept.
  const fresh = await watchedPage(browser.context);
  await fresh.goto(`${site.url}#/task/${id}?mode=terminal`);
  await fresh.waitForSelector(`${pane('terminal')} .term-turn[data-turn="2"]`);
  assert.match(await fresh.textContent('#term-origin'), /Restored the 2 commands/);
  await fresh.click('#term-reset');
  await fresh.waitForSelector('#term-undo');
  assert.equal(await fresh.$$eval(`${pane('terminal')} .term-turn`, (x) => x.length), 0);
  await fresh.click('#term-undo');
  await fresh.waitForSelector(`${pane('terminal')} .term-turn[data-turn="2"]`);
  assert.deepEqual([...page.errors, ...fresh.errors], []);
});

test('Copy link says when the answer is too long for the link, and what the link holds', async (t) => {
  if (skipWithoutRoute(t)) return;
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.url });
  const page = await watchedPage(browser.context);
  await page.goto(`${site.url}#/task/route-v1-L1-s4-i0?mode=terminal`);
  await page.waitForSelector('#term-command:not([disabled])');
  // One 10,000-character command is refused without using a turn (once the terminal takes
  // commands: before its episode starts, Enter does nothing at all).
  await terminalReady(page);
  await page.fill('#term-command', `h1: echo ${'x'.repeat(10_000)}`);
  await page.press('#term-command', 'Enter');
  assert.match(await (await page.waitForSelector('#term-notice')).textContent(), /no turn used/);
  assert.equal(await page.$$eval(`${pane('terminal')} .term-turn`, (x) => x.length), 0);
  assert.match(await page.textContent('#term-turns'), /Turns used: 0 of \d+\. Each command run uses one turn/);
  // Commands that together outgrow a link.
  for (let i = 1; i <= 2; i++) await typeCommand(page, `h1: echo ${String(i).repeat(3000)}`, i);
  await page.click('#copy-link');
  const status = await (await page.waitForSelector('#copy-link-status:not(:empty)')).textContent();
  assert.match(status, /^copied the task only: your answer \(\d+ bytes\) is longer than a link can hold/);
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.ok(!copied.includes('answer='), copied);
  assert.ok(copied.includes('#/task/route-v1-L1-s4-i0'), copied);

  // A short session travels whole, and the status says so.
  // Another task in the same page: until it has opened, the previous task's terminal (with its
  // two turns) and its Copy link are still the ones shown.
  await page.goto(`${site.url}#/task/route-v1-L1-s2-i0?mode=terminal`);
  await taskShown(page, 'route-v1-L1-s2-i0');
  await page.waitForSelector('#term-command:not([disabled])');
  await typeCommand(page, 'h1: ip addr', 1);
  await page.click('#copy-link');
  assert.match(await (await page.waitForSelector('#copy-link-status:not(:empty)')).textContent(), /replays your answer/);
  assert.match(await page.evaluate(() => navigator.clipboard.readText()), /[?&]answer=/);
  assert.deepEqual(page.errors, []);
});

test('opening a shared link twice records nothing; acting records once', async (t) => {
  if (skipWithoutRoute(t)) return;
  const sender = await watchedPage(browser.context);
  await sender.goto(`${site.url}#/task/route-v1-L1-s3-i0?mode=paste`);
  await sender.fill('#paste-text', 'h1: ip addr\nr0: ip route');
  await sender.click('#paste-run');
  await sender.waitForSelector(`${pane('paste')} .score`);
  const link = sender.url();
  assert.match(link, /[?&]answer=/);

  const viewer = await watchedPage(other.context);
  for (let i = 0; i < 2; i++) {
    await viewer.goto(link);
    await viewer.reload();
    const score = await viewer.waitForSelector(`${pane('paste')} .score`);
    assert.match(await score.textContent(), /not saved to your history/);
  }
  assert.deepEqual(await historyRuns(viewer, site), [], 'viewing a link is not a run of the viewer\'s');
  await viewer.goto(link);
  await viewer.waitForSelector(`${pane('paste')} .score`);
  await viewer.click('#save-run');
  await viewer.waitForSelector(`${pane('paste')} .score a[href="#/history"]`);
  assert.equal(await viewer.$('#save-run'), null, 'saved once: the button is gone');
  assert.equal((await historyRuns(viewer, site)).length, 1);
  await viewer.goto(link);
  await viewer.waitForSelector(`${pane('paste')} .score`);
  await viewer.click('#paste-run');
  await viewer.waitForSelector(`${pane('paste')} .score a[href="#/history"]`);
  assert.equal((await historyRuns(viewer, site)).length, 2, 'running it oneself is a run');
  assert.deepEqual([...sender.errors, ...viewer.errors], []);
});

test('"/" focuses the answer without typing a "/" and without console warnings', async (t) => {
  if (skipWithoutRoute(t)) return;
  const page = await watchedPage(browser.context);
  await page.goto(`${site.url}#/task/route-v1-L1-s5-i0?mode=terminal`);
  await page.waitForSelector('#term-command:not([disabled])');
  await page.click('#prompt');
  await page.keyboard.press('/');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'term-command');
  assert.equal(await page.inputValue('#term-command'), '', 'the "/" is not typed into the field');
  await page.click('#tab-paste');
  await page.waitForSelector('#paste-text');
  await page.click('#prompt');
  await page.keyboard.press('/');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'paste-text', 'the field of the tab in view');
  assert.equal(await page.inputValue('#paste-text'), '');
  assert.deepEqual(page.messages.filter((m) => /preventDefault|passive event listener/.test(m)), []);
  // The command field is named for what it is, not by its prompt.
  // The switch redraws after the click returns, so wait for the field to be visible (count()
  // does not wait: on a loaded machine it once ran before the redraw and found none).
  await page.click('#tab-terminal');
  const field = page.getByRole('textbox', { name: /^Command to run on \w+$/ });
  await field.first().waitFor({ state: 'visible' });
  assert.equal(await field.count(), 1);
  assert.deepEqual(page.errors, []);
});

test('the newest output stays in view; a large matrix and long pair lists fold', async (t) => {
  if (skipWithoutRoute(t)) return;
  const page = await watchedPage(browser.context);
  // 5 subnets × 2 hosts and r0: an 11 × 11 matrix.
  await page.goto(`${site.url}#/task/route-v1-L1-s0-i0-n5-m2?mode=terminal`);
  await page.waitForSelector('#term-command:not([disabled])');
  for (let i = 1; i <= 3; i++) await typeCommand(page, 'r0: ip route', i);
  const latest = `${pane('terminal')} .term-turn[data-turn="3"]`;
  await page.waitForFunction((sel) => {
    const box = document.querySelector('.terminal').getBoundingClientRect();
    const cmd = document.querySelector(`${sel} .cmd`).getBoundingClientRect();
    return cmd.top >= box.top - 1 && cmd.bottom <= box.bottom + 1;
  }, latest);
  const grid = await page.$(`${latest} details.panel:has(table.grid)`);
  assert.equal(await grid.getAttribute('open'), null, 'the 11 × 11 matrix starts folded');
  assert.match(await grid.textContent(), /Ping matrix/);
  const failing = await page.$(`${latest} details.panel:has(.lines-summary)`);
  if (failing) {
    assert.match(await failing.textContent(), /, …show all \d+/);
    assert.equal(await failing.$eval('details.all-lines', (d) => d.open), false);
  }
  await screenshot(page, 'session-terminal-latest');
  assert.deepEqual(page.errors, []);
});

// The built site as a static host serves it (docs/site.md): from a subpath such as a project
// page's /netpress/, offline after one visit through its service worker, replaced by a new
// build on the next online visit, and with a console free of warnings while a MALT answer runs
// in the sandbox worker.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve, launch, openPage, screenshot, dist, root } from './harness.mjs';
import { listedApps, localApp, solvedByBaseline } from './ui.mjs';

const BASE = '/netpress/';
let malt, app;
before(async () => {
  if (listedApps().includes('malt')) {
    const record = solvedByBaseline('malt', { levels: '1', seeds: '0..19' });
    malt = { id: record.id, answer: record.turns.at(-1).reply };
  }
});

/** A copy of dist/ that a test may rebuild (the service worker tests change it). */
function copyOfDist() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netpress-site-'));
  fs.cpSync(dist, dir, { recursive: true });
  return dir;
}

/** Loads the site afresh (not a hash change) on the task view of a task that runs in the page,
 * and waits until it is interactive. */
async function openTask(page, site) {
  app ??= await localApp(page, site);
  await page.goto('about:blank');
  await page.goto(`${site.url}#/task/${app}-v1-L1-s0-i0?mode=terminal`);
  await page.waitForFunction(() => {
    const input = document.querySelector('#term-command');
    return input && !input.disabled && document.querySelector('#prompt')?.textContent.length > 0;
  }, null, { timeout: 30_000 });
}

/** Runs the baseline's correct MALT answer in the sandbox worker and waits for its score. */
async function runMalt(page, site) {
  await page.goto(`${site.url}#/task/${malt.id}?mode=paste`);
  await page.waitForSelector('#paste-text');
  await page.fill('#paste-text', malt.answer);
  await page.click('#paste-run');
  const score = await page.waitForSelector('.score', { timeout: 60_000 });
  assert.match(await score.textContent(), /✓ correct/);
}

/** A view reached by its hash route alone. */
async function openBatch(page, site) {
  await page.goto(`${site.url}#/batch?app=${app}&seeds=3..5`);
  await page.waitForSelector('#batch-run');
}

/** The names of the caches the page's origin holds. */
const cacheNames = (page) => page.evaluate(() => caches.keys());

/** The build id written into a site's service worker. */
const buildOf = (dir) => fs.readFileSync(path.join(dir, 'sw.js'), 'utf8').match(/^const BUILD = '([0-9a-f]+)';/)[1];

/** Waits until a service worker controls the page and its cache holds build `build` alone. */
async function waitForBuild(page, site, build, timeout = 60_000) {
  const want = [`netpress ${site.url} ${build}`];
  const state = () => page.evaluate(async () => ({
    controlled: navigator.serviceWorker.controller !== null, caches: await caches.keys(),
  }));
  const until = Date.now() + timeout;
  for (let now = await state(); !(now.controlled && now.caches.join() === want.join()); now = await state()) {
    if (Date.now() > until) assert.fail(`no service worker with build ${build} alone: ${JSON.stringify(now)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

test('dist/ refers to its files relatively', () => {
  const html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
  const urls = [...html.matchAll(/\b(?:src|href)="([^"]*)"/g), ...html.matchAll(/\b(?:from|import)\s*\(?\s*'([^']*)'/g)]
    .map((m) => m[1]);
  assert.ok(urls.some((u) => /netpress-web-.*\.js$/.test(u)), `the page loads its script: ${urls}`);
  assert.deepEqual(urls.filter((u) => u.startsWith('/')), [], 'no URL is absolute');
});

test('served under a subpath: a task view, a MALT answer in the worker, a hash route', async (t) => {
  const site = await serve(dist, { base: BASE });
  // Service workers off: every file must come from the server under BASE, not from a cache.
  const browser = await launch({ serviceWorkers: 'block' });
  try {
    const page = await openPage(browser.context);
    await openTask(page, site);
    await openBatch(page, site);
    if (malt) {
      const workers = [];
      page.on('worker', (w) => workers.push(new URL(w.url()).pathname));
      await runMalt(page, site);
      assert.deepEqual(workers, [`${BASE}netpress-worker_loader.js`]);
    } else {
      t.diagnostic('malt is not registered: no sandbox worker to load');
    }
    await screenshot(page, 'site-subpath');
    assert.deepEqual(site.outside, [], 'nothing was asked for outside the subpath');
    // wasm-bindgen's "using deprecated parameters for the initialization function" among them;
    // only the test tool's own note on the service worker it blocks is expected.
    const blocked = 'Service Worker registration blocked by Playwright';
    assert.deepEqual(page.warnings.filter((w) => w !== blocked), [], 'no console warnings');
    assert.deepEqual(page.errors, []);
  } finally {
    await browser.close();
    await site.close();
  }
});

test('offline after one visit, and a new build replaces the cache on the next online visit', async () => {
  const dir = copyOfDist();
  const site = await serve(dir, { base: BASE });
  const browser = await launch();
  try {
    const page = await openPage(browser.context);
    // The first visit: a task view only (the sandbox worker is not loaded), while the service
    // worker installs and caches the whole build.
    await openTask(page, site);
    const first = buildOf(dir);
    await waitForBuild(page, site, first);

    // The network cut: the page's requests fail (setOffline) and so does every connection to
    // the server, which the service worker's own requests would otherwise still reach.
    await browser.context.setOffline(true);
    site.setDown(true);
    await openTask(page, site);
    await openBatch(page, site);
    if (malt) await runMalt(page, site);  // the worker bundle, never fetched online, from the cache
    await screenshot(page, 'site-offline');

    // A new build on the host: a changed page, hence a new manifest and service worker.
    await browser.context.setOffline(false);
    site.setDown(false);
    const index = path.join(dir, 'index.html');
    fs.writeFileSync(index, fs.readFileSync(index, 'utf8').replace('<head>', '<head>\n  <meta name="netpress-test-build" content="2">'));
    execFileSync('bash', [path.join(root, 'scripts', 'offline-manifest.sh'), dir]);
    const second = buildOf(dir);
    assert.notEqual(second, first);
    await openTask(page, site);
    assert.ok(await page.$('meta[name="netpress-test-build"]'), 'online, the page comes from the network');
    await waitForBuild(page, site, second);  // and the first build's cache is gone

    await browser.context.setOffline(true);
    site.setDown(true);
    await openTask(page, site);
    assert.ok(await page.$('meta[name="netpress-test-build"]'), 'offline, the new build is served');
    if (malt) await runMalt(page, site);
    assert.deepEqual(await cacheNames(page), [`netpress ${site.url} ${second}`]);
    assert.deepEqual(page.errors, []);
  } finally {
    await browser.close();
    await site.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

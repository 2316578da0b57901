// Links: "Copy link" gives a URL that, opened in another browser profile (another machine as
// far as the page can tell), shows the same task with the same content hash as the CLI; the
// link also keeps the prompt variant and knobs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, screenshot } from './harness.mjs';
import { cli } from './ui.mjs';

let site, browser, other;
before(async () => { site = await serve(); browser = await launch(); other = await launch(); });
after(async () => { await browser?.close(); await other?.close(); await site?.close(); });

test('a copied link reopens the same task with the same content hash', async () => {
  const page = await openPage(browser.context);
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.url });
  await page.goto(site.url);
  await page.click('#random-task');
  await page.waitForSelector('#content-hash');
  await page.selectOption('#variant', 'fewshot_cot');
  await page.waitForFunction(() => location.hash.includes('variant=fewshot_cot'));
  // The picker's buttons open the link they were drawn with: wait for the redraw with the new
  // variant, or "next" drops it.
  await page.waitForSelector('#variant option[value="fewshot_cot"][selected]', { state: 'attached' });
  await page.click('#pick-index + button');  // "next" index
  await page.waitForFunction(() => /-i1(\?|$|-)/.test(location.hash));
  // The address changes before the new task is drawn (a MALT L4 task takes a moment to
  // generate), so wait for the card itself to show index 1 before reading it.
  await page.waitForFunction(() => /-i1$/.test(document.querySelector('#query-id')?.textContent ?? ''));
  const id = await page.textContent('#query-id');
  const hash = await page.textContent('#content-hash');
  const prompt = await page.textContent('#prompt');
  await page.click('#copy-link');
  await page.waitForSelector('.ids .copy [role=status]:has-text("copied")');
  const link = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(link, page.url());

  const elsewhere = await openPage(other.context);
  await elsewhere.goto(link);
  await elsewhere.waitForSelector('#content-hash');
  assert.equal(await elsewhere.textContent('#query-id'), id);
  assert.equal(await elsewhere.textContent('#content-hash'), hash);
  assert.equal(await elsewhere.$eval('#variant', (s) => s.value), 'fewshot_cot');
  assert.equal(await elsewhere.textContent('#prompt'), prompt);
  const native = JSON.parse(cli(['generate', '--id', id]));
  // The id is random (any application, level and seed): a mismatch must name it.
  assert.equal(hash, native.content_hash, `${id}: the page's content hash differs from the CLI's`);
  await screenshot(elsewhere, 'link-reopened');
  assert.deepEqual([...page.errors, ...elsewhere.errors], []);
});

test('unknown and malformed links say why and offer a way home', async () => {
  const page = await openPage(browser.context);
  for (const [hash, reason] of [
    ['#/nowhere', /no page at/],
    ['#/task/route-v9-L1-s0-i0', /unknown generator version|unknown application/],
    ['#/batch?seeds=9..1', /first seed is after the last/],
    ['#/compare?runs=missing', /not in this browser's history/],
  ]) {
    await page.goto(site.url + hash);
    // After the first, each link is a hash change: the previous link's alert stays until this
    // link's view is drawn (a task link's after its worker answered), so wait for this reason;
    // a wrong page still fails, on the assertion below.
    await page.waitForFunction((re) => new RegExp(re).test(document.querySelector('[role=alert]')?.textContent ?? ''),
      reason.source, { timeout: 10_000 }).catch(() => {});
    const alert = await page.waitForSelector('[role=alert]');
    assert.match(await alert.textContent(), reason, hash);
    assert.ok(await page.$('[role=alert] a[href="#/"]'), `${hash}: a way home`);
  }
  await screenshot(page, 'link-bad');
  assert.deepEqual(page.errors, []);
});

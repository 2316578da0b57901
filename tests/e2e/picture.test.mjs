// Topology pictures as the browser draws them: no label covers another label or a node, with
// the page's real fonts (the boxes come from getBBox), for tasks of every application and level
// and for the largest Route networks, at desktop and phone width.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, screenshot } from './harness.mjs';
import { listedApps, taskShown } from './ui.mjs';

let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

/** Tasks whose pictures are checked: every level of every app at two seeds, and big networks. */
function taskIds() {
  const levels = { route: [1, 2, 3], k8s: [1, 2, 3], malt: [1, 2, 3, 4], bgp: [1, 2, 3], traffic: [1, 3] };
  const ids = [];
  // The applications that draw a picture (microseg does not yet). BGP's L4 pictures are as small
  // as L3's (at most 40 ASes) but take the longest to generate, so L3 stands for them; traffic's
  // are one layout (at most 40 nodes in rows by /16) at every level, so two levels stand for all.
  for (const app of listedApps().filter((a) => a in levels)) {
    for (const level of levels[app] ?? [1]) {
      for (const seed of [0, 7]) ids.push(`${app}-v1-L${level}-s${seed}-i0`);
    }
  }
  if (listedApps().includes('route')) {
    ids.push('route-v1-L2-s3-i0-n8-m4', 'route-v1-L3-s3-i0-n16-m4', 'route-v1-L3-s5-i0-n12-m4-r4');
  }
  if (listedApps().includes('malt')) ids.push('malt-v1-L2-s1-i0-klarge');
  return ids;
}

/** Pairs of overlapping boxes among the picture's labels and node shapes (labels only pair with
 * each other and with shapes; shapes may touch edges). */
async function overlaps(page) {
  return page.$eval('figure.picture svg', (svg) => {
    const box = (el) => { const b = el.getBBox(); return { x0: b.x, y0: b.y, x1: b.x + b.width, y1: b.y + b.height }; };
    const meet = (a, b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
    const labels = [...svg.querySelectorAll('text.node-label, text.edge-label')].map((t) => ({ what: t.textContent, b: box(t) }));
    const shapes = [...svg.querySelectorAll('.node')].map((s) => ({ what: 'node shape', b: box(s) }));
    const out = [];
    labels.forEach((a, i) => {
      for (const b of [...labels.slice(i + 1), ...shapes]) {
        if (meet(a.b, b.b)) out.push(`${a.what} / ${b.what}`);
      }
    });
    return { out, labels: labels.length };
  });
}

for (const width of [1280, 390]) {
  test(`no picture label covers another (width ${width})`, async () => {
    const page = await openPage(browser.context);
    await page.setViewportSize({ width, height: 900 });
    const problems = [];
    let checked = 0;
    for (const id of taskIds()) {
      await page.goto(`${site.url}#/task/${id}`);
      // The previous task's picture stays until this one has opened in its worker.
      await taskShown(page, id);
      await page.waitForSelector('figure.picture svg text');
      const { out, labels } = await overlaps(page);
      checked += labels;
      if (out.length) problems.push(`${id}: ${out.length} overlaps, e.g. ${out.slice(0, 3).join('; ')}`);
      if (id.includes('n16')) await screenshot(page, `picture-${id}-${width}`);
    }
    assert.ok(checked > 100, `${checked} labels checked`);
    assert.deepEqual(problems, []);
    // The picture scrolls inside its figure; the page itself never scrolls sideways.
    assert.ok(await page.evaluate(() => document.scrollingElement.scrollWidth <= window.innerWidth));
    assert.deepEqual(page.errors, []);
  });
}

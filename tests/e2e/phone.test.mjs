// The app at phone width (390×844): home, the task view of each application, batch, history and
// compare never scroll sideways and cut off no field; seed boxes hold every u64 (also on the
// desktop); the History table says when columns are out of view; buttons have distinct names;
// text colours reach 4.5:1 in both colour schemes, charts included.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, screenshot } from './harness.mjs';
import { listedApps, localApp, runBatch, historyRuns, taskShown, modeShown, batchShown, terminalReady } from './ui.mjs';

const PHONE = { width: 390, height: 844 };

let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

/** Fields whose text does not fit their box, or that stick out of the viewport. */
async function clippedFields(page) {
  return page.$$eval('input:not([type=checkbox]):not([type=radio]):not(.file), select, textarea, button', (els) => {
    const vw = document.documentElement.clientWidth;
    return els.filter((el) => el.offsetParent !== null).flatMap((el) => {
      const r = el.getBoundingClientRect();
      const name = el.id || el.getAttribute('aria-label') || el.textContent.trim().slice(0, 30) || el.tagName;
      const out = [];
      if (r.left < -0.5 || r.right > vw + 0.5) out.push(`${name} sticks out (${r.left.toFixed(0)}..${r.right.toFixed(0)} of ${vw})`);
      if (el.tagName === 'INPUT' && el.scrollWidth > el.clientWidth + 1) out.push(`${name} cuts its text (${el.scrollWidth} > ${el.clientWidth})`);
      return out;
    });
  });
}

/** The page's width against the viewport: it must not scroll sideways. */
async function pageWidth(page) {
  return page.evaluate(() => document.scrollingElement.scrollWidth);
}

/** Opens `url` and waits for `ready`: a selector, or a function of the page for views whose
 * elements the previous view also has (one task after another). */
async function checkView(page, url, ready, name) {
  await page.goto(url);
  await (typeof ready === 'function' ? ready(page) : page.waitForSelector(ready));
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const width = await pageWidth(page);
  await screenshot(page, `phone-${name}`);
  return { width, clipped: await clippedFields(page) };
}

test('no view scrolls sideways or cuts a field at 390 px', async () => {
  const page = await openPage(browser.context);
  await page.setViewportSize(PHONE);
  const app = await localApp(page, site);
  await runBatch(page, site, `app=${app}&seeds=0..2`);
  await runBatch(page, site, `app=${app}&seeds=3..5`);
  const runs = await historyRuns(page, site);
  const views = [
    ['home', `${site.url}#/`, '.app-card'],
    ['batch', `${site.url}#/batch?app=${app}`, '#batch-run'],
    ['history', `${site.url}#/history`, '#runs'],
    ['compare', `${site.url}#/compare?runs=${runs[0].id},${runs[1].id}`, '#compare-overall'],
  ];
  for (const a of listedApps()) {
    const [id, pasteId] = [`${a}-v1-L1-s4091544270-i0`, `${a}-v1-L1-s7-i0`];
    views.push([`task-${a}`, `${site.url}#/task/${id}`, (p) => taskShown(p, id)]);
    views.push([`task-${a}-paste`, `${site.url}#/task/${pasteId}?mode=paste`,
      async (p) => { await taskShown(p, pasteId); await modeShown(p, 'paste'); }]);
  }
  const problems = [];
  for (const [name, url, ready] of views) {
    const { width, clipped } = await checkView(page, url, ready, name);
    if (width > PHONE.width) problems.push(`${name}: page is ${width} px wide`);
    problems.push(...clipped.map((c) => `${name}: ${c}`));
  }
  assert.deepEqual(problems, []);
  assert.deepEqual(page.errors, []);
});

test('seed boxes show every digit of a 64-bit seed, on the desktop and the phone', async () => {
  const page = await openPage(browser.context);
  const app = listedApps()[0];
  for (const viewport of [{ width: 1280, height: 900 }, PHONE]) {
    await page.setViewportSize(viewport);
    for (const seed of ['4091544270', '18446744073709551615']) {
      await page.goto(`${site.url}#/task/${app}-v1-L1-s${seed}-i0`);
      // The second seed's task opens after the first's is shown: wait for it.
      await taskShown(page, `${app}-v1-L1-s${seed}-i0`);
      assert.equal(await page.inputValue('#pick-seed'), seed);
      const fit = await page.$eval('#pick-seed', (el) => [el.scrollWidth, el.clientWidth]);
      assert.ok(fit[0] <= fit[1], `seed ${seed} at ${viewport.width} px: text ${fit[0]} px in a ${fit[1]} px box`);
    }
    await page.goto(`${site.url}#/batch?seeds=18446744073709551600..18446744073709551615`);
    await batchShown(page, 'seeds=18446744073709551600..18446744073709551615');
    for (const id of ['#b-from', '#b-to']) {
      const fit = await page.$eval(id, (el) => [el.scrollWidth, el.clientWidth]);
      assert.ok(fit[0] <= fit[1], `${id} at ${viewport.width} px: ${fit[0]} > ${fit[1]}`);
    }
  }
  assert.deepEqual(page.errors, []);
});

test('History says when its table has columns out of view', async () => {
  const page = await openPage(browser.context);
  const app = await localApp(page, site);
  await runBatch(page, site, `app=${app}&seeds=10..11`);
  await page.setViewportSize(PHONE);
  await historyRuns(page, site);
  const wrap = await page.$eval('#runs', (t) => { const w = t.parentElement; return [w.scrollWidth, w.clientWidth]; });
  assert.ok(wrap[0] > wrap[1], 'the table is wider than a phone');
  const hint = await page.waitForSelector('.history .scroll-hint');
  assert.match(await hint.textContent(), /^\d+ of 9 columns in view: scroll the table sideways/);
  // Scrolling to the end brings the last column into view; the region takes keyboard focus.
  await page.$eval('#runs', (t) => { t.parentElement.scrollLeft = t.parentElement.scrollWidth; });
  await page.waitForFunction(() => document.querySelector('#runs').parentElement.getAttribute('tabindex') === '0');
  // At desktop width everything fits and the note goes away.
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.waitForSelector('.history .scroll-hint', { state: 'detached' });
  assert.deepEqual(page.errors, []);
});

test('the picker\'s buttons have distinct accessible names', async () => {
  const page = await openPage(browser.context);
  await page.goto(`${site.url}#/task/${listedApps()[0]}-v1-L1-s0-i0`);
  await page.waitForSelector('#query-id');
  for (const name of ['next seed', 'random seed', 'next index', 'random index']) {
    assert.equal(await page.getByRole('button', { name, exact: true }).count(), 1, name);
  }
  for (const name of ['next', 'random']) {
    assert.equal(await page.getByRole('button', { name, exact: true }).count(), 0, `a button named just "${name}"`);
  }
  assert.deepEqual(page.errors, []);
});

/** Browser-side: WCAG contrast of text against what is behind it, for every element that has
 * its own text (or is an SVG text), skipping what is disabled (WCAG exempts inactive controls). */
const audit = (root) => {
  const rgb = (s) => { const m = s.match(/[\d.]+/g).map(Number); return { r: m[0], g: m[1], b: m[2], a: m.length > 3 ? m[3] : 1 }; };
  const lum = ({ r, g, b }) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const over = (top, below) => ({ r: top.r * top.a + below.r * (1 - top.a), g: top.g * top.a + below.g * (1 - top.a), b: top.b * top.a + below.b * (1 - top.a), a: 1 });
  // The colour behind an element: its own and its ancestors' backgrounds, composed.
  const behind = (el) => {
    const layers = [];
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.a > 0) layers.push(c);
      if (c.a === 1) break;
    }
    return layers.reverse().reduce((acc, c) => over(c, acc), { r: 255, g: 255, b: 255, a: 1 });
  };
  const svgBackground = (t) => {
    const svg = t.closest('svg');
    const bg = svg.querySelector('rect.np-bg');
    return bg ? rgb(getComputedStyle(bg).fill) : behind(svg);
  };
  const out = [];
  for (const el of root.querySelectorAll('*')) {
    if (el.closest(':disabled, [aria-disabled=true], .sr-only, option, title, style, script')) continue;
    const svgText = el instanceof SVGTextElement;
    const ownText = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!svgText && !ownText) continue;
    if (el instanceof SVGElement && !svgText) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
    const style = getComputedStyle(el);
    const fg = rgb(svgText ? style.fill : style.color);
    const bg = svgText ? svgBackground(el) : behind(el);
    const c = ratio(over(fg, bg), bg);
    if (c < 4.5) out.push(`${el.tagName.toLowerCase()}.${[...el.classList].join('.')} "${el.textContent.trim().slice(0, 24)}" ${c.toFixed(2)}:1`);
  }
  return out;
};

/** Browser-side: the contrast of a field's placeholder. */
const placeholderContrast = (el) => {
  const rgb = (s) => s.match(/[\d.]+/g).map(Number);
  const lum = (c) => c.slice(0, 3).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const p = getComputedStyle(el, '::placeholder');
  const [fg, bg] = [rgb(p.color), rgb(getComputedStyle(el).backgroundColor)];
  const alpha = (fg[3] ?? 1) * Number(p.opacity || 1);
  const mixed = fg.slice(0, 3).map((v, i) => v * alpha + bg[i] * (1 - alpha));
  const [x, y] = [lum(mixed), lum(bg)].sort((a, b) => b - a);
  return (x + 0.05) / (y + 0.05);
};

for (const colorScheme of ['light', 'dark']) {
  test(`text reaches 4.5:1 in the ${colorScheme} scheme, charts included`, async () => {
    const page = await openPage(browser.context);
    await page.emulateMedia({ colorScheme });
    const app = await localApp(page, site);
    const problems = [];
    // A Route-like task in the terminal: the matrix with its "·" cells and legend, the prompt
    // box with its placeholder; then a batch with its chart, the history and compare.
    await page.goto(`${site.url}#/task/${app}-v1-L1-s0-i0?mode=terminal`);
    await page.waitForSelector('#term-command:not([disabled])');
    // The episode starts after the field is drawn; its Run button is disabled (and so skipped
    // by the audit) until then: audit the view as it settles.
    await terminalReady(page);
    const ph = await page.$eval('#term-command', placeholderContrast);
    if (ph < 4.5) problems.push(`terminal placeholder ${ph.toFixed(2)}:1`);
    problems.push(...(await page.$eval('main', audit)).map((p) => `task: ${p}`));
    await runBatch(page, site, `app=${app}&seeds=0..5`);
    await page.waitForSelector('figure.report-chart svg');
    problems.push(...(await page.$eval('main', audit)).map((p) => `batch: ${p}`));
    // The chart's background follows the scheme (it is not a white box on a dark page).
    const bg = await page.$eval('figure.report-chart rect.np-bg', (r) => getComputedStyle(r).fill);
    const dark = bg.match(/\d+/g).slice(0, 3).map(Number).every((v) => v < 64);
    assert.equal(dark, colorScheme === 'dark', `chart background ${bg} in the ${colorScheme} scheme`);
    await screenshot(page, `contrast-batch-${colorScheme}`);
    await historyRuns(page, site);
    problems.push(...(await page.$eval('main', audit)).map((p) => `history: ${p}`));
    assert.deepEqual(problems, []);
    assert.deepEqual(page.errors, []);
  });
}

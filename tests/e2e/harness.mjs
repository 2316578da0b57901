// Shared pieces of the browser tests: a static server for the built site on loopback,
// Debian's Chromium driven by playwright-core, console-error capture and screenshots.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '..', '..');
export const dist = process.env.NETPRESS_DIST || path.join(root, 'dist');
export const outDir = path.join(here, 'test-results');

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json',
  '.svg': 'image/svg+xml', '.png': 'image/png',
};

/**
 * Serves `dir` on 127.0.0.1 at a free port, under the path `base` (default `/`; for example
 * `/netpress/` as on a project page; anything outside it is 404). `site.url` is the site's
 * address; `site.setDown(true)` makes the server drop every connection unanswered, as a cut
 * network does, until `site.setDown(false)`; `site.outside` lists the paths asked for outside
 * `base`.
 */
export async function serve(dir = dist, { base = '/' } = {}) {
  if (!fs.existsSync(path.join(dir, 'index.html'))) {
    throw new Error(`no built site at ${dir}: run trunk build --release --offline first`);
  }
  if (!base.startsWith('/') || !base.endsWith('/')) throw new Error(`base ${base} must start and end with /`);
  let down = false;
  const outside = [];
  const server = http.createServer((req, res) => {
    if (down) { req.socket.destroy(); return; }
    const url = new URL(req.url, 'http://x');
    if (!url.pathname.startsWith(base)) { outside.push(url.pathname); res.writeHead(404).end('not found'); return; }
    let file = path.join(dir, decodeURIComponent(url.pathname.slice(base.length - 1)));
    if (!file.startsWith(dir)) { res.writeHead(403).end(); return; }
    if (url.pathname.endsWith('/')) file = path.join(file, 'index.html');
    fs.readFile(file, (err, body) => {
      if (err) { res.writeHead(404).end('not found'); return; }
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' });
      res.end(body);
    });
  });
  const sockets = new Set();
  server.on('connection', (socket) => { sockets.add(socket); socket.on('close', () => sockets.delete(socket)); });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}${base}`,
    outside,
    // Kept-alive connections would otherwise still answer.
    setDown(value) { down = value; if (down) for (const s of sockets) s.destroy(); },
    close: () => new Promise((r) => { for (const s of sockets) s.destroy(); server.close(r); }),
  };
}

/**
 * Headless Chromium with the flags that work on these machines (docs/site.md), in a profile of
 * its own (nothing cached, no service worker registered yet). `options` go to playwright's
 * launchPersistentContext (e.g. `{ serviceWorkers: 'block' }`).
 */
export async function launch(options = {}) {
  const userDataDir = fs.mkdtempSync('/tmp/netpress-chromium-');
  const args = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--disable-dev-shm-usage'];
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args,
    viewport: { width: 1280, height: 900 }, ...options,
  });
  return { context, close: async () => { await context.close(); fs.rmSync(userDataDir, { recursive: true, force: true }); } };
}

/** A new page that records console errors and uncaught exceptions in `page.errors`, and
 * console warnings in `page.warnings`. */
export async function openPage(context) {
  const page = await context.newPage();
  page.errors = [];
  page.warnings = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') page.errors.push(msg.text());
    if (msg.type() === 'warning') page.warnings.push(msg.text());
  });
  page.on('pageerror', (err) => page.errors.push(String(err)));
  return page;
}

/** Saves a full-page screenshot under tests/e2e/test-results/<name>.png. */
export async function screenshot(page, name) {
  fs.mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

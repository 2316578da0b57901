// The service worker that lets the site work offline after one visit (docs/site.md).
// scripts/offline-manifest.sh writes dist/sw.js as this file preceded by the build's manifest:
//   const BUILD = '<hash of every file>';
//   const FILES = { '<path relative to the site>': '<sha-256 hex>', ... };
// Each build has a cache of its own holding exactly that build's files, checked against their
// hashes. A new build changes this script, so the browser installs it on the next online visit;
// it fills its own cache, takes over and deletes the caches of earlier builds of this site.
//
// Strategies: files with Trunk's content hash in their name never change, so they come from the
// cache first; the page (index.html) and the files Trunk cannot name by content (the sandbox
// worker's) come from the network first, so an online visit always sees the newest build, and
// from the cache when the network fails. Requests for anything else are not touched.
'use strict';

const SCOPE = self.registration.scope;
// The Cache API is shared by the whole origin: the scope in the name keeps two copies of the
// site on one host (say /netpress/ and /netpress-dev/) from deleting each other's caches.
const PREFIX = `netpress ${SCOPE} `;
const CACHE = PREFIX + BUILD;
// Trunk's content hash: `-` and 8 to 16 hex digits ending the name or one of its directories.
const HASHED = /-[0-9a-f]{8,16}(?=[_./]|$)/;

self.addEventListener('install', (event) => {
  event.waitUntil(precache().then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(dropOtherBuilds().then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const file = fileOf(event.request);
  if (file === null) return;
  const fromNetwork = event.request.mode === 'navigate' || !HASHED.test(file);
  event.respondWith(fromNetwork ? networkFirst(event.request, file) : cacheFirst(event.request, file));
});

const urlOf = (file) => new URL(file, SCOPE).href;

/** Fetches every file of the build past the HTTP cache and stores it once its hash matches, so a
 * host still serving some files of another build fails the install (retried on the next visit)
 * instead of leaving a mixed cache. */
async function precache() {
  const cache = await caches.open(CACHE);
  await Promise.all(Object.entries(FILES).map(async ([file, sha256]) => {
    const response = await fetch(urlOf(file), { cache: 'reload' });
    if (!response.ok) throw new Error(`${file}: HTTP ${response.status}`);
    const digest = await crypto.subtle.digest('SHA-256', await response.clone().arrayBuffer());
    if (hex(digest) !== sha256) throw new Error(`${file}: not the file of build ${BUILD}`);
    await cache.put(urlOf(file), response);
  }));
}

async function dropOtherBuilds() {
  const names = await caches.keys();
  await Promise.all(names.filter((n) => n.startsWith(PREFIX) && n !== CACHE).map((n) => caches.delete(n)));
}

/** The build's file a request asks for, or null: a navigation to the site's page, or a GET of a
 * file in the manifest (any query string ignored). */
function fileOf(request) {
  if (request.method !== 'GET' || !request.url.startsWith(SCOPE)) return null;
  const file = new URL(request.url).pathname.slice(new URL(SCOPE).pathname.length);
  if (request.mode === 'navigate') return file === '' || file === 'index.html' ? 'index.html' : null;
  return Object.hasOwn(FILES, file) ? file : null;
}

async function cached(file) {
  const cache = await caches.open(CACHE);
  return cache.match(urlOf(file));
}

async function cacheFirst(request, file) {
  return (await cached(file)) ?? fetch(request);
}

async function networkFirst(request, file) {
  try {
    return await fetch(request);
  } catch (offline) {
    return (await cached(file)) ?? Promise.reject(offline);
  }
}

function hex(buffer) {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

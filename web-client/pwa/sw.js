/*
 * fairgammon's service worker: keeps the app shell (pages, scripts, styles, icons) so the site
 * installs and a game on this device works offline. Built by pwa/plugin.ts, which fills in the
 * build's file names (they change with every build) and a version.
 * Pages: the network first (always the newest build), the cached shell when offline.
 * Scripts, styles, icons: the cache first (their names change whenever they do).
 * The lobby's API and the match WebSocket are never cached.
 */
const VERSION = __VERSION__;
const SHELL = __SHELL__;
const CACHE = `fairgammon-shell-${VERSION}`;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('fairgammon-shell-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith('/api/') || url.pathname === '/ws' || url.pathname === '/healthz') return;
  if (request.mode === 'navigate') {
    const shell = url.pathname === '/demo.html' ? '/demo.html' : '/';
    event.respondWith(
      fetch(request).catch(() =>
        caches.open(CACHE).then((cache) => cache.match(shell)).then((hit) => hit || Response.error()),
      ),
    );
    return;
  }
  event.respondWith(
    caches
      .open(CACHE)
      .then((cache) => cache.match(request, { ignoreSearch: true }))
      .then((hit) => hit || fetch(request)),
  );
});

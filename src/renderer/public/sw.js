// Rigdesk's service worker: it keeps the window's shell only (the page, its bundle, the manifest
// and the icons), so the installed app opens at once. Nothing else is ever cached: not the
// contract's WebSocket (every answer and push goes over it), not a pairing link, not a refusal.
// The shell is fetched from the network first, so a revoked device sees the refusal, never a
// cached page; the cache is the fallback when the network is gone.
const CACHE = 'rigdesk-shell-v1';
const SHELL =
  /^\/(?:index\.html)?$|^\/assets\/[\w.-]+\.(?:js|css)$|^\/manifest\.webmanifest$|^\/icon(?:-\d+)?\.(?:png|svg)$/;

self.addEventListener('install', () => self.skipWaiting());

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin || !SHELL.test(url.pathname)) return;
  // Keyed by the path alone: the per-start token in `/?token=` is never stored.
  const key = url.origin + url.pathname;
  event.respondWith(
    fetch(req)
      .then((res) => {
        if (res.ok && res.type === 'basic') {
          const copy = res.clone();
          void caches.open(CACHE).then((c) => c.put(key, copy));
        }
        return res;
      })
      .catch(() => caches.match(key).then((hit) => hit || Response.error())),
  );
});

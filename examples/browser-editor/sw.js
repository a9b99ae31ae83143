// The editor's service worker (a template: the build fills in VERSION and FILES, see vite.config.ts).
// It keeps a copy of the app's own files so the editor opens without a network; the data itself is in
// IndexedDB and never goes through here.
const VERSION = __VERSION__;
const FILES = __FILES__;
const CACHE = `blogcore-editor-${VERSION}`;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(FILES))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => n.startsWith('blogcore-editor-') && n !== CACHE).map((n) => caches.delete(n))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  if (request.mode === 'navigate') {
    // The page: the server's newest copy when it answers, else the cached one.
    event.respondWith(
      fetch(request)
        .then((response) => {
          if (response.ok) {
            const copy = response.clone();
            void caches.open(CACHE).then((cache) => cache.put('./', copy));
          }
          return response;
        })
        .catch(() =>
          caches
            .open(CACHE)
            .then((cache) => cache.match('./', { ignoreVary: true }))
            .then((hit) => hit ?? Response.error()),
        ),
    );
    return;
  }
  // Built files have content hashes in their names, so a cached copy is always the right one.
  // ignoreVary: the server may answer `Vary: Origin`, and module scripts are requested with an Origin header.
  event.respondWith(caches.match(request, { ignoreVary: true }).then((hit) => hit ?? fetch(request)));
});

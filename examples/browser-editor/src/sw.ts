/**
 * The editor's service worker, built by vite-plugin-pwa (injectManifest): Workbox precaches every file the
 * build emits — the page, its start chunk, the chunks loaded on first use (the rich text editor, blogcore's
 * rarely used calls), styles — so the editor opens and works with the network (or its web server) gone, even
 * for a part never opened online. The list is the build's own (`self.__WB_MANIFEST`), never written by hand.
 * The data is in IndexedDB and never goes through here.
 */
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';

declare const self: {
  __WB_MANIFEST: Array<{ url: string; revision: string | null }>;
  skipWaiting(): Promise<void>;
  clients: { claim(): Promise<void> };
  addEventListener(
    type: 'install' | 'activate',
    listener: (event: { waitUntil(p: Promise<unknown>): void }) => void,
  ): void;
};

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();
// Every address of the app is its one page (views are `#/…` routes).
registerRoute(new NavigationRoute(createHandlerBoundToURL('index.html')));

// A new build takes over at once: its files are all cached before it does, and hashed names never clash.
self.addEventListener('install', () => void self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

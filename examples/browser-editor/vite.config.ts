/**
 * The offline editor: a static app (HTML, JS, CSS, a service worker from vite-plugin-pwa) that runs blogcore on
 * IndexedDB in the page. `blogcore`, `blogcore/idb`, `blogcore/sync`, `blogcore/schema`, `blogcore/collab` and `blogcore/site` resolve to the sources, so it
 * builds on a fresh clone without
 * `npm run build`; an app of your own would import the published package the same way.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig(({ command }) => ({
  root: here('.'),
  // The service worker exists in builds only (the dev server serves live files). Not import.meta.env.PROD:
  // that follows NODE_ENV, which test runners set to `test`.
  define: { __SERVICE_WORKER__: JSON.stringify(command === 'build') },
  // Relative asset URLs: the build works from any folder or sub-path it is copied to.
  base: './',
  resolve: {
    alias: [
      { find: /^blogcore$/, replacement: here('../../src/index.ts') },
      { find: /^blogcore\/idb$/, replacement: here('../../drivers/idb/index.ts') },
      { find: /^blogcore\/sync$/, replacement: here('../../src/sync/index.ts') },
      { find: /^blogcore\/schema$/, replacement: here('../../src/schema/index.ts') },
      { find: /^blogcore\/collab$/, replacement: here('../../src/collab/index.ts') },
      { find: /^blogcore\/site$/, replacement: here('../../src/site/index.ts') },
    ],
  },
  // The rich text editor (TipTap, ProseMirror, parse5) is one lazy chunk of ~570 KB (~180 KB gzip), loaded on the first edit.
  build: { target: 'es2022', outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 800 },
  plugins: [
    // The service worker (src/sw.ts) with Workbox's precache list of every file this build emits.
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'src',
      filename: 'sw.ts',
      injectRegister: false,
      manifest: false,
      injectManifest: { rollupFormat: 'iife', globPatterns: ['**/*.{html,js,css}'] },
    }),
  ],
  server: { host: '127.0.0.1', port: 5173 },
  preview: { host: '127.0.0.1', port: 5173 },
}));

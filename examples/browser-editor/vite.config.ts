/**
 * The offline editor: a static app (HTML, JS, CSS, a service worker) that runs blogcore on IndexedDB in the
 * page. `blogcore`, `blogcore/idb`, `blogcore/sync` and `blogcore/schema` resolve to the sources, so it builds on a fresh clone without
 * `npm run build`; an app of your own would import the published package the same way.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * Emits `sw.js`, a service worker that precaches every file of this build, so the editor opens with the
 * network (or its web server) gone. The list of files is only known once the bundle is written.
 */
function offlineShell(): Plugin {
  return {
    name: 'blogcore-offline-shell',
    apply: 'build',
    generateBundle(_options, bundle) {
      const files = ['./', ...Object.keys(bundle).map((name) => `./${name}`)];
      const version = hash(files.join('\n'));
      const source = readFileSync(here('./sw.js'), 'utf8').replace('__VERSION__', JSON.stringify(version)).replace('__FILES__', JSON.stringify(files));
      this.emitFile({ type: 'asset', fileName: 'sw.js', source });
    },
  };
}

/** A short, stable name for one set of files (cache names change when the build does). */
function hash(text: string): string {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return (h >>> 0).toString(36);
}

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
    ],
  },
  build: { target: 'es2022', outDir: 'dist', emptyOutDir: true },
  plugins: [offlineShell()],
  server: { host: '127.0.0.1', port: 5173 },
  preview: { host: '127.0.0.1', port: 5173 },
}));

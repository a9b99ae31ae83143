/**
 * Node-side support for tests and benches that drive Chromium themselves (two tabs, reloads, benchmarks):
 * bundle a page script with esbuild, serve it on 127.0.0.1, launch Debian's chromium with playwright-core.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium, type Browser, type BrowserContext, type LaunchOptions } from 'playwright-core';

export const root = fileURLToPath(new URL('../..', import.meta.url));

export { chromiumArgs, chromiumPath } from './chromium.js';
import { chromiumArgs, chromiumPath } from './chromium.js';

/** Bundles one browser entry (ESM, no Node built-ins allowed) and returns its code. */
export async function bundlePage(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: root,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    sourcemap: 'inline',
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

export interface Site {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `/` (a page loading `/app.js`) and `/app.js` on 127.0.0.1. Cross-origin isolated (COOP/COEP), so
 * `performance.now()` has fine resolution for the benches.
 */
export async function serveScript(script: string): Promise<Site> {
  const html =
    '<!doctype html><meta charset="utf-8"><title>blogcore</title><script type="module" src="/app.js"></script>';
  const server = createServer((req, res) => {
    const headers = {
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Cache-Control': 'no-store',
    };
    if (req.url === '/app.js') {
      res.writeHead(200, { ...headers, 'Content-Type': 'text/javascript; charset=utf-8' }).end(script);
    } else if (req.url === '/' || req.url?.startsWith('/?')) {
      res.writeHead(200, { ...headers, 'Content-Type': 'text/html; charset=utf-8' }).end(html);
    } else {
      res.writeHead(404, headers).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const launchOptions = (extra: LaunchOptions = {}): LaunchOptions => ({
  executablePath: chromiumPath,
  args: chromiumArgs,
  headless: true,
  ...extra,
});

export function launchChromium(extra?: LaunchOptions): Promise<Browser> {
  return chromium.launch(launchOptions(extra));
}

/** A browser with a profile on disk, so IndexedDB outlives the browser process. */
export function launchPersistent(userDataDir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(userDataDir, launchOptions());
}

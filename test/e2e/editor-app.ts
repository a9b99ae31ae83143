/**
 * What the editor's end-to-end tests share: the example editor built and served by Vite's preview, and
 * `blogcore serve` on a demo store beside it (CORS for the editor's origin), with the API, blog and token it prints.
 */
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { build, preview, type PreviewServer } from 'vite';
import { root } from '../browser/serve.js';
import { start, type Proc } from '../http/spawn.js';

const appRoot = join(root, 'examples/browser-editor');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Builds the editor into `outDir` and serves it on 127.0.0.1, on a port known before it listens. */
export async function serveEditor(outDir: string): Promise<{ site: PreviewServer; editorUrl: string }> {
  const config = {
    root: appRoot,
    configFile: join(appRoot, 'vite.config.ts'),
    logLevel: 'warn' as const,
    build: { outDir, emptyOutDir: true },
  };
  await build(config);
  const site = await preview({ ...config, preview: { host: '127.0.0.1', port: await freePort(), strictPort: true } });
  return { site, editorUrl: site.resolvedUrls!.local[0]! };
}

/** `blogcore serve` on a new demo store at `db`, answering the editor's origin; resolves once it listens. */
export async function serveDemo(
  db: string,
  editorUrl: string,
): Promise<{ server: Proc; api: string; blogId: string; token: string }> {
  const server = start([
    'dist/cli.js',
    'serve',
    '--db',
    db,
    '--port',
    '0',
    '--host',
    '127.0.0.1',
    '--quiet',
    '--cors',
    new URL(editorUrl).origin,
  ]);
  await server.waitFor(/Ctrl\+C stops the server/);
  const printed = server.output();
  return {
    server,
    api: printed.match(/API: +(http:\/\/127\.0\.0\.1:\d+\/v3)\//)![1]!,
    blogId: printed.match(/Blog: +\S+\/blogs\/(\S+)/)![1]!,
    token: printed.match(/^ +(bc_[\w-]{20,})$/m)![1]!,
  };
}

/** Signs the editor at `editorUrl` in to the server whose API is `api`, with `token`, as a person would. */
export async function signIn(page: Page, editorUrl: string, api: string, token: string): Promise<void> {
  await page.goto(editorUrl);
  await page.getByText('Or edit a blog on a blogcore server').click();
  await page.getByLabel('Server address').fill(api.replace(/\/v3$/, ''));
  await page.getByLabel('Token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Closes what a file against `blogcore serve` opened (those it got to open): browser, server, editor, folder. */
export async function closeServed(opened: {
  browser?: Browser;
  server?: Proc;
  site?: PreviewServer;
  dir?: string;
}): Promise<void> {
  await opened.browser?.close();
  await opened.server?.stop('SIGKILL');
  await opened.site?.close();
  if (opened.dir) await rm(opened.dir, { recursive: true, force: true });
}

/**
 * The default theme in Chromium (playwright-core, Debian's chromium): axe-core finds no violation on each kind
 * of page, in light and dark colours; on a phone-sized screen nothing is wider than the screen; and the pages
 * run no script.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chromiumArgs, chromiumPath } from '../browser/chromium.js';
import { pageOfEachKind, type Seeded, seed, serveSite, type SiteServer } from './fixture.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let srv: SiteServer;
let seeded: Seeded;
let browser: Browser;
let urls: Record<string, string>;

beforeAll(async () => {
  srv = await serveSite();
  seeded = await seed(srv.service, `${srv.origin}/`);
  urls = await pageOfEachKind(seeded, srv.origin, async (url) => (await fetch(url)).text());
  urls.pending = `${urls.post}?comment=pending`;
  browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await srv.close();
});

interface Violation {
  id: string;
  impact: string;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** axe-core's violations on the page: every rule, or only those named. */
async function violations(page: Page, only?: string[]): Promise<string[]> {
  await page.addScriptTag({ content: AXE });
  const found = await page.evaluate(async (rules) => {
    const axe = (
      globalThis as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: unknown[] }> } }
    ).axe;
    return (await axe.run(document, rules ? { runOnly: { type: 'rule', values: rules } } : {})).violations;
  }, only);
  return (found as Violation[]).map(
    (v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  );
}

describe('axe-core finds no violation', () => {
  const kinds = [
    'home',
    'older',
    'post',
    'pending',
    'hostile',
    'comments',
    'page',
    'label',
    'month',
    'search',
    'notFound',
  ];
  for (const scheme of ['light', 'dark'] as const) {
    describe(scheme, () => {
      // One tab per colour scheme, reused page after page (a context costs more than the check).
      let context: BrowserContext;
      let page: Page;
      const scripts: string[] = [];
      beforeAll(async () => {
        context = await browser.newContext({ colorScheme: scheme });
        page = await context.newPage();
        page.on('request', (r) => r.resourceType() === 'script' && scripts.push(r.url()));
      });
      afterAll(() => context.close());

      test.each(kinds)('%s', async (kind) => {
        const response = await page.goto(urls[kind]!);
        expect(response!.status()).toBe(kind === 'notFound' ? 404 : 200);
        expect(scripts).toEqual([]);
        // Dark colours change only the colours: their contrast is what to check again.
        expect(await violations(page, scheme === 'dark' ? ['color-contrast'] : undefined)).toEqual([]);
      });
    });
  }

  test('the post page with a refused comment (the error and the filled-in form)', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(urls.post!);
    await page.getByLabel('Name (optional)').fill('Kim');
    // Spaces only: the browser sends it (the field is not empty), the site refuses it.
    await page.getByLabel('Comment', { exact: true }).fill('   ');
    await page.getByRole('button', { name: 'Send comment' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Write a comment before sending it.');
    expect(await violations(page)).toEqual([]);
    await context.close();
  });
});

test('on a phone-sized screen nothing is wider than the screen', async () => {
  const context = await browser.newContext({
    viewport: { width: 360, height: 740 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
  });
  const page = await context.newPage();
  for (const kind of ['home', 'post', 'hostile', 'comments', 'search']) {
    await page.goto(urls[kind]!);
    const { scroll, width } = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      width: window.innerWidth,
    }));
    expect(scroll, kind).toBeLessThanOrEqual(width);
  }
  await context.close();
});

/**
 * Each kind of page as HTML: valid by html-validate's recommended rules, and hostile text (a title and a label
 * full of markup) shown as text everywhere it appears, never as markup.
 */
import { HtmlValidate } from 'html-validate';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { createBlogService } from '../../src/index.js';
import { createSite, exportSite } from '../../src/site/index.js';
import { HOSTILE_LABEL, HOSTILE_TITLE, pageOfEachKind, type Seeded, seed } from './fixture.js';

const ORIGIN = 'https://notes.example';
const service = createBlogService({ driver: memoryDriver() });
const site = createSite(service);
let seeded: Seeded;
let urls: Record<string, string>;

const get = async (url: string) => {
  const r = await site(new Request(url));
  if (!r) throw new Error(`${url}: not a page of the site`);
  return r.text();
};

beforeAll(async () => {
  seeded = await seed(service, `${ORIGIN}/`);
  urls = await pageOfEachKind(seeded, ORIGIN, get);
});
afterAll(() => service.close());

// A post's title is its author's: a long one makes a long <title>, which is not an error.
const validator = new HtmlValidate({ extends: ['html-validate:recommended'], rules: { 'long-title': 'off' } });

async function problems(html: string): Promise<string[]> {
  const report = await validator.validateString(html);
  return report.results.flatMap((r) => r.messages.map((m) => `${m.ruleId} (line ${m.line}): ${m.message}`));
}

describe('html-validate finds nothing on each kind of page', () => {
  const kinds = ['home', 'older', 'post', 'hostile', 'comments', 'page', 'label', 'month', 'search', 'notFound'];
  test.each(kinds)('%s', async (kind) => {
    expect(await problems(await get(urls[kind]!))).toEqual([]);
  });

  test('a post whose comment was refused, with the form filled in again', async () => {
    const r = await site(
      new Request(urls.post!, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'name=%3Cb%3E&content=',
      }),
    );
    expect(r!.status).toBe(400);
    expect(await problems(await r!.text())).toEqual([]);
  });

  test('the pages of a static export', async () => {
    const files = new Map<string, string>();
    await exportSite(service, {
      blogId: seeded.blogId,
      files: { write: async (p, t) => void files.set(p, t), remove: async () => {} },
    });
    expect([...files.keys()].filter((p) => p.endsWith('.html')).length).toBeGreaterThan(seeded.posts.length);
    // One file of each kind: home, a later home page, a post, its comments page, a page, a label, a month, the 404.
    const kinds = [
      /^index\.html$/,
      /^page\//,
      /^\d{4}\/\d{2}\/[^/]+\.html$/,
      /\/comments\//,
      /^p\//,
      /^search\/label\/[^/]+\.html$/,
      /^\d{4}\/\d{2}\/index\.html$/,
      /^404\.html$/,
    ];
    for (const kind of kinds) {
      const found = [...files].find(([p]) => kind.test(p));
      expect(found, `a file matching ${kind}`).toBeDefined();
      expect(await problems(found![1]), found![0]).toEqual([]);
    }
  });
});

describe('hostile titles and labels are text', () => {
  const pagesShowingIt = ['hostile', 'home', 'label', 'month'];
  test.each(pagesShowingIt)('on the %s page', async (kind) => {
    const url =
      kind === 'label'
        ? `${ORIGIN}/search/label/${encodeURIComponent(HOSTILE_LABEL)}`
        : kind === 'month'
          ? `${ORIGIN}/2026/10/`
          : urls[kind]!;
    const html = await get(url);
    // The markup inside never becomes markup: no script, img or b element from it, anywhere on the page.
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<b>bold</b>');
    expect(html).toContain(
      kind === 'label' ? '&lt;img src=x onerror=alert(1)&gt;' : '&lt;script&gt;alert(&quot;t&quot;)&lt;/script&gt;',
    );
  });

  test('in the JSON-LD and OpenGraph of the post', async () => {
    const html = await get(urls.hostile!);
    const ld = /<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(html)![1]!;
    expect(ld).not.toMatch(/<|>/);
    const posting = JSON.parse(ld) as { headline: string; keywords: string };
    expect(posting.headline).toBe(HOSTILE_TITLE);
    expect(posting.keywords).toContain(HOSTILE_LABEL);
    expect(html).toContain(
      `<meta property="og:title" content="&lt;script&gt;alert(&quot;t&quot;)&lt;/script&gt; &amp; &quot;Tom&#39;s&quot; &lt;b&gt;bold&lt;/b&gt;">`,
    );
  });
});

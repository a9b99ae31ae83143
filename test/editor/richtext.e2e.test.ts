/**
 * The editor's rich text field keeps a post's HTML: real imported posts (the import fixtures of test/io, read by
 * blogcore/io as a user would import them) go into the field in Chromium and come back out unchanged, byte
 * for byte; what the editor can represent is editable rich text, the rest is kept as raw HTML blocks; an edit
 * changes only the block it touches.
 */
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importBlog } from '../../src/io/index.js';
import { bundlePage, launchChromium, serveScript, type Site } from '../browser/serve.js';
import { memoryService } from '../io/helpers.js';

const FIXTURES = [
  'blogger-takeout.atom',
  'blogger-legacy.xml',
  'wordpress-1.0.xml',
  'wordpress-1.1.xml',
  'wordpress-1.2.xml',
  'ghost.json',
];

interface Hooks {
  load(html: string): string[];
  html(): string;
}
declare const richtext: Hooks;

let site: Site;
let browser: Browser;
let page: Page;
const contents: Array<{ where: string; html: string }> = [];

beforeAll(async () => {
  for (const name of FIXTURES) {
    const service = memoryService();
    const report = await importBlog(service, readFileSync(new URL(`../io/fixtures/${name}`, import.meta.url)), {
      blogUrl: 'https://imported.example/',
    });
    {
      const { blogId } = report;
      const posts = await service.posts.list({
        blogId,
        status: ['LIVE', 'DRAFT', 'SCHEDULED', 'SOFT_TRASHED'],
        view: 'ADMIN',
        maxResults: 500,
      });
      const pages = await service.pages.list({ blogId, status: ['LIVE', 'DRAFT', 'SOFT_TRASHED'], view: 'ADMIN' });
      for (const item of [...(posts.items ?? []), ...(pages.items ?? [])])
        contents.push({ where: `${name}: ${item.title}`, html: item.content ?? '' });
    }
    await service.close();
  }
  site = await serveScript(await bundlePage('test/browser/richtext-page.ts'));
  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(site.url);
  await page.waitForFunction(() => 'richtext' in globalThis);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

const load = (html: string) => page.evaluate((h) => richtext.load(h), html);
const html = () => page.evaluate(() => richtext.html());

describe('the editor’s rich text field', () => {
  it('gives back every imported post and page unchanged', async () => {
    expect(contents.length).toBeGreaterThan(20);
    let rich = 0;
    for (const c of contents) {
      const blocks = await load(c.html);
      rich += blocks.filter((b) => b !== 'raw').length;
      expect(await html(), c.where).toBe(c.html);
      if (process.env.SHOW) console.log(c.where, blocks.join(' '), JSON.stringify(c.html).slice(0, 300));
    }
    // Most of what real posts hold is editable as rich text, not merely kept.
    expect(rich).toBeGreaterThan(contents.length);
  });

  it('reads the shapes real exports hold: what it can edit is rich text, the rest is kept', async () => {
    // Shapes from Blogger's editor, WordPress's classic editor and Gutenberg, as their exports carry them.
    const samples: Array<[string, string[]]> = [
      [
        'Day one.<br />\n<div class="separator" style="clear: both; text-align: center;"><a href="https://1.bp.blogspot.com/x/s1600/a.jpg" style="margin-left: 1em;"><img border="0" data-original-height="900" src="https://1.bp.blogspot.com/x/s320/a.jpg" width="320" /></a></div>\n<span style="font-family: Georgia;">Then <b>rain</b>, then <i>sun</i>.</span>',
        ['p', 'raw', 'raw'],
      ],
      [
        '<h2>Packing</h2>\n<ul>\n\t<li>Socks &amp; <a href="https://ex.test/?a=1&amp;b=2" title="shop">boots</a></li>\n\t<li>Map<ul><li>paper</li></ul></li>\n</ul>\n<ol start="3"><li><p>third</p></li></ol>\n<blockquote>A quote, <em>unsourced</em>.</blockquote>\n<pre>let x = 1;\n  indented</pre>\n<pre><code class="language-js">y &lt; 2</code></pre>\n<hr />\n<p>&nbsp;</p>\n[caption id="attachment_7" align="alignnone"]<img src="https://ex.test/b.jpg" alt="b" width="300" height="200" /> A caption[/caption]',
        ['h2', 'ul', 'ol', 'blockquote', 'pre', 'pre', 'hr', 'p', 'p'],
      ],
      [
        '<!-- wp:paragraph -->\n<p>Gutenberg <strong>bold</strong></p>\n<!-- /wp:paragraph -->\n\n<!-- wp:image {"id":12} -->\n<figure class="wp-block-image"><img src="https://ex.test/c.jpg" alt="" class="wp-image-12"/></figure>\n<!-- /wp:image -->\n\n<table><tr><td>1</td></tr></table>\n<p style="color:red">styled</p>\n<script>alert(1)</script>',
        ['raw', 'p', 'raw', 'raw', 'raw', 'raw', 'raw', 'raw', 'raw'],
      ],
    ];
    for (const [post, blocks] of samples) {
      expect(await load(post)).toEqual(blocks);
      expect(await html()).toBe(post);
    }
  });

  it('edits what it represents and keeps, untouched, what it cannot', async () => {
    const kept =
      '<div class="separator" style="clear: both;"><a href="https://x.example/a.jpg"><img border="0" src="https://x.example/a.jpg"></a></div>';
    const post = `<p>First &amp; <b>bold</b>.</p>\n${kept}\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n<!--more-->\nTail text<br>\nend`;
    expect(await load(post)).toEqual(['p', 'raw', 'ul', 'raw', 'p']);
    expect(await html()).toBe(post);
    // Type at the end of the first paragraph: only that block is written anew.
    await page.locator('.rt-doc p').first().click();
    await page.keyboard.press('End');
    await page.keyboard.type(' More');
    expect(await html()).toBe(post.replace('<p>First &amp; <b>bold</b>.</p>', '<p>First &amp; <b>bold</b>. More</p>'));
  });
});

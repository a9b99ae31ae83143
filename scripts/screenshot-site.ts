/**
 * `npx tsx scripts/screenshot-site.ts`: the screenshots of the default theme in the docs, taken with Chromium
 * (playwright-core; Debian's /usr/bin/chromium or CHROMIUM_PATH) from a small blog served by blogcore/site:
 * docs/site-default-theme.png (the home page on a desktop) and docs/site-phone.png (a post on a phone).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { memoryDriver } from '../drivers/memory/index.js';
import { toNodeHandler } from '../src/http/index.js';
import { createBlogService } from '../src/index.js';
import { createSite } from '../src/site/index.js';
import { chromiumArgs, chromiumPath } from '../test/browser/chromium.js';

const docs = (name: string) => fileURLToPath(new URL(`../docs/${name}`, import.meta.url));

const service = createBlogService({ driver: memoryDriver() });
await service.users.insert({ body: { id: 'ada', displayName: 'Ada Lovelace', url: 'https://ada.example/' } });
const server = createServer();
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const blog = await service.blogs.insert({
  body: {
    name: 'Field Notes',
    url: `${origin}/`,
    description: 'Rivers, birds and the weather, written down as they happen.',
  },
  ownerId: 'ada',
});
const posts = [
  [
    'Herons at first light',
    'Three grey herons stood in the shallows below the weir this morning, each one still as a post.',
    ['birds', 'rivers'],
  ],
  [
    'The river in flood',
    'After two days of rain the river rose over the lower path; the stepping stones are gone until spring.',
    ['rivers', 'weather'],
  ],
  [
    'A map of the old mill race',
    'Walking the dry channel with the 1890 survey in hand: most of the stone lining is still there.',
    ['maps'],
  ],
  ['First frost', 'White on every blade of grass by the water, and the first skim of ice on the pond.', ['weather']],
] as const;
let last = { id: '', url: '' };
for (const [i, [title, text, labels]] of posts.entries()) {
  const post = await service.posts.insert({
    blogId: blog.id,
    body: {
      title,
      content: `<p>${text}</p><p>More notes follow, with the times and places.</p>`,
      labels: [...labels],
      published: new Date(Date.UTC(2026, 10, 2 + i * 5, 7)).toISOString(),
    },
  });
  last = { id: post.id, url: post.url! };
}
await service.pages.insert({
  blogId: blog.id,
  body: { title: 'About these notes', content: '<p>Kept since 2019.</p>' },
});
await service.comments.insert({
  blogId: blog.id,
  postId: last.id,
  body: { content: 'Beautiful morning for it!', author: { displayName: 'Kim' } },
});
const site = toNodeHandler(createSite(service));
server.on('request', (req, res) => void site(req, res));

const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
try {
  const desktop = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  await desktop.goto(`${origin}/`);
  await desktop.screenshot({ path: docs('site-default-theme.png') });
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true });
  await phone.goto(last.url);
  await phone.screenshot({ path: docs('site-phone.png') });
  console.log(`wrote ${docs('site-default-theme.png')} and ${docs('site-phone.png')}`);
} finally {
  await browser.close();
  server.close();
  await service.close();
}

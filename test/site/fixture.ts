/**
 * A blog with something of everything a reader may and may not see, served on a real node:http server on
 * 127.0.0.1 (the site at `/`, the API beside it), with the blog's url at the server's own origin.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { memoryDriver } from '../../drivers/memory/index.js';
import { createHttpHandler, toNodeHandler } from '../../src/http/index.js';
import { type BlogService, createBlogService, type Page, type Post } from '../../src/index.js';
import { createSite, type SiteOptions } from '../../src/site/index.js';
import type { StorageDriver } from '../../src/store/driver.js';

export const HOSTILE_TITLE = `<script>alert("t")</script> & "Tom's" <b>bold</b>`;
export const HOSTILE_LABEL = `<img src=x onerror=alert(1)> "q" & 'a'`;

export interface Seeded {
  blogId: string;
  /** Every LIVE post and page, as the service answers them. */
  posts: Post[];
  pages: Page[];
  /** Titles and urls (where they have one) of what a reader must not reach. */
  hidden: { titles: string[]; urls: string[] };
  /** A LIVE post with more comments than its page shows. */
  chatty: Post;
  /** A LIVE post with the hostile title and label. */
  hostile: Post;
}

const DAY = 86_400_000;

/** Fills a blog: 40 LIVE posts over three months and four labels, pages, comments in every state, and hidden posts and pages. */
export async function seed(service: BlogService, url: string): Promise<Seeded> {
  await service.users.insert({ body: { id: 'ada', displayName: 'Ada Author', url: 'https://ada.example/' } });
  const blog = await service.blogs.insert({
    body: { name: 'Field Notes', url, description: 'Notes from the field.' },
    ownerId: 'ada',
  });
  const blogId = blog.id;
  const start = Date.UTC(2026, 7, 3);
  const posts: Post[] = [];
  for (let i = 0; i < 40; i++) {
    posts.push(
      await service.posts.insert({
        blogId,
        body: {
          title: `Field note ${i}`,
          content: `<p>Observation ${i}: the <em>river</em> was ${i % 2 ? 'high' : 'low'}.</p><p>${'More words about the day. '.repeat(12)}</p>`,
          labels: [['rivers', 'birds', 'weather', 'maps'][i % 4]!, ...(i % 5 === 0 ? ['weather'] : [])].filter(
            (l, k, a) => a.indexOf(l) === k,
          ),
          published: new Date(start + i * 2 * DAY).toISOString(),
        },
      }),
    );
  }
  const hostile = await service.posts.insert({
    blogId,
    body: {
      title: HOSTILE_TITLE,
      content: '<p>Hostile words stay text.</p>',
      labels: [HOSTILE_LABEL, 'rivers'],
      published: new Date(start + 81 * DAY).toISOString(),
    },
  });
  posts.push(hostile);
  const chatty = posts[38]!;
  for (let i = 0; i < 55; i++)
    await service.comments.insert({
      blogId,
      postId: chatty.id,
      body: { content: `Comment number ${i}`, author: { displayName: `Reader ${i}` } },
    });
  const withComments = posts[37]!;
  const first = await service.comments.insert({
    blogId,
    postId: withComments.id,
    body: { content: 'A <b>kept</b> comment', author: { displayName: 'Kim' } },
  });
  const anon = service.as(null);
  const pending = await anon.comments.insert({
    blogId,
    postId: withComments.id,
    body: { content: 'PENDING-COMMENT-TEXT' },
  });
  const spam = await service.comments.insert({
    blogId,
    postId: withComments.id,
    body: { content: 'SPAM-COMMENT-TEXT' },
  });
  await service.comments.markAsSpam({ blogId, postId: withComments.id, commentId: spam.id });
  const emptied = await service.comments.insert({
    blogId,
    postId: withComments.id,
    body: { content: 'EMPTIED-COMMENT-TEXT', inReplyTo: { id: first.id } },
  });
  await service.comments.removeContent({ blogId, postId: withComments.id, commentId: emptied.id });
  void pending;

  // What a reader never sees: a draft (with its own label), a scheduled post, a trashed and a reverted one, a draft and a trashed page.
  const draft = await service.posts.insert({
    blogId,
    isDraft: true,
    body: { title: 'SECRET DRAFT', content: '<p>x</p>', labels: ['secret-label'] },
  });
  const scheduled = await service.posts.insert({
    blogId,
    body: { title: 'SECRET SCHEDULED', content: '<p>x</p>', published: new Date(Date.now() + 30 * DAY).toISOString() },
  });
  const trashed = await service.posts.insert({
    blogId,
    body: { title: 'SECRET TRASHED', content: '<p>x</p>', published: new Date(start + 5 * DAY).toISOString() },
  });
  await service.posts.delete({ blogId, postId: trashed.id, useTrash: true });
  const reverted = await service.posts.insert({
    blogId,
    body: { title: 'SECRET REVERTED', content: '<p>x</p>', published: new Date(start + 7 * DAY).toISOString() },
  });
  await service.posts.revert({ blogId, postId: reverted.id });
  const pages = [
    await service.pages.insert({ blogId, body: { title: 'About', content: '<p>About these notes.</p>' } }),
    await service.pages.insert({ blogId, body: { title: 'Colophon', content: '<p>Made with blogcore.</p>' } }),
  ];
  const draftPage = await service.pages.insert({
    blogId,
    isDraft: true,
    body: { title: 'SECRET PAGE', content: '<p>x</p>' },
  });
  const trashedPage = await service.pages.insert({
    blogId,
    body: { title: 'SECRET TRASHED PAGE', content: '<p>x</p>' },
  });
  await service.pages.delete({ blogId, pageId: trashedPage.id, useTrash: true });
  const hiddenUrls = [scheduled.url, trashed.url, reverted.url, trashedPage.url].filter(
    (u): u is string => typeof u === 'string',
  );
  void draft;
  void draftPage;
  const live = (await service.as(null).posts.list({ blogId, maxResults: 500 })).items;
  return {
    blogId,
    posts: live,
    pages,
    hidden: {
      titles: [
        'SECRET DRAFT',
        'SECRET SCHEDULED',
        'SECRET TRASHED',
        'SECRET REVERTED',
        'SECRET PAGE',
        'SECRET TRASHED PAGE',
        'secret-label',
      ],
      urls: hiddenUrls,
    },
    chatty: (await service.posts.get({ blogId, postId: chatty.id })) as Post,
    hostile,
  };
}

export interface SiteServer {
  origin: string;
  service: BlogService;
  driver: StorageDriver;
  errors: unknown[];
  /** Moves the service's clock `ms` ahead of the real one. */
  later(ms: number): void;
  close(): Promise<void>;
}

/** A node:http server: the site first, then the API for whatever the site leaves. */
export async function serveSite(
  options: SiteOptions = {},
  driver: StorageDriver = memoryDriver(),
): Promise<SiteServer> {
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The service's clock runs ahead when a test says so (a comment form must be older than 2 s when sent).
  let ahead = 0;
  const service = createBlogService({ driver, apiBaseUrl: origin, now: () => new Date(Date.now() + ahead) });
  const errors: unknown[] = [];
  const site = toNodeHandler(createSite(service, { ...options, onError: (e) => errors.push(e) }));
  const api = toNodeHandler(createHttpHandler(service));
  server.on('request', (req, res) => void site(req, res, () => void api(req, res)));
  return {
    origin,
    service,
    driver,
    errors,
    later: (ms) => {
      ahead += ms;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await service.close();
    },
  };
}

/** One url of each kind of page the site has (the later pages found by following the links that lead there). */
export async function pageOfEachKind(
  seeded: Seeded,
  origin: string,
  get: (url: string) => Promise<string>,
): Promise<Record<string, string>> {
  const path = (url: string) => origin + new URL(url).pathname;
  const follow = async (url: string, pattern: RegExp) => {
    const m = pattern.exec(await get(url));
    if (!m) throw new Error(`${url} has no link matching ${pattern}`);
    return new URL(m[1]!.replace(/&amp;/g, '&'), url).href;
  };
  return {
    home: `${origin}/`,
    older: await follow(`${origin}/`, /href="([^"]+)" rel="next"/),
    post: path(seeded.posts.find((p) => p.title === 'Field note 37')!.url!),
    hostile: path(seeded.hostile.url!),
    comments: await follow(path(seeded.chatty.url!), /href="([^"]+\/comments\/[^"]+)"/),
    page: path(seeded.pages[0]!.url!),
    label: `${origin}/search/label/rivers`,
    month: `${origin}/2026/08/`,
    search: `${origin}/search?q=river`,
    notFound: `${origin}/2026/08/nothing-here.html`,
  };
}

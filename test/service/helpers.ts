/**
 * Shared fixtures for the service behaviour tests, which run on every driver (test/support/drivers.ts).
 * Everything goes through the public API; the driver is only read for its change log, to prove that a
 * refused request wrote nothing.
 */
import { expect } from 'vitest';
import { BlogError, createBlogService } from '../../src/index.js';
import type { StorageDriver } from '../../src/store/driver.js';

export type Service = ReturnType<typeof createBlogService>;
export type Driver = StorageDriver;
export type ServiceOptions = Parameters<typeof createBlogService>[0];
// Loose shapes for what the tests read back; the service's own types are checked by the calls themselves.
export type Wire = Record<string, any>;
export type PostState = 'LIVE' | 'DRAFT' | 'SCHEDULED' | 'SOFT_TRASHED';
export type PageState = 'LIVE' | 'DRAFT' | 'SOFT_TRASHED';
export type CommentState = 'LIVE' | 'EMPTIED' | 'PENDING' | 'SPAM';

export const API = 'https://api.example.test';
export const BLOG_URL = 'https://blog.example.test/';
/** Where every test clock starts: mid-month, so +/- a few days stays in March 2026. */
export const T0 = Date.parse('2026-03-15T10:00:00.000Z');
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
export const RFC3339_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const POST_STATES: PostState[] = ['LIVE', 'DRAFT', 'SCHEDULED', 'SOFT_TRASHED'];
export const PAGE_STATES: PageState[] = ['LIVE', 'DRAFT', 'SOFT_TRASHED'];
export const COMMENT_STATES: CommentState[] = ['LIVE', 'EMPTIED', 'PENDING', 'SPAM'];

export interface Clock {
  /** Milliseconds since the epoch, as the service sees them. */
  ms: number;
  iso(offsetMs?: number): string;
  advance(ms: number): void;
  set(ms: number): void;
}

export interface World {
  service: Service;
  driver: Driver;
  clock: Clock;
  blogId: string;
  /** Every event the service emitted, in order. */
  events: Wire[];
  anon: Service;
  /** Signed-in user with READER role on the blog. */
  reader: Service;
  /** AUTHOR of the blog. */
  author: Service;
  /** A second AUTHOR, whose posts `author` must not change. */
  author2: Service;
  /** ADMIN (owner) of the blog. */
  admin: Service;
  /** Signed in, existing user, no role in the blog. */
  outsider: Service;
}

export const USERS = {
  admin: { id: 'admin', displayName: 'Ada Admin' },
  author: { id: 'author', displayName: 'Arthur Author' },
  author2: { id: 'author2', displayName: 'Beth Writer' },
  reader: { id: 'reader', displayName: 'Rita Reader' },
  outsider: { id: 'outsider', displayName: 'Otto Outsider' },
} as const;

export function makeClock(start = T0): Clock {
  const clock: Clock = {
    ms: start,
    iso: (offset = 0) => new Date(clock.ms + offset).toISOString(),
    advance: (ms) => {
      clock.ms += ms;
    },
    set: (ms) => {
      clock.ms = ms;
    },
  };
  return clock;
}

export function newService(driver: Driver, clock: Clock = makeClock(), options: Partial<ServiceOptions> = {}): Service {
  return createBlogService({ driver, now: () => new Date(clock.ms), apiBaseUrl: API, ...options });
}

/** A blog with an admin, two authors, a reader and an outsider, on a new empty store; the clock at T0; events recorded. */
export async function world(driver: Driver, options: Partial<ServiceOptions> = {}): Promise<World> {
  const clock = makeClock();
  const service = newService(driver, clock, options);
  await service.ready();
  const events: Wire[] = [];
  service.on('*', (e: unknown) => {
    events.push(e as Wire);
  });
  for (const u of Object.values(USERS)) await service.users.insert({ body: { id: u.id, displayName: u.displayName } });
  const blog = await service.blogs.insert({
    body: { name: 'Test Blog', url: BLOG_URL, description: 'A blog for tests' },
    ownerId: USERS.admin.id,
  });
  const blogId = blog.id as string;
  await service.members.set({ blogId, userId: USERS.author.id, role: 'AUTHOR' });
  await service.members.set({ blogId, userId: USERS.author2.id, role: 'AUTHOR' });
  await service.members.set({ blogId, userId: USERS.reader.id, role: 'READER' });
  await settle();
  events.length = 0;
  return {
    service,
    driver,
    clock,
    blogId,
    events,
    anon: service.as(null),
    reader: service.as({ userId: USERS.reader.id }),
    author: service.as({ userId: USERS.author.id }),
    author2: service.as({ userId: USERS.author2.id }),
    admin: service.as({ userId: USERS.admin.id }),
    outsider: service.as({ userId: USERS.outsider.id }),
  };
}

/** Lets listeners that run after the write's promise settles catch up (no timing is asserted). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((r) => setTimeout(r, 0));
}

let counter = 0;
export const uniqueTitle = (prefix = 'Post') => `${prefix} ${++counter}`;

/** Creates a post in `state` as `who` (default: the blog's AUTHOR) and returns it at ADMIN view. */
export async function makePost(w: World, state: PostState, body: Wire = {}, who: Service = w.author): Promise<Wire> {
  const b = { title: uniqueTitle(), content: '<p>Body text</p>', ...body };
  let id: string;
  if (state === 'DRAFT') {
    id = (await who.posts.insert({ blogId: w.blogId, body: b as any, isDraft: true })).id as string;
  } else if (state === 'SCHEDULED') {
    id = (await who.posts.insert({ blogId: w.blogId, body: { published: w.clock.iso(10 * DAY), ...b } as any }))
      .id as string;
  } else {
    id = (await who.posts.insert({ blogId: w.blogId, body: b as any })).id as string;
    if (state === 'SOFT_TRASHED') await who.posts.delete({ blogId: w.blogId, postId: id, useTrash: true });
  }
  const post = await getPost(w, id);
  expect(post.status).toBe(state);
  return post;
}

export async function getPost(w: World, postId: string): Promise<Wire> {
  return (await w.service.posts.get({ blogId: w.blogId, postId })) as Wire;
}

/** Creates a page in `state` (pages are an ADMIN's business) and returns it at ADMIN view. */
export async function makePage(w: World, state: PageState, body: Wire = {}): Promise<Wire> {
  const b = { title: uniqueTitle('Page'), content: '<p>Page text</p>', ...body };
  const page = await w.admin.pages.insert({ blogId: w.blogId, body: b as any, isDraft: state === 'DRAFT' });
  const id = page.id as string;
  if (state === 'SOFT_TRASHED') await w.admin.pages.delete({ blogId: w.blogId, pageId: id, useTrash: true });
  const got = (await w.service.pages.get({ blogId: w.blogId, pageId: id })) as Wire;
  expect(got.status).toBe(state);
  return got;
}

/** Creates a comment in `state` on a LIVE post and returns it at ADMIN view. */
export async function makeComment(w: World, postId: string, state: CommentState, content = 'A comment'): Promise<Wire> {
  const blogId = w.blogId;
  let id: string;
  if (state === 'PENDING') {
    id = (await w.anon.comments.insert({ blogId, postId, body: { content } })).id as string;
  } else {
    id = (await w.service.comments.insert({ blogId, postId, body: { content } })).id as string;
    if (state === 'SPAM') await w.service.comments.markAsSpam({ blogId, postId, commentId: id });
    if (state === 'EMPTIED') await w.service.comments.removeContent({ blogId, postId, commentId: id });
  }
  const c = (await w.service.comments.get({ blogId, postId, commentId: id })) as Wire;
  expect(c.status).toBe(state);
  return c;
}

/** Awaits a rejection and checks it is a BlogError with this code (and reason, location). */
/** A call under test: a promise, or a function returning one (then a synchronous throw counts as a rejection). */
export type Call = Promise<unknown> | (() => Promise<unknown>);
const run = (c: Call): Promise<unknown> => (typeof c === 'function' ? Promise.resolve().then(c) : c);

export async function expectError(p: Call, code: number, reason?: string, location?: string): Promise<BlogError> {
  let error: unknown;
  let resolved = false;
  try {
    await run(p);
    resolved = true;
  } catch (e) {
    error = e;
  }
  expect(resolved, `expected a ${code}${reason ? ` ${reason}` : ''} error, but the call succeeded`).toBe(false);
  expect(BlogError.is(error), `expected a BlogError, got ${String(error)}`).toBe(true);
  const e = error as BlogError;
  expect({ code: e.code, reason: e.reason }).toEqual({ code, reason: reason ?? e.reason });
  if (location !== undefined) expect(e.location).toBe(location);
  return e;
}

/** Awaits a rejection and returns the BlogError, whatever its code. */
export async function catchError(p: Call): Promise<BlogError> {
  try {
    await run(p);
  } catch (e) {
    expect(BlogError.is(e), `expected a BlogError, got ${String(e)}`).toBe(true);
    return e as BlogError;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

export async function changeCount(driver: Driver): Promise<number> {
  return (await driver.changesSince(0)).length;
}

/** Everything the unscoped service can read about the blog, for before/after comparisons. */
export async function snapshot(w: World): Promise<unknown> {
  const blogId = w.blogId;
  const s = w.service;
  return {
    blog: await s.blogs.get({ blogId }),
    posts: await s.posts.list({ blogId, status: ['LIVE', 'DRAFT', 'SCHEDULED', 'SOFT_TRASHED'], maxResults: 500 }),
    pages: await s.pages.list({ blogId, status: ['LIVE', 'DRAFT', 'SOFT_TRASHED'], maxResults: 500 }),
    comments: await s.comments.listByBlog({ blogId, status: ['LIVE', 'EMPTIED', 'PENDING', 'SPAM'], maxResults: 500 }),
    members: await s.members.list({ blogId }),
    users: await Promise.all(Object.values(USERS).map((u) => s.users.get({ userId: u.id }))),
  };
}

/** Runs `fn` (which should be refused) and checks that neither the change log nor any read moved. */
export async function expectNoWrite(w: World, fn: () => Promise<unknown>): Promise<void> {
  const before = await snapshot(w);
  const changes = await changeCount(w.driver);
  await settle();
  const events = w.events.length;
  await fn();
  await settle();
  expect(await changeCount(w.driver), 'the driver change log grew').toBe(changes);
  expect(await snapshot(w)).toEqual(before);
  expect(w.events.slice(events), 'a refused write emitted events').toEqual([]);
}

export const ids = (list: Wire): string[] => ((list.items ?? []) as Wire[]).map((i) => i.id as string);

/** Posts a path from the post url (the part after the blog url, with its leading slash). */
export const pathOf = (url: string) => new URL(url).pathname;

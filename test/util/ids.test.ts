/** Record ids (src/util/ids.ts): ULIDs that sort by creation time, also among many made in one millisecond. */
import { beforeEach, expect, it, vi } from 'vitest';

const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
let newId: (now: Date) => string;

// Each test starts from a fresh module: the monotonic state (last time, last random part) is per module.
beforeEach(async () => {
  vi.resetModules();
  ({ newId } = await import('../../src/util/ids.js'));
});

// Time prefixes as the `ulid` package (which made the ids stored so far) encodes them.
it('is 26 Crockford base32 characters whose first 10 encode the milliseconds as before', () => {
  const id = newId(new Date(1469918176385));
  expect(id).toMatch(ULID);
  expect(id.slice(0, 10)).toBe('01ARYZ6S41');
  expect(newId(new Date(Date.UTC(2026, 2, 15))).slice(0, 10)).toBe('01KKQCNS00');
  expect(newId(new Date(2 ** 48 - 1)).slice(0, 10)).toBe('7ZZZZZZZZZ');
});

it('sorts ids stored before (made by the ulid package) against new ones by time', () => {
  const stored = '01KKQCNS00Z8W3M2J6ZQX4T9VE'; // 2026-03-15T00:00:00.000Z
  expect(newId(new Date(Date.UTC(2026, 2, 14, 23, 59, 59, 999))) < stored).toBe(true);
  expect(newId(new Date(Date.UTC(2026, 2, 15, 0, 0, 0, 1))) > stored).toBe(true);
});

it('keeps increasing across many ids made in one millisecond, and they are all different', () => {
  const now = new Date(Date.UTC(2026, 2, 15, 10));
  const ids = Array.from({ length: 20_000 }, () => newId(now));
  for (const id of ids) expect(id).toMatch(ULID);
  expect(new Set(ids.map((id) => id.slice(0, 10))).size).toBe(1);
  for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!, `${ids[i]} after ${ids[i - 1]}`).toBe(true);
  expect(new Set(ids).size).toBe(ids.length);
});

it('sorts ids of a later millisecond after every id of an earlier one, and stays monotonic when the clock steps back', () => {
  const t = Date.UTC(2026, 2, 15, 10);
  const first = Array.from({ length: 100 }, () => newId(new Date(t)));
  const later = newId(new Date(t + 1));
  expect(later > first.at(-1)!).toBe(true);
  expect(later.slice(0, 10)).not.toBe(first[0]!.slice(0, 10));
  const back = newId(new Date(t - 60_000));
  expect(back > later).toBe(true);
  expect(back.slice(0, 10)).toBe(later.slice(0, 10));
  expect(newId(new Date(t + 2)) > back).toBe(true);
});

it('reads back as the time it was made at, by the ulid package', async () => {
  const { decodeTime, isValid } = await import('ulid');
  const t = Date.UTC(2026, 2, 15, 10, 30, 1, 234);
  const id = newId(new Date(t));
  expect(isValid(id)).toBe(true);
  expect(decodeTime(id)).toBe(t);
});

it('draws a fresh random part each new millisecond', () => {
  const t = Date.UTC(2026, 2, 15, 10);
  const randoms = new Set(Array.from({ length: 200 }, (_, i) => newId(new Date(t + i)).slice(10)));
  expect(randoms.size).toBe(200);
});

it("takes its time from the service's injected clock", async () => {
  const { decodeTime } = await import('ulid');
  const { createBlogService } = await import('../../src/index.js');
  const { memoryDriver } = await import('../../drivers/memory/index.js');
  const t = Date.UTC(2031, 4, 6, 7, 8, 9, 10);
  const service = createBlogService({ driver: memoryDriver(), now: () => new Date(t) });
  await service.users.insert({ body: { id: 'u', displayName: 'U' } });
  const blog = await service.blogs.insert({ ownerId: 'u', body: { name: 'B', url: 'https://b.example/' } });
  const post = await service.posts.insert({ blogId: blog.id!, body: { title: 't', content: 'c' } });
  expect([decodeTime(blog.id!), decodeTime(post.id!)]).toEqual([t, t]);
  expect(post.id! > blog.id!).toBe(true);
  await service.close();
});

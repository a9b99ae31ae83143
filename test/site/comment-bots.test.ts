/**
 * The comment form against bots (docs/design.md §25): the honeypot, a missing, forged, too fast or day-old token, the
 * flood from one address (≤ 10 stored, a second address gets in during it, the "wait a little" page), the
 * client address behind a trusted proxy, and the key's rotation. A bot's form stores nothing and is answered as
 * an accepted one is.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { createBlogService } from '../../src/index.js';
import { createSite, rotateCommentFormKey, type SiteOptions } from '../../src/site/index.js';
import type { StorageDriver } from '../../src/store/driver.js';
import { DRIVERS } from '../support/drivers.js';
import { serveSite, type SiteServer } from './fixture.js';

const servers: SiteServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A site with one LIVE post; `form()` is its page's form fields. */
async function start(options: SiteOptions = {}, driver?: StorageDriver) {
  const srv = await serveSite(options, driver);
  servers.push(srv);
  const admin = await srv.service.users.insert({ body: { displayName: 'Ada' } });
  const blog = await srv.service.blogs.insert({ body: { name: 'B', url: `${srv.origin}/` }, ownerId: admin.id });
  const post = await srv.service.posts.insert({ blogId: blog.id, body: { title: 'Hello', content: '<p>x</p>' } });
  const url = `${srv.origin}${new URL(post.url!).pathname}`;
  const token = async () => /name="token" value="([^"]+)"/.exec(await (await fetch(url)).text())![1]!;
  const stored = async () =>
    (await srv.service.comments.list({ blogId: blog.id, postId: post.id, status: ['PENDING', 'LIVE', 'SPAM'] })).items;
  return { srv, blog, post, url, token, stored };
}

/** A form POST from a chosen local address; answers the status, Location and page. */
function send(
  url: string,
  fields: Record<string, string>,
  localAddress = '127.0.0.1',
  headers: Record<string, string> = {},
): Promise<{ status: number; location?: string; text: string }> {
  const body = new URLSearchParams(fields).toString();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        localAddress,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            ...(res.headers.location ? { location: res.headers.location } : {}),
            text,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

// On every store a server runs on: the form's key lives in the store; the limiter answers before it is read.
describe.each(DRIVERS.filter(([name]) => name !== 'idb'))(
  'the comment form against bots on %s',
  (_name, makeDriver) => {
    test('a filled-in honeypot, no token, a forged token or a form sent within 2 s: answered as accepted, nothing stored', async () => {
      const s = await start({}, makeDriver());
      const token = await s.token();
      // Sent at once: too fast.
      const fast = await send(s.url, { content: 'too fast', token });
      s.srv.later(3_000);
      const forged = token.replace(/\.(.)/, (_m, c: string) => `.${c === 'A' ? 'B' : 'A'}`);
      const bots = [
        fast,
        await send(s.url, { content: 'honey', token, website: 'http://spam.example/' }),
        await send(s.url, { content: 'no token' }),
        await send(s.url, { content: 'forged', token: forged }),
        await send(s.url, { content: 'garbage', token: 'abc' }),
      ];
      const person = await send(s.url, { content: 'a person', token });
      for (const b of bots)
        expect({ status: b.status, location: b.location }).toEqual({
          status: person.status,
          location: person.location,
        });
      expect(person.status).toBe(303);
      expect((await s.stored()).map((c) => c.content)).toEqual(['<p>a person</p>']);
    });

    test('a token from a day ago stores nothing; the reader is asked to send again', async () => {
      const s = await start({}, makeDriver());
      const token = await s.token();
      s.srv.later(86_400_000 + 1_000);
      const r = await send(s.url, { name: 'Kim', content: 'late', token });
      expect(r.status).toBe(400);
      expect(r.text).toContain('role="alert"');
      expect(r.text).toContain('late');
      expect(await s.stored()).toEqual([]);
    });

    test('behind a trusted proxy the forwarded address counts; without trustProxy it is ignored', async () => {
      for (const [options, expected] of [
        [{ trustProxy: 1 }, [303, 303, 303, 303, 303]],
        [{}, [303, 303, 303, 429, 429]],
      ] as const) {
        const s = await start(options, makeDriver());
        const token = await s.token();
        s.srv.later(3_000);
        const statuses = [];
        for (let i = 0; i < 5; i++)
          statuses.push(
            (await send(s.url, { content: `c ${i}`, token }, '127.0.0.1', { 'x-forwarded-for': `192.0.2.${i}` }))
              .status,
          );
        expect(statuses).toEqual(expected);
      }
    });

    test('after a rotation the forms already served still work; after two they do not', async () => {
      const s = await start({}, makeDriver());
      const old = await s.token();
      await rotateCommentFormKey(s.srv.service);
      s.srv.later(3_000);
      // A site started after the rotation (another app server, or this one within 10 minutes).
      const site = createSite(s.srv.service);
      const post = (token: string, content: string) =>
        site(
          new Request(s.url, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ content, token }).toString(),
          }),
        );
      expect((await post(old, 'after one rotation'))!.status).toBe(303);
      await rotateCommentFormKey(s.srv.service);
      const again = createSite(s.srv.service);
      const r = await again(
        new Request(s.url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ content: 'after two', token: old }).toString(),
        }),
      );
      expect(r!.status).toBe(303);
      expect((await s.stored()).map((c) => c.content)).toEqual(['<p>after one rotation</p>']);
    });

    test('1,000 forms from one address store at most 10; a second address gets in during the flood', async () => {
      const s = await start({}, makeDriver());
      const token = await s.token();
      s.srv.later(3_000);
      const answers: Array<{ status: number }> = [];
      let second: { status: number } | undefined;
      let next = 0;
      const worker = async () => {
        while (next < 1000) {
          const i = next++;
          answers.push(await send(s.url, { content: `flood ${i}`, token }));
          if (i === 500) second = await send(s.url, { content: 'another reader', token }, '127.0.0.2');
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      const stored = await s.stored();
      expect(stored.length).toBeLessThanOrEqual(10);
      expect(stored.map((c) => c.content)).toContain('<p>another reader</p>');
      expect(second!.status).toBe(303);
      expect(answers.filter((a) => a.status === 429).length).toBeGreaterThanOrEqual(990);
      const refused = await send(s.url, { name: 'Kim', content: 'one more', token });
      expect(refused.status).toBe(429);
      expect(refused.text).toContain('wait a little');
      expect(refused.text).toContain('one more');
    }, 120_000);
  },
);

describe('createSite', () => {
  test('createSite checks its trustProxy', () => {
    const service = createBlogService({ driver: memoryDriver() });
    expect(() => createSite(service, { trustProxy: ['10.0.0.0/99'] })).toThrow(TypeError);
  });
});

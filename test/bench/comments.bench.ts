/**
 * Comments from the public (docs/comments.md, docs/design.md §25), over loopback on a memory store:
 * - a burst of 1,000 anonymous comments from one client through `POST /v3/…/comments`: how many are stored
 *   (target ≤ 10);
 * - CPU per refused request (429): blogcore's handler beside a raw `node:http` server answering the same 429, both
 *   in this process with the same keep-alive client, so the client's share is the same in both (target: ours
 *   ≤ 50 µs more than raw);
 * - accepted comments a second in process, each from its own address (the limiter on its path) beside the same
 *   calls with no address (no limiter: how comments were taken before).
 *
 *   npm run bench -- --only=comments
 */
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { memoryDriver } from '../../drivers/memory/index.js';
import { createBlogService } from '../../src/index.js';
import { createHttpHandler, toNodeHandler } from '../../src/http/index.js';
import { createSite } from '../../src/site/index.js';
import type { BenchContext } from './harness.js';

async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

function post(agent: Agent, url: string, body: string, type = 'application/json'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': type, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function blog() {
  const service = createBlogService({ driver: memoryDriver() });
  await service.users.insert({ body: { id: 'ada', displayName: 'Ada' } });
  const b = await service.blogs.insert({ body: { name: 'B', url: 'https://b.example/' }, ownerId: 'ada' });
  const p = await service.posts.insert({ blogId: b.id, body: { title: 'Hello' } });
  return { service, blogId: b.id, postId: p.id };
}

/** CPU (µs) this process spends per request of `n`, sent 8 at a time. */
async function cpuPer(agent: Agent, url: string, n: number, body: (i: number) => string): Promise<number> {
  const start = process.cpuUsage();
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < n) await post(agent, url, body(next++));
    }),
  );
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

/** One client sending as fast as 8 connections let it, `until` attempts or milliseconds run out. */
async function flood(
  until: { attempts?: number; ms?: number },
  send: (i: number) => Promise<number>,
): Promise<{ attempts: number; refused: number; seconds: number }> {
  const t0 = performance.now();
  let next = 0;
  let refused = 0;
  const more = () =>
    (until.attempts === undefined || next < until.attempts) &&
    (until.ms === undefined || performance.now() - t0 < until.ms);
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (more()) if ((await send(next++)) === 429) refused++;
    }),
  );
  return { attempts: next, refused, seconds: (performance.now() - t0) / 1000 };
}

/** The reading site's comment form on its own server: a post, its form's token (sent 2 s after it was served). */
async function siteForm(agent: Agent) {
  const service = createBlogService({ driver: memoryDriver() });
  const server = createServer(toNodeHandler(createSite(service)));
  const origin = `http://127.0.0.1:${await listen(server)}`;
  await service.users.insert({ body: { id: 'ada', displayName: 'Ada' } });
  const b = await service.blogs.insert({ body: { name: 'B', url: `${origin}/` }, ownerId: 'ada' });
  const p = await service.posts.insert({ blogId: b.id, body: { title: 'Hello' } });
  const url = `${origin}${new URL(p.url!).pathname}`;
  const token = /name="token" value="([^"]+)"/.exec(await (await fetch(url)).text())![1]!;
  await new Promise((r) => setTimeout(r, 2_100));
  const form = 'application/x-www-form-urlencoded';
  return {
    send: (i: number) => post(agent, url, new URLSearchParams({ content: `form ${i}`, token }).toString(), form),
    stored: async () =>
      (
        await service.comments.list({
          blogId: b.id,
          postId: p.id,
          status: ['PENDING', 'LIVE', 'SPAM'],
          maxResults: 500,
        })
      ).items.length,
    close: async () => {
      await new Promise((r) => server.close(r));
      await service.close();
    },
  };
}

export default async function run(ctx: BenchContext): Promise<void> {
  const n = ctx.quick ? 2_000 : 20_000;
  const { service, blogId, postId } = await blog();
  const ours = createServer(toNodeHandler(createHttpHandler(service)));
  const raw = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(429, { 'content-type': 'application/json; charset=UTF-8', 'retry-after': '15' });
      res.end('{"error":{"code":429,"message":"Too many comments","status":"RESOURCE_EXHAUSTED"}}');
    });
  });
  const [oursPort, rawPort] = [await listen(ours), await listen(raw)];
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const url = `http://127.0.0.1:${oursPort}/v3/blogs/${blogId}/posts/${postId}/comments`;

  // The burst: 1,000 from one client.
  const statuses: number[] = [];
  for (let i = 0; i < 1000; i++) statuses.push(await post(agent, url, JSON.stringify({ content: `burst ${i}` })));
  const stored = (await service.comments.list({ blogId, postId, status: ['PENDING', 'LIVE', 'SPAM'], maxResults: 500 }))
    .items.length;

  // The same through the reading site's form, and a minute (10 s quick) of each from one client.
  const minute = ctx.quick ? 10_000 : 60_000;
  let form = await siteForm(agent);
  const formBurst = await flood({ attempts: 1000 }, form.send);
  const formBurstStored = await form.stored();
  await form.close();
  form = await siteForm(agent);
  const formMinute = await flood({ ms: minute }, form.send);
  const formMinuteStored = await form.stored();
  await form.close();
  const api = await blog();
  const apiServer = createServer(toNodeHandler(createHttpHandler(api.service)));
  const apiUrl = `http://127.0.0.1:${await listen(apiServer)}/v3/blogs/${api.blogId}/posts/${api.postId}/comments`;
  const apiMinute = await flood({ ms: minute }, (i) => post(agent, apiUrl, JSON.stringify({ content: `m ${i}` })));
  const apiMinuteStored = (
    await api.service.comments.list({
      blogId: api.blogId,
      postId: api.postId,
      status: ['PENDING', 'LIVE', 'SPAM'],
      maxResults: 500,
    })
  ).items.length;
  await new Promise((r) => apiServer.close(r));
  await api.service.close();

  // Refusals: the same client, now over its limit, beside raw 429s (each measured twice, the second kept).
  const body = (i: number) => JSON.stringify({ content: `refused ${i}` });
  const rawUrl = `http://127.0.0.1:${rawPort}/v3/x`;
  await cpuPer(agent, rawUrl, n / 4, body);
  await cpuPer(agent, url, n / 4, body);
  const rawCpu = await cpuPer(agent, rawUrl, n, body);
  const oursCpu = await cpuPer(agent, url, n, body);

  // Accepted comments a second, in process: each from its own address, beside no address at all.
  const accepted = async (withAddress: boolean) => {
    const w = await blog();
    const anon = w.service.as(null);
    const count = ctx.quick ? 1_000 : 5_000;
    const t0 = performance.now();
    for (let i = 0; i < count; i++)
      await anon.comments.insert({
        blogId: w.blogId,
        postId: w.postId,
        body: { content: `comment ${i}` },
        ...(withAddress ? { clientAddress: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` } : {}),
      });
    return count / ((performance.now() - t0) / 1000);
  };
  const before = await accepted(false);
  const after = await accepted(true);

  agent.destroy();
  await Promise.all([ours, raw].map((s) => new Promise((r) => s.close(r))));
  console.log('\n## comments from the public (memory store, loopback)');
  console.log(
    `load ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} on ${cpus().length} cores`,
  );
  console.log('| measure | blogcore | raw baseline | ratio | target |');
  console.log('|---|---|---|---|---|');
  console.log(
    `| 1,000 comments from one client: stored | ${stored} (${statuses.filter((s) => s === 429).length} × 429) | — | — | ≤ 10 |`,
  );
  const seconds = `${minute / 1000} s`;
  console.log(
    `| 1,000 forms from one client through the site: stored | ${formBurstStored} (${formBurst.refused} × 429, ${formBurst.seconds.toFixed(1)} s) | — | — | ≤ 10 |`,
  );
  console.log(
    `| ${seconds} of forms from one client through the site: stored | ${formMinuteStored} of ${formMinute.attempts} (${formMinute.refused} × 429) | — | — | ≤ 10 |`,
  );
  console.log(
    `| ${seconds} of POST /v3/…/comments from one client: stored | ${apiMinuteStored} of ${apiMinute.attempts} (${apiMinute.refused} × 429) | — | — | ≤ 10 |`,
  );
  console.log(
    `| CPU per refused request (µs, client included) | ${oursCpu.toFixed(1)} | ${rawCpu.toFixed(1)} (node:http 429) | ${(oursCpu / rawCpu).toFixed(2)}× | ours − raw ≤ 50 µs: ${(oursCpu - rawCpu).toFixed(1)} µs ${oursCpu - rawCpu <= 50 ? 'met' : 'NOT met'} |`,
  );
  console.log(
    `| accepted comments/s, in process, each from its own address | ${after.toFixed(0)} | ${before.toFixed(0)} (no address, no limiter) | ${(after / before).toFixed(2)}× | ≈ 1× |`,
  );
  await service.close();
}

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { BlogError, createBlogService } from '../../src/index.js';
import { importBlog, type ImportFailure } from '../../src/io/index.js';
import { wxrFile } from './generate.js';
import { clock, contentView, memoryService } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'blogcore-io-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const wxrHead = `<?xml version="1.0"?>\n<rss version="2.0" xmlns:wp="http://wordpress.org/export/1.2/" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>T</title><link>https://t.example.test</link>`;

async function refused(text: string | Uint8Array, options = {}) {
  const service = memoryService(clock().now);
  const error = await importBlog(service, text, options).catch((e: unknown) => e);
  expect(BlogError.is(error)).toBe(true);
  // Nothing is written for a refused file: no blog at all.
  await expect(service.blogs.getByUrl({ url: 'https://t.example.test/' })).rejects.toMatchObject({ code: 404 });
  return error as BlogError;
}

describe('hostile and broken files', () => {
  it('refuses a billion-laughs DTD without expanding anything', async () => {
    const lol = `<?xml version="1.0"?>\n<!DOCTYPE rss [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;"><!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">]>\n<rss version="2.0" xmlns:wp="http://wordpress.org/export/1.2/"><channel><title>&lol9;</title><link>https://t.example.test</link><item><title>&lol9;</title><wp:post_id>1</wp:post_id></item></channel></rss>`;
    const error = await refused(lol, { format: 'wxr' });
    expect(error).toMatchObject({ code: 400, reason: 'parseError' });
    expect(error.message).toMatch(/DOCTYPE/);
  });

  it('refuses an external entity pointing at a local file (XXE)', async () => {
    const secret = join(dir, 'secret.txt');
    writeFileSync(secret, 'TOP-SECRET-VALUE');
    const xxe = `<?xml version="1.0"?>\n<!DOCTYPE rss [<!ENTITY xxe SYSTEM "file://${secret}">]>\n${wxrHead.replace('<?xml version="1.0"?>\n', '')}<item><title>&xxe;</title><content:encoded>&xxe;</content:encoded><wp:post_id>1</wp:post_id><wp:status>publish</wp:status></item></channel></rss>`;
    const error = await refused(xxe, { format: 'wxr' });
    expect(error.message).toMatch(/DOCTYPE/);
    expect(error.message).not.toContain('TOP-SECRET');
    // An entity used without any DTD is an error too, never a file read.
    const undeclared = `${wxrHead}<item><title>&xxe;</title><wp:post_id>1</wp:post_id></item></channel></rss>`;
    expect((await refused(undeclared, { format: 'wxr' })).message).toMatch(/Malformed XML/);
  });

  it('refuses files of the wrong format with a clear error', async () => {
    expect((await refused(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).message).toMatch(
      /Unknown file format/,
    );
    expect((await refused('<html><body>hello</body></html>')).message).toMatch(/Unknown file format/);
    expect((await refused('{"hello": "world"}')).message).toMatch(/Unknown file format/);
    expect((await refused('<feed xmlns="http://www.w3.org/2005/Atom"></feed>', { format: 'wxr' })).message).toMatch(
      /Not a WXR file/,
    );
    expect((await refused(`${wxrHead}</channel></rss>`, { format: 'blogger-atom' })).message).toMatch(
      /Not a Blogger export/,
    );
    expect((await refused('{"format":"blogcore-json"', { format: 'blogcore-json' })).reason).toBe('parseError');
  });

  it('a truncated file is a clear error; what came before is kept and a re-run with the whole file completes it', async () => {
    let whole = '';
    for await (const c of wxrFile(120, 2)) whole += c;
    const cut = whole.slice(0, Math.floor(whole.length * 0.6));
    const service = memoryService(clock().now);
    const error = (await importBlog(service, cut).catch((e: unknown) => e)) as ImportFailure;
    expect(error).toMatchObject({ code: 400, reason: 'parseError' });
    expect(error.message).toMatch(/truncated/);
    const partial = error.report.created.posts;
    expect(partial).toBeGreaterThan(10);
    expect(partial).toBeLessThan(120);
    const done = await importBlog(service, whole);
    expect(done.created.posts + done.unchanged.posts).toBe(120);
    expect(done.unchanged.posts).toBe(partial);
    const posts = await service.posts.list({ blogId: done.blogId, maxResults: 500 });
    expect(posts.items).toHaveLength(120);
    // Each post's comment count matches its comments: nothing half-written.
    for (const p of posts.items.slice(0, 30)) {
      const live = await service.comments.list({ blogId: done.blogId, postId: p.id, view: 'ADMIN', status: ['LIVE'] });
      expect(p.replies.totalItems).toBe(String(live.items.length));
    }
  });

  it('streams: records are stored while the file is still being read', async () => {
    const service = memoryService(clock().now);
    let storedWhenLastChunkRead = -1;
    async function* source() {
      for await (const chunk of wxrFile(2_000, 0)) yield new TextEncoder().encode(chunk);
      const blog = await service.blogs.getByUrl({ url: 'https://gen.example.test/' });
      storedWhenLastChunkRead = blog.posts.totalItems;
    }
    const report = await importBlog(service, source());
    expect(report.created.posts).toBe(2_000);
    // Parsing the whole file first would have stored nothing by then.
    expect(storedWhenLastChunkRead).toBeGreaterThan(1_900);
  });

  it('an import killed midway completes when run again, without duplicates', async () => {
    const filename = join(dir, 'interrupted.db');
    const posts = 300;
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/io/import-child.ts', filename, String(posts)], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      child.stdout.on('data', (b: Buffer) => {
        const lines = b.toString().trim().split('\n');
        if (lines.some((l) => Number(l) >= 200)) child.kill('SIGKILL');
      });
      child.on('exit', (_code, signal) =>
        signal === 'SIGKILL' ? resolve() : reject(new Error(`the import finished before it was killed: ${stderr}`)),
      );
    });
    const c = clock(Date.parse('2026-03-15T10:00:00Z'));
    const service = createBlogService({ driver: sqliteDriver({ filename }), now: c.now });
    const report = await importBlog(service, wxrFile(posts));
    expect(report.unchanged.posts).toBeGreaterThan(0);
    expect(report.created.posts + report.unchanged.posts).toBe(posts);
    expect(report.created.comments + report.unchanged.comments).toBe(posts * 2);
    expect(report.skipped).toEqual([]);
    const view = await contentView(service, report.blogId);
    expect(view).toHaveLength(posts);
    for (const p of view)
      expect(p.replies).toBe(String((p.comments as { status: string }[]).filter((x) => x.status === 'LIVE').length));
    const again = await importBlog(service, wxrFile(posts));
    expect(again).toMatchObject({ created: { posts: 0, comments: 0 }, unchanged: { posts, comments: posts * 2 } });
    await service.close();
    void readFileSync;
  });
});

describe('a 100 MB file', () => {
  it('imports with a 64 MB heap: memory stays flat in the size of the file', async () => {
    // A child with a heap far smaller than the file: holding the text, or every skipped record, runs out of memory.
    const child = spawn(
      process.execPath,
      ['--max-old-space-size=64', '--import', 'tsx', 'test/io/large-child.ts', '100'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(err).toBe('');
    expect(code).toBe(0);
    const result = JSON.parse(out) as { bytes: number; posts: number; comments: number; skipped: number };
    expect(result.bytes).toBeGreaterThan(100_000_000);
    expect(result).toMatchObject({ posts: 1, comments: 1 });
    expect(result.skipped).toBeGreaterThan(4_900);
  }, 120_000);
});

/**
 * Imported comments are filed as the service files its own (by their post's visibility class), so a reader's
 * walk of a blog's comments never visits those of a draft, however many were imported.
 */
import { expect, it } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { createBlogService } from '../../src/index.js';
import { importBlog } from '../../src/io/index.js';
import { countingDriver } from '../support/counting-driver.js';
import { clock } from './helpers.js';

function takeout(draftComments: number): string {
  const entry = (body: string) => `<entry>${body}</entry>\n`;
  let out = `<?xml version='1.0' encoding='utf-8'?>\n<feed xmlns='http://www.w3.org/2005/Atom' xmlns:blogger='http://schemas.google.com/blogger/2018'><title>B</title><link rel='alternate' type='text/html' href='https://b.example.test/'/><author><name>Owner</name></author>\n`;
  out += entry(
    `<id>tag:blogger.com,1999:blog-1.post-1</id><blogger:type>POST</blogger:type><blogger:status>LIVE</blogger:status><title>Live</title><content type='html'>x</content><published>2025-01-01T00:00:00Z</published><updated>2025-01-01T00:00:00Z</updated><blogger:filename>/2025/01/live.html</blogger:filename>`,
  );
  out += entry(
    `<id>tag:blogger.com,1999:blog-1.post-2</id><blogger:type>POST</blogger:type><blogger:status>DRAFT</blogger:status><title>Draft</title><content type='html'>y</content><updated>2025-01-02T00:00:00Z</updated>`,
  );
  out += entry(
    `<id>tag:blogger.com,1999:blog-1.post-10</id><blogger:type>COMMENT</blogger:type><blogger:status>LIVE</blogger:status><content type='html'>on the live post</content><published>2025-01-01T01:00:00Z</published><blogger:parent>tag:blogger.com,1999:blog-1.post-1</blogger:parent>`,
  );
  for (let i = 0; i < draftComments; i++) {
    const t = new Date(Date.UTC(2025, 1, 1) + i * 60_000).toISOString();
    out += entry(
      `<id>tag:blogger.com,1999:blog-1.post-${100 + i}</id><blogger:type>COMMENT</blogger:type><blogger:status>LIVE</blogger:status><content type='html'>on the draft ${i}</content><published>${t}</published><blogger:parent>tag:blogger.com,1999:blog-1.post-2</blogger:parent>`,
    );
  }
  return `${out}</feed>\n`;
}

it("a reader's blog-wide comment list reads a page's worth, not the draft's imported comments", async () => {
  const driver = countingDriver(memoryDriver());
  const service = createBlogService({ driver, now: clock().now });
  const report = await importBlog(service, takeout(400));
  expect(report.created).toMatchObject({ posts: 2, comments: 401 });
  driver.reset();
  const page = await service.as(null).comments.listByBlog({ blogId: report.blogId, maxResults: 10 });
  expect(page.items.map((c) => c.content)).toEqual(['on the live post']);
  expect(driver.handedOut).toBeLessThan(40);
  const admin = await service.comments.listByBlog({ blogId: report.blogId, view: 'ADMIN', maxResults: 500 });
  expect(admin.items).toHaveLength(401);
});

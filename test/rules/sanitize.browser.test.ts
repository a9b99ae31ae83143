/**
 * Comment HTML through a real HTML parser (Chromium's DOMParser): whatever a reader posts, the stored comment
 * parses into allowlisted elements only, with no attribute but a link's rel, title and an http(s)/mailto href.
 */
import { expect, it } from 'vitest';
import { createBlogService } from '../../src/index.js';
import { memoryDriver } from '../../drivers/memory/index.js';
import { ALLOWED_TAGS, HOSTILE_COMMENTS } from '../support/comment-html.js';

it('every hostile comment parses into allowlisted, attribute-safe elements', async () => {
  const service = createBlogService({ driver: memoryDriver() });
  await service.users.insert({ body: { id: 'owner', displayName: 'Owner' } });
  const blog = await service.blogs.insert({ ownerId: 'owner', body: { name: 'B', url: 'https://b.example/' } });
  const post = await service.posts.insert({ blogId: blog.id!, body: { title: 't', content: 'c' } });
  const problems: string[] = [];
  for (const html of HOSTILE_COMMENTS) {
    const comment = await service
      .as(null)
      .comments.insert({ blogId: blog.id!, postId: post.id!, body: { content: html } });
    const doc = new DOMParser().parseFromString(`<!doctype html><body>${comment.content}`, 'text/html');
    for (const el of doc.body.querySelectorAll('*')) {
      if (!ALLOWED_TAGS.has(el.tagName)) problems.push(`${html} → <${el.tagName}>`);
      for (const attr of el.attributes) {
        const ok =
          el.tagName === 'A' &&
          ((attr.name === 'rel' && attr.value === 'nofollow') ||
            attr.name === 'title' ||
            (attr.name === 'href' && /^(https?|mailto):$/.test(new URL(attr.value).protocol)));
        if (!ok) problems.push(`${html} → ${el.tagName} ${attr.name}="${attr.value}"`);
      }
      if (el.tagName === 'A' && el.getAttribute('rel') !== 'nofollow')
        problems.push(`${html} → a link without rel=nofollow`);
    }
  }
  expect(problems).toEqual([]);
  await service.close();
});

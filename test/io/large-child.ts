/**
 * Imports a generated WXR of about `megabytes` MB into a memory store and prints the report's counts: the
 * large-file test runs it with a heap far smaller than the file, so holding the file (or its records) fails.
 * The file is one post with comments, then WordPress attachments of 20 KB each (skipped with a reason).
 */
import { memoryDriver } from '../../drivers/memory/index.js';
import { createBlogService } from '../../src/index.js';
import { importBlog } from '../../src/io/index.js';

const megabytes = Number(process.argv[2]);
const filler = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(350); // ~20 KB
let bytes = 0;

async function* file(): AsyncGenerator<string> {
  const head = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel><title>Large</title><link>https://large.example.test</link>
<wp:author><wp:author_id>1</wp:author_id><wp:author_login>big</wp:author_login><wp:author_display_name>Big</wp:author_display_name></wp:author>
<item><title>The one post</title><link>https://large.example.test/one/</link><dc:creator>big</dc:creator><content:encoded><![CDATA[<p>kept</p>]]></content:encoded><wp:post_id>1</wp:post_id><wp:post_date_gmt>2020-01-01 10:00:00</wp:post_date_gmt><wp:status>publish</wp:status><wp:post_type>post</wp:post_type><wp:comment><wp:comment_id>1</wp:comment_id><wp:comment_author>R</wp:comment_author><wp:comment_date_gmt>2020-01-02 10:00:00</wp:comment_date_gmt><wp:comment_content>hi</wp:comment_content><wp:comment_approved>1</wp:comment_approved><wp:comment_parent>0</wp:comment_parent></wp:comment></item>
`;
  bytes += head.length;
  yield head;
  for (let i = 2; bytes < megabytes * 1_000_000; i++) {
    const item = `<item><title>image-${i}.jpg</title><link>https://large.example.test/image-${i}/</link><content:encoded><![CDATA[${filler}]]></content:encoded><wp:post_id>${i}</wp:post_id><wp:post_date_gmt>2020-01-01 10:00:00</wp:post_date_gmt><wp:status>inherit</wp:status><wp:post_type>attachment</wp:post_type></item>\n`;
    bytes += item.length;
    yield item;
  }
  yield '</channel></rss>\n';
}

const service = createBlogService({ driver: memoryDriver(), now: () => new Date('2026-03-15T10:00:00Z') });
const report = await importBlog(service, file());
await service.close();
process.stdout.write(
  `${JSON.stringify({ bytes, posts: report.created.posts, comments: report.created.comments, skipped: report.skipped.length })}\n`,
);

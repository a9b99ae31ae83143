/** Generated exports of any size, as streams of chunks (never held whole): for the streaming tests and the bench. */

const pad = (n: number) => String(n).padStart(2, '0');
const when = (i: number) => new Date(Date.UTC(2015, 0, 1) + i * 3_600_000).toISOString();
const wp = (iso: string) => iso.slice(0, 19).replace('T', ' ');
const body = (i: number) =>
  `<p>Post number ${i} &amp; some text about coffee, trains and the weather, long enough to look like a paragraph.</p><p>Second paragraph ${i}.</p>`;

/** A WXR 1.2 file with `posts` posts, each with `comments` comments (every third a reply). */
export async function* wxrFile(posts: number, comments = 2): AsyncGenerator<string> {
  yield `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel><title>Generated</title><link>https://gen.example.test</link>
<wp:author><wp:author_id>1</wp:author_id><wp:author_login>gen</wp:author_login><wp:author_display_name>Generator</wp:author_display_name></wp:author>
`;
  let batch = '';
  for (let i = 1; i <= posts; i++) {
    const t = when(i);
    let cs = '';
    for (let j = 1; j <= comments; j++) {
      const cid = i * 100 + j;
      cs += `<wp:comment><wp:comment_id>${cid}</wp:comment_id><wp:comment_author>Reader ${j}</wp:comment_author><wp:comment_date_gmt>${wp(t)}</wp:comment_date_gmt><wp:comment_content><![CDATA[Comment ${j} on ${i}]]></wp:comment_content><wp:comment_approved>${j % 2 ? '1' : '0'}</wp:comment_approved><wp:comment_parent>${j % 3 === 0 ? cid - 1 : 0}</wp:comment_parent></wp:comment>`;
    }
    batch += `<item><title>Generated post ${i}</title><link>https://gen.example.test/${t.slice(0, 4)}/${pad((i % 12) + 1)}/post-${i}/</link><dc:creator>gen</dc:creator><content:encoded><![CDATA[${body(i)}]]></content:encoded><wp:post_id>${i}</wp:post_id><wp:post_date_gmt>${wp(t)}</wp:post_date_gmt><wp:status>publish</wp:status><wp:post_type>post</wp:post_type><category domain="post_tag" nicename="t${i % 20}">tag ${i % 20}</category>${cs}</item>\n`;
    if (i % 50 === 0) {
      yield batch;
      batch = '';
    }
  }
  yield `${batch}</channel></rss>\n`;
}

/** A legacy Blogger export with `posts` posts and their comments after all posts, as Blogger writes them. */
export async function* bloggerFile(posts: number, comments = 2): AsyncGenerator<string> {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const kind = (k: string) =>
    `<category scheme='http://schemas.google.com/g/2005#kind' term='http://schemas.google.com/blogger/2008/kind#${k}'/>`;
  yield `<?xml version='1.0' encoding='UTF-8'?><feed xmlns='http://www.w3.org/2005/Atom' xmlns:thr='http://purl.org/syndication/thread/1.0'><id>tag:blogger.com,1999:blog-1</id><title type='text'>Generated Blogger</title><link rel='alternate' type='text/html' href='https://gen.blogspot.test/'/><author><name>Gen</name><uri>https://www.blogger.com/profile/1</uri></author>\n`;
  let batch = '';
  for (let i = 1; i <= posts; i++) {
    const t = when(i);
    batch += `<entry><id>tag:blogger.com,1999:blog-1.post-${i}</id><published>${t}</published><updated>${t}</updated>${kind('post')}<category scheme='http://www.blogger.com/atom/ns#' term='tag ${i % 20}'/><title type='text'>Generated post ${i}</title><content type='html'>${esc(body(i))}</content><link rel='alternate' type='text/html' href='https://gen.blogspot.test/${t.slice(0, 4)}/${t.slice(5, 7)}/post-${i}.html'/><author><name>Gen</name><uri>https://www.blogger.com/profile/1</uri></author></entry>\n`;
    if (i % 50 === 0) {
      yield batch;
      batch = '';
    }
  }
  for (let i = 1; i <= posts; i++) {
    for (let j = 1; j <= comments; j++) {
      const cid = i * 100 + j;
      batch += `<entry><id>tag:blogger.com,1999:blog-1.post-${cid}</id><published>${when(i)}</published><updated>${when(i)}</updated>${kind('comment')}<title type='text'>c</title><content type='html'>Comment ${j} on ${i}</content><author><name>Reader ${j}</name></author><thr:in-reply-to ref='tag:blogger.com,1999:blog-1.post-${i}' type='text/html'/></entry>\n`;
    }
    if (i % 50 === 0) {
      yield batch;
      batch = '';
    }
  }
  yield `${batch}</feed>\n`;
}

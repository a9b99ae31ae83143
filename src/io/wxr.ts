/**
 * WordPress eXtended RSS (WXR 1.0, 1.1, 1.2) in. Posts and pages with their statuses, tags and categories
 * as labels, authors as users, nested `wp:comment` threads with their approval. WordPress permalinks get
 * blogcore urls; the report's redirect map pairs them. Everything else WordPress keeps (attachments,
 * menus, revisions, custom types) is skipped with the reason.
 */
import type { CommentStatus, PostStatus } from '../schema/schemas.js';
import { authorUser, idFor, isoTime } from './keys.js';
import { restoreItem } from './items.js';
import type { CommentIn, Restorer } from './restore.js';
import { children, rawOf, textOf, TOO_LARGE, xmlRecords, parseError, type El } from './xml.js';

export { exportWxr } from './wxr-out.js';

const STATES: Record<string, PostStatus> = {
  publish: 'LIVE',
  future: 'SCHEDULED',
  draft: 'DRAFT',
  'auto-draft': 'DRAFT',
  pending: 'DRAFT',
  private: 'DRAFT',
  trash: 'SOFT_TRASHED',
};

/** `wp:comment_approved`: 1 LIVE, 0 PENDING, spam SPAM, trash hidden as SPAM (no comment trash here). */
const APPROVAL: Record<string, CommentStatus> = {
  '1': 'LIVE',
  approve: 'LIVE',
  '0': 'PENDING',
  hold: 'PENDING',
  spam: 'SPAM',
  trash: 'SPAM',
  'post-trashed': 'SPAM',
};

/** A WordPress time: the `_gmt` field (UTC), else the local one read as UTC, else the RSS pubDate. */
function timeOf(item: El, gmt: string, local: string, rss?: string): string | undefined {
  return isoTime(textOf(item, gmt)) ?? isoTime(textOf(item, local)) ?? (rss ? isoTime(textOf(item, rss)) : undefined);
}

export async function importWxr(restorer: Restorer, chunks: AsyncIterable<string>): Promise<void> {
  const header: { title: string; link: string; baseBlog: string; description: string; language: string } = {
    title: '',
    link: '',
    baseBlog: '',
    description: '',
    language: '',
  };
  const authors = new Map<string, { name: string }>();
  let firstAuthor: string | undefined;
  let blogUrl = '';
  let seenRoot = false;

  const open = async (fallbackAuthor?: string) => {
    if (restorer.blog) return;
    blogUrl = restorer.blogUrl(header.baseBlog || header.link || undefined);
    const ownerKey = firstAuthor ?? fallbackAuthor;
    const lang = header.language.split(/[-_]/);
    await restorer.openBlog(
      {
        name: header.title || blogUrl,
        description: header.description,
        url: blogUrl,
        locale: { language: lang[0] || 'en', country: lang[1] ?? '', variant: '' },
      },
      ownerKey ? authorUser(blogUrl, ownerKey, authors.get(ownerKey)?.name ?? ownerKey) : undefined,
    );
  };

  const userFor = async (login: string) => {
    const key = login || firstAuthor || 'wordpress';
    const u = authorUser(blogUrl, key, authors.get(key)?.name ?? key);
    await restorer.user(u);
    if (u.id !== restorer.blog!.ownerId) await restorer.member(u.id, 'AUTHOR');
    return u.id;
  };

  for await (const el of xmlRecords(chunks)) {
    if ('root' in el) {
      if (el.root !== ':rss')
        throw parseError(`Not a WXR file: the root element is <${el.root.replace(/^:/, '')}>, not <rss>`);
      seenRoot = true;
      continue;
    }
    switch (el.name) {
      case ':title':
        header.title = el.text.trim();
        continue;
      case ':link':
        header.link = el.text.trim();
        continue;
      case ':description':
        header.description = el.text.trim();
        continue;
      case ':language':
        header.language = el.text.trim();
        continue;
      case 'wp:base_blog_url':
        header.baseBlog = el.text.trim();
        continue;
      case 'wp:author': {
        const login = textOf(el, 'wp:author_login');
        if (!login) continue;
        authors.set(login, { name: textOf(el, 'wp:author_display_name') || login });
        firstAuthor ??= login;
        continue;
      }
      case ':item':
        break;
      default:
        continue;
    }
    await open(textOf(el, 'dc:creator') || undefined);
    await item(restorer, el, userFor);
  }
  if (!seenRoot) throw parseError('Not a WXR file: empty');
  await open();
}

/** One WordPress item: a post or page with its comments, or an attachment to fetch. */
async function item(restorer: Restorer, el: El, userFor: (login: string) => Promise<string>): Promise<void> {
  const wpId = textOf(el, 'wp:post_id');
  const title = textOf(el, ':title');
  const source = `item ${wpId || '?'}${title ? ` "${title.slice(0, 60)}"` : ''}`;
  if ((el as El & { [TOO_LARGE]?: true })[TOO_LARGE])
    return restorer.skip(source, 'Item larger than the import accepts');
  const type = textOf(el, 'wp:post_type') || 'post';
  if (type === 'attachment' && restorer.withMedia) {
    const url = textOf(el, 'wp:attachment_url');
    return url
      ? void restorer.attachments.push({ url, source })
      : restorer.skip(source, 'Attachment without wp:attachment_url');
  }
  if (type !== 'post' && type !== 'page') return restorer.skip(source, `WordPress ${type} items are not imported`);
  if (!wpId) return restorer.skip(source, 'Item without wp:post_id');
  const wpStatus = textOf(el, 'wp:status') || 'publish';
  const status = STATES[wpStatus];
  if (!status) return restorer.skip(source, `Unknown WordPress status ${wpStatus}`);
  const published = timeOf(el, 'wp:post_date_gmt', 'wp:post_date', ':pubDate');
  const modified = timeOf(el, 'wp:post_modified_gmt', 'wp:post_modified');
  const labels = children(el, ':category').map((c) => c.text.trim());
  const authorId = await userFor(textOf(el, 'dc:creator'));
  const link = textOf(el, ':link');
  const keptPath = children(el, 'wp:postmeta').find((m) => textOf(m, 'wp:meta_key') === 'blogcore_path');
  const comments = children(el, 'wp:comment');
  const blogId = restorer.blog!.id;
  const notPublic = textOf(el, 'wp:post_password')
    ? 'password-protected in WordPress'
    : wpStatus === 'private'
      ? 'private in WordPress'
      : undefined;
  const postId = idFor(blogId, 'post', wpId);
  if (type === 'page') {
    for (const c of comments)
      restorer.skip(
        `comment ${textOf(c, 'wp:comment_id')} on ${source}`,
        'Comments on pages are not supported (the Blogger interface has comments on posts only)',
      );
    comments.length = 0;
  }
  const list = commentsOf(restorer, comments, { blogId, postId, wpId, source, published });
  const guid = textOf(el, ':guid');
  await restoreItem(restorer, {
    kind: type,
    key: wpId,
    source,
    title,
    content: rawOf(el, 'content:encoded'),
    labels,
    status,
    // A draft's local date is its creation date; only a set `_gmt` date is the time it is meant to go out.
    published: status === 'DRAFT' ? isoTime(textOf(el, 'wp:post_date_gmt')) : published,
    updated: modified ?? published,
    authorId,
    path: keptPath ? textOf(keptPath, 'wp:meta_value') : undefined,
    // A plain permalink (`/?p=15`, `/?page_id=2`) is a published post's public url on a site without pretty
    // permalinks (links to it must keep working); on a draft or a scheduled post it is only WordPress's preview.
    oldUrl: [
      ...(/^https?:\/\//.test(link) && (status === 'LIVE' || !/[?&]p(age_id)?=\d/.test(link)) ? [link] : []),
      // The guid is the plain permalink (`/?p=15`) old links and feeds readers hold, beside a pretty one.
      ...(status === 'LIVE' && /^https?:\/\/[^\s]*[?&]p(age_id)?=\d+$/.test(guid) && guid !== link ? [guid] : []),
    ],
    readerComments: textOf(el, 'wp:comment_status') === 'closed' ? 'DONT_ALLOW_SHOW_EXISTING' : 'ALLOW',
    notPublic,
    comments: list,
  });
}

/** An item's comments as records; pingbacks, trackbacks and comments without an id, state or date are skipped. */
function commentsOf(
  restorer: Restorer,
  comments: El[],
  on: { blogId: string; postId: string; wpId: string; source: string; published: string | undefined },
): CommentIn[] {
  const { blogId, postId, wpId, source, published } = on;
  const known = new Set(comments.map((c) => textOf(c, 'wp:comment_id')));
  const list: CommentIn[] = [];
  for (const c of comments) {
    const cid = textOf(c, 'wp:comment_id');
    const csource = `comment ${cid || '?'} on ${source}`;
    const kind = textOf(c, 'wp:comment_type');
    if (kind === 'pingback' || kind === 'trackback') {
      restorer.skip(csource, `WordPress ${kind}s are not imported`);
      continue;
    }
    if (!cid) {
      restorer.skip(csource, 'Comment without wp:comment_id');
      continue;
    }
    const approved = textOf(c, 'wp:comment_approved') || '1';
    const meta = children(c, 'wp:commentmeta').find((m) => textOf(m, 'wp:meta_key') === 'blogcore_status');
    const status = meta && textOf(meta, 'wp:meta_value') === 'EMPTIED' ? 'EMPTIED' : APPROVAL[approved];
    if (!status) {
      restorer.skip(csource, `Unknown comment approval ${approved}`);
      continue;
    }
    const when = timeOf(c, 'wp:comment_date_gmt', 'wp:comment_date') ?? published;
    if (!when) {
      restorer.skip(csource, 'Comment without a date');
      continue;
    }
    const parent = textOf(c, 'wp:comment_parent');
    // A parent the file does not hold (deleted in WordPress): the reply stays, at the top of the thread.
    const inReplyTo =
      parent && parent !== '0' && known.has(parent) ? idFor(blogId, 'comment', `${wpId}:${parent}`) : undefined;
    list.push({
      source: csource,
      record: {
        id: idFor(blogId, 'comment', `${wpId}:${cid}`),
        blogId,
        postId,
        status,
        content: rawOf(c, 'wp:comment_content'),
        published: when,
        updated: when,
        ...(inReplyTo ? { inReplyTo } : {}),
        authorName: textOf(c, 'wp:comment_author') || 'Anonymous',
        authorUrl: textOf(c, 'wp:comment_author_url'),
      },
    });
  }
  return list;
}

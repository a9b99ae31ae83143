/**
 * Blogger in: the legacy Atom export (entries typed by `…/blogger/2008/kind#post|page|comment` categories,
 * `app:draft`, `thr:in-reply-to`) and the Takeout export (`blogger:type`, `blogger:status`,
 * `blogger:filename`, `blogger:parent`, `blogger:inReplyTo` in the 2018 namespace). Paths are kept exactly.
 * Comments may come before or after their post and parent: they wait (in memory, bounded by how many do)
 * until the end of the file when what they point at is not stored yet.
 */
import type { CommentRecord } from '../service/store.js';
import type { CommentStatus, PostStatus } from '../schema/schemas.js';
import { authorUser, idFor, isoTime, own } from './keys.js';
import { restoreItem } from './items.js';
import type { CommentIn, Restorer } from './restore.js';
import { child, children, parseError, rawOf, textOf, TOO_LARGE, xmlRecords, type El } from './xml.js';

export { exportBlogger } from './blogger-out.js';

const KIND_SCHEME = /^https?:\/\/schemas\.google\.com\/g\/2005#kind$/;
const KIND_TERM = /^https?:\/\/schemas\.google\.com\/blogger\/2008\/kind#(\w+)$/;
const POST_STATES: Record<string, PostStatus> = {
  LIVE: 'LIVE',
  PUBLISHED: 'LIVE',
  DRAFT: 'DRAFT',
  SCHEDULED: 'SCHEDULED',
  SOFT_TRASHED: 'SOFT_TRASHED',
  TRASHED: 'SOFT_TRASHED',
};
const COMMENT_STATES: Record<string, CommentStatus> = {
  LIVE: 'LIVE',
  PUBLISHED: 'LIVE',
  PENDING: 'PENDING',
  SPAM: 'SPAM',
  EMPTIED: 'EMPTIED',
};

/** The file's own id of an entry: what follows `.post-` / `.page-` in `tag:blogger.com,1999:blog-1.post-2`. */
const keyOf = (id: string) => /\.(?:post|page|comment)-([\w-]+)$/.exec(id.trim())?.[1] ?? id.trim();

function kindOf(el: El): string | undefined {
  const typed = textOf(el, 'blogger:type');
  if (typed) return typed.toLowerCase();
  for (const c of children(el, 'atom:category')) {
    if (KIND_SCHEME.test(c.attrs.scheme ?? '')) return KIND_TERM.exec(c.attrs.term ?? '')?.[1]?.toLowerCase();
  }
  return undefined;
}

const link = (el: El, rel: string) =>
  children(el, 'atom:link').find(
    (l) =>
      (l.attrs.rel ?? 'alternate') === rel && (rel !== 'alternate' || !l.attrs.type || l.attrs.type === 'text/html'),
  )?.attrs.href;

function authorOf(el: El): { name: string; uri: string } | undefined {
  const a = child(el, 'atom:author');
  if (!a) return undefined;
  const name = textOf(a, 'atom:name');
  const uri = textOf(a, 'atom:uri');
  return name || uri ? { name: name || uri, uri } : undefined;
}

interface Waiting {
  postKey: string;
  item: CommentIn;
  parentId?: string;
}

/** One Blogger feed being read: the blog once opened, who wrote what, and comments waiting for their parents. */
class BloggerFeed {
  readonly header = { title: '', url: '' };
  owner: { name: string; uri: string } | undefined;
  blogUrl = '';
  readonly pageKeys = new Set<string>();
  batch: { postKey: string; list: Waiting[] } | undefined;
  readonly waiting: Waiting[] = [];
  readonly keys = new Map<string, string>();

  constructor(readonly restorer: Restorer) {}

  async open(entry?: El): Promise<void> {
    if (this.restorer.blog) return;
    // A Takeout feed may name no address of its own; its entries' links do.
    const alt = entry ? link(entry, 'alternate') : undefined;
    if (!this.header.url && alt && /^https?:\/\//.test(alt)) this.header.url = `${new URL(alt).origin}/`;
    this.blogUrl = this.restorer.blogUrl(this.header.url || undefined);
    const first = this.owner ?? (entry ? authorOf(entry) : undefined);
    await this.restorer.openBlog(
      {
        name: this.header.title || this.blogUrl,
        description: '',
        url: this.blogUrl,
        locale: { language: 'en', country: '', variant: '' },
      },
      first ? authorUser(this.blogUrl, this.keyFor(first), first.name, first.uri) : undefined,
    );
  }

  /** One person shows with their profile uri on some entries and by name alone on others. */
  keyFor(a: { name: string; uri: string }): string {
    if (a.uri && !this.keys.has(a.name)) this.keys.set(own(a.name), own(a.uri));
    return a.uri || this.keys.get(a.name) || a.name;
  }
  async userFor(a: { name: string; uri: string } | undefined): Promise<string> {
    const who = a ?? this.owner;
    if (!who) return this.restorer.blog!.ownerId;
    const u = authorUser(this.blogUrl, this.keyFor(who), who.name, who.uri);
    await this.restorer.user(u);
    if (u.id !== this.restorer.blog!.ownerId) await this.restorer.member(u.id, 'AUTHOR');
    return u.id;
  }

  /** Writes the comments whose post is stored and whose parent is stored or in the same batch; the rest wait. */
  async flush(): Promise<void> {
    if (!this.batch) return;
    const { postKey, list } = this.batch;
    this.batch = undefined;
    const postId = idFor(this.restorer.blog!.id, 'post', postKey);
    const inBatch = new Set(list.map((w) => w.item.record.id));
    const parents = list.filter((w) => w.parentId && !inBatch.has(w.parentId)).map((w) => w.parentId!);
    const stored = new Set(
      (await this.restorer.core.driver.getMany('comments', parents)).filter((d) => d).map((d) => d!.id),
    );
    const now: Waiting[] = [];
    for (const w of list)
      (w.parentId && !inBatch.has(w.parentId) && !stored.has(w.parentId) ? this.waiting : now).push(w);
    if (
      !(await this.restorer.comments(
        postId,
        now.map((w) => w.item),
        true,
      ))
    )
      this.waiting.push(...now);
  }

  async entry(el: El, kind: 'post' | 'page', id: string, title: string, source: string) {
    const key = keyOf(id);
    if (kind === 'page') this.pageKeys.add(own(key));
    const statusText = textOf(el, 'blogger:status').toUpperCase();
    const draft =
      textOf(child(el, 'app:control') ?? { name: '', attrs: {}, children: [], text: '' }, 'app:draft') === 'yes';
    const status = statusText ? POST_STATES[statusText] : draft ? 'DRAFT' : 'LIVE';
    if (!status) return this.restorer.skip(source, `Unknown Blogger status ${statusText}`);
    const alternate = link(el, 'alternate');
    const filename = textOf(el, 'blogger:filename');
    let path = filename || undefined;
    if (!path && alternate) {
      try {
        path = new URL(alternate).pathname;
        // A blog at a path (`http://host/some/blog/`): its posts' paths are what follows it (the url repeats none of it).
        const base = new URL(this.blogUrl).pathname.replace(/\/$/, '');
        if (base && path.startsWith(`${base}/`)) path = path.slice(base.length);
      } catch {
        path = undefined;
      }
    }
    const labels = children(el, 'atom:category')
      .filter((c) => !KIND_SCHEME.test(c.attrs.scheme ?? ''))
      .map((c) => c.attrs.term ?? '');
    const published = isoTime(textOf(el, 'atom:published'));
    await restoreItem(this.restorer, {
      kind,
      key,
      source,
      title,
      content: rawOf(el, 'atom:content'),
      labels,
      status,
      published,
      updated: isoTime(textOf(el, 'atom:updated')) ?? published,
      path: path && path !== '/' ? path : undefined,
      authorId: await this.userFor(authorOf(el)),
      oldUrl: alternate ?? (filename ? this.blogUrl.replace(/\/$/, '') + filename : undefined),
    });
  }

  async comment(el: El, id: string, source: string) {
    const reply = child(el, 'thr:in-reply-to');
    const postRef = textOf(el, 'blogger:parent') || reply?.attrs.ref || '';
    if (!postRef) return this.restorer.skip(source, 'Comment that names no post');
    const postKey = keyOf(postRef);
    if (this.pageKeys.has(postKey) || /\.page-/.test(postRef))
      return this.restorer.skip(
        source,
        'Comments on pages are not supported (the Blogger interface has comments on posts only)',
      );
    const statusText = textOf(el, 'blogger:status').toUpperCase();
    const status = statusText ? COMMENT_STATES[statusText] : 'LIVE';
    if (!status) return this.restorer.skip(source, `Comment status ${statusText} is not imported`);
    const published = isoTime(textOf(el, 'atom:published')) ?? isoTime(textOf(el, 'atom:updated'));
    if (!published) return this.restorer.skip(source, 'Comment without a date');
    // The comment it answers: Takeout's blogger:inReplyTo, or the legacy `related` link to it.
    const parentRef =
      textOf(el, 'blogger:inReplyTo') || /\/comments\/default\/([\w-]+)$/.exec(link(el, 'related') ?? '')?.[1] || '';
    const blogId = this.restorer.blog!.id;
    const a = authorOf(el);
    const parentId = parentRef ? idFor(blogId, 'comment', keyOf(parentRef)) : undefined;
    const record: CommentRecord = {
      id: idFor(blogId, 'comment', keyOf(id)),
      blogId,
      postId: idFor(blogId, 'post', postKey),
      status,
      content: rawOf(el, 'atom:content'),
      published,
      updated: isoTime(textOf(el, 'atom:updated')) ?? published,
      ...(parentId ? { inReplyTo: parentId } : {}),
      authorName: a?.name || 'Anonymous',
      ...(a?.uri ? { authorUrl: a.uri } : {}),
    };
    if (this.batch && (this.batch.postKey !== postKey || this.batch.list.length >= 200)) await this.flush();
    this.batch ??= { postKey, list: [] };
    this.batch.list.push({ postKey, item: { record, source }, ...(parentId ? { parentId } : {}) });
  }
}

export async function importBlogger(restorer: Restorer, chunks: AsyncIterable<string>): Promise<void> {
  const feed = new BloggerFeed(restorer);
  let seenRoot = false;
  for await (const el of xmlRecords(chunks)) {
    if ('root' in el) {
      if (el.root !== 'atom:feed')
        throw parseError(
          `Not a Blogger export: the root element is <${el.root.replace(/^:/, '')}>, not an Atom <feed>`,
        );
      seenRoot = true;
      continue;
    }
    if (el.name === 'atom:title') feed.header.title = el.text.trim();
    else if (
      el.name === 'atom:link' &&
      (el.attrs.rel ?? 'alternate') === 'alternate' &&
      (!el.attrs.type || el.attrs.type === 'text/html')
    )
      feed.header.url ||= el.attrs.href ?? '';
    else if (el.name === 'atom:author') feed.owner ??= authorOf({ ...el, children: [el] });
    if (el.name !== 'atom:entry') continue;
    const kind = kindOf(el);
    const id = textOf(el, 'atom:id');
    const title = textOf(el, 'atom:title');
    const source = `${kind ?? 'entry'} ${id || '?'}${title ? ` "${title.slice(0, 60)}"` : ''}`;
    // Settings and the template are Blogger's own configuration, not content.
    if (kind === 'settings' || kind === 'template' || kind === 'layout') continue;
    if ((el as El & { [TOO_LARGE]?: true })[TOO_LARGE]) {
      restorer.skip(source, 'Entry larger than the import accepts');
      continue;
    }
    if (!id) {
      restorer.skip(source, 'Entry without an id');
      continue;
    }
    await feed.open(el);
    if (kind === 'post' || kind === 'page') await feed.entry(el, kind, id, title, source);
    else if (kind === 'comment') await feed.comment(el, id, source);
    else restorer.skip(source, kind ? `Blogger ${kind} entries are not imported` : 'Entry of no known kind');
  }
  if (!seenRoot) throw parseError('Not a Blogger export: empty');
  await feed.open();
  await feed.flush();
  // What waited: posts are all stored now; a parent still missing is left out and the reply kept.
  feed.waiting.sort((a, b) => (a.item.record.published < b.item.record.published ? -1 : 1));
  for (const w of feed.waiting) {
    if (w.parentId && !(await restorer.core.get('comments', w.parentId))) delete w.item.record.inReplyTo;
    await restorer.comments(idFor(restorer.blog!.id, 'post', w.postKey), [w.item]);
  }
}

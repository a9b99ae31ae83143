/**
 * Ghost's JSON export in: posts and pages (`type`, or `page: true` in old exports), statuses, tags as labels,
 * authors as users (the Owner, else the first user, owns the blog). A Ghost file names no address: the
 * caller's `blogUrl` is required. Ghost keeps the relations (posts_tags, posts_authors) apart from the posts,
 * so this file is read whole.
 */
import { BlogError } from '../util/errors.js';
import type { PostStatus } from '../schema/schemas.js';
import { authorUser, isoTime } from './keys.js';
import { restoreItem } from './items.js';
import type { Restorer } from './restore.js';

type Row = Record<string, unknown>;
const STATES: Record<string, PostStatus> = { published: 'LIVE', draft: 'DRAFT', scheduled: 'SCHEDULED', sent: 'DRAFT' };

const s = (x: unknown) => (typeof x === 'string' ? x : typeof x === 'number' ? String(x) : '');
const rows = (x: unknown): Row[] => (Array.isArray(x) ? x.filter((r): r is Row => !!r && typeof r === 'object') : []);
const time = (x: unknown) => (typeof x === 'number' ? new Date(x).toISOString() : isoTime(s(x)));
const escapeHtml = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export async function importGhost(restorer: Restorer, chunks: AsyncIterable<string>): Promise<void> {
  let text = '';
  for await (const c of chunks) text += c;
  const data = ghostData(text);
  const blogUrl = restorer.blogUrl(undefined);
  const settings = Object.fromEntries(rows(data.settings).map((r) => [s(r.key), s(r.value)]));
  const users = new Map(rows(data.users).map((u) => [s(u.id), u]));
  const ownerRole = rows(data.roles).find((r) => r.name === 'Owner');
  const ownerId = ownerRole ? s(rows(data.roles_users).find((r) => s(r.role_id) === s(ownerRole.id))?.user_id) : '';
  const owner = users.get(ownerId) ?? rows(data.users)[0];
  const userOf = (u: Row) =>
    authorUser(blogUrl, s(u.slug) || s(u.id), s(u.name) || s(u.slug), s(u.website) || undefined);
  const blog = await restorer.openBlog(
    {
      name: settings.title || blogUrl,
      description: settings.description ?? '',
      url: blogUrl,
      locale: { language: (settings.locale || settings.lang || 'en').split('-')[0]!, country: '', variant: '' },
    },
    owner ? userOf(owner) : undefined,
  );
  const { labels, authors } = relations(data);

  for (const p of rows(data.posts)) {
    const id = s(p.id);
    const title = s(p.title);
    const source = `post ${id || '?'}${title ? ` "${title.slice(0, 60)}"` : ''}`;
    if (!id) {
      restorer.skip(source, 'Post without an id');
      continue;
    }
    const status = STATES[s(p.status)];
    if (!status) {
      restorer.skip(source, `Unknown Ghost status ${s(p.status)}`);
      continue;
    }
    const kind = p.type === 'page' || p.page === true || p.page === 1 ? 'page' : 'post';
    const author = users.get(authors.get(id) ?? s(p.author_id)) ?? owner;
    let authorId = blog.ownerId;
    if (author) {
      const u = userOf(author);
      await restorer.user(u);
      if (u.id !== blog.ownerId) await restorer.member(u.id, 'AUTHOR');
      authorId = u.id;
    }
    const slug = s(p.slug);
    const html =
      typeof p.html === 'string' ? p.html : typeof p.plaintext === 'string' ? `<p>${escapeHtml(p.plaintext)}</p>` : '';
    const published = time(p.published_at);
    // Members-only, paid or tier posts (any visibility but public) and newsletters sent by email only.
    const visibility = s(p.visibility) || 'public';
    const notPublic =
      visibility !== 'public'
        ? `visible to ${visibility} only in Ghost`
        : s(p.status) === 'sent'
          ? 'sent by email only in Ghost'
          : undefined;
    await restoreItem(restorer, {
      kind,
      key: id,
      source,
      title,
      content: html,
      labels: labels.get(id) ?? [],
      status,
      published: status === 'DRAFT' ? undefined : published,
      updated: time(p.updated_at) ?? time(p.created_at) ?? published,
      authorId,
      oldUrl: slug && status === 'LIVE' && !notPublic ? `${blogUrl}${encodeURIComponent(slug)}/` : undefined,
      notPublic,
    });
  }
}

/** The `data` of a Ghost export (`db[0].data`, or `data` at the top in some), or a 400 naming what is wrong. */
function ghostData(text: string): Row {
  let doc: Row;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, '')) as Row;
  } catch (e) {
    throw new BlogError({
      code: 400,
      reason: 'parseError',
      message: `Ghost export: not valid JSON (${(e as Error).message})`,
      location: 'source',
      locationType: 'body',
    });
  }
  const db = rows((doc as { db?: unknown }).db)[0] ?? doc;
  const data = (db as { data?: unknown }).data as Row | undefined;
  if (!data || typeof data !== 'object' || !Array.isArray(data.posts)) {
    throw new BlogError({
      code: 400,
      reason: 'parseError',
      message: 'Not a Ghost export: no db[0].data.posts',
      location: 'source',
      locationType: 'body',
    });
  }
  return data;
}

/** What Ghost keeps apart from its posts: each post's labels (its tags but #internal ones) and its first author. */
function relations(data: Row) {
  const tags = new Map(rows(data.tags).map((t) => [s(t.id), s(t.name)]));
  const labels = new Map<string, string[]>();
  for (const pt of rows(data.posts_tags)) {
    const name = tags.get(s(pt.tag_id));
    if (!name || name.startsWith('#')) continue; // #internal tags are Ghost's own, never shown
    const list = labels.get(s(pt.post_id)) ?? [];
    list.push(name);
    labels.set(s(pt.post_id), list);
  }
  const authors = new Map<string, string>();
  for (const pa of rows(data.posts_authors))
    if (!authors.has(s(pa.post_id))) authors.set(s(pa.post_id), s(pa.author_id));
  return { labels, authors };
}

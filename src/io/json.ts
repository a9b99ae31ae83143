/** `blogcore-json` in (the layout is described in json-out.ts). */
import { BlogError } from '../util/errors.js';
import type {
  Core,
  BlogRecord,
  CommentRecord,
  MediaRecord,
  MemberRecord,
  PageRecord,
  PostRecord,
  UserRecord,
} from '../service/store.js';
import { mediaParams } from '../schema/media.js';
import { blogAdminParams } from '../schema/blog-admin.js';
import {
  COMMENT_STATUSES,
  LIMITS,
  PAGE_STATUSES,
  params,
  POST_STATUSES,
  READER_COMMENTS,
  ROLES,
} from '../schema/schemas.js';
import { cleanLabels, isoTime } from './keys.js';
import type { CommentIn, Restorer } from './restore.js';
import { HEAD, type Line } from './json-out.js';
import { fromBase64 } from '../util/base64.js';

const str = (x: unknown): x is string => typeof x === 'string';
const optStr = (x: unknown) => x === undefined || typeof x === 'string';
/** The ids the service itself accepts (users.insert's rule); ULIDs and imported ids fit. */
const ID = /^[\w.@:-]{1,200}$/;

async function* lines(chunks: AsyncIterable<string>): AsyncGenerator<string> {
  let buffer = '';
  for await (const chunk of chunks) {
    buffer += chunk;
    let nl = buffer.indexOf('\n');
    while (nl >= 0) {
      yield buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      nl = buffer.indexOf('\n');
    }
  }
  if (buffer) yield buffer;
}

const badFile = (message: string) =>
  new BlogError({ code: 400, reason: 'parseError', message, location: 'source', locationType: 'body' });

/** The records of the file, as the streaming layout has them, or (for a reformatted file) from the whole text. */
async function* records(
  chunks: AsyncIterable<string>,
): AsyncGenerator<{ blog: BlogRecord } | { line: unknown; n: number }> {
  const it = lines(chunks)[Symbol.asyncIterator]();
  const first = await it.next();
  const head = first.done ? '' : first.value.trim();
  if (head.startsWith(HEAD) && head.endsWith('"records":[')) {
    let blog: unknown;
    try {
      blog = (JSON.parse(`${head}]}`) as { blog: unknown }).blog;
    } catch {
      throw badFile('blogcore-json: the first line is not the file header');
    }
    yield { blog: blog as BlogRecord };
    let n = 1;
    let closed = false;
    for (let next = await it.next(); !next.done; next = await it.next()) {
      n++;
      const text = next.value.trim().replace(/,$/, '');
      if (!text) continue;
      if (text === ']}') {
        closed = true;
        continue;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined; // one bad line is skipped; a cut last line shows as the missing "]}" below
      }
      yield { line: parsed, n };
    }
    if (!closed) throw badFile('blogcore-json: the file is truncated (no closing "]}")');
    return;
  }
  // Not the streaming layout: read it whole.
  let text = first.done ? '' : `${first.value}\n`;
  for (let next = await it.next(); !next.done; next = await it.next()) text += `${next.value}\n`;
  let doc: { format?: unknown; blog?: unknown; records?: unknown };
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw badFile(`blogcore-json: not valid JSON (${(e as Error).message})`);
  }
  if (doc?.format !== 'blogcore-json' || !Array.isArray(doc.records))
    throw badFile('Not a blogcore-json file: no "format":"blogcore-json" header with "records"');
  yield { blog: doc.blog as BlogRecord };
  let n = 0;
  for (const line of doc.records) yield { line, n: ++n };
}

function checkBlog(b: unknown): BlogRecord {
  const r = b as BlogRecord;
  if (!r || !str(r.id) || !ID.test(r.id) || !str(r.name) || !str(r.url) || !str(r.ownerId))
    throw badFile('blogcore-json: the header has no valid blog record');
  if (r.customMetaData !== undefined && !(str(r.customMetaData) && r.customMetaData.length <= LIMITS.text))
    throw badFile(`blogcore-json: the blog's customMetaData must be a string of at most ${LIMITS.text} characters`);
  return r;
}

/** Only the fields a record of this kind has: a key the file adds (`__proto__`, `constructor`, …) is never stored. */
function pick<T>(r: Record<string, unknown>, keys: readonly (keyof T & string)[]): T {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (Object.hasOwn(r, k) && r[k] !== undefined) out[k] = r[k];
  return out as T;
}

const AUTHORED = [
  'id',
  'authorId',
  'title',
  'content',
  'published',
  'updated',
  'trashed',
  'path',
  'rev',
  'status',
] as const;
const POST_KEYS = [
  ...AUTHORED,
  'labels',
  'titleLink',
  'customMetaData',
  'location',
  'readerComments',
] as const satisfies readonly (keyof PostRecord)[];
const PAGE_KEYS = AUTHORED satisfies readonly (keyof PageRecord)[];
const COMMENT_KEYS = [
  'id',
  'postId',
  'status',
  'content',
  'published',
  'updated',
  'inReplyTo',
  'authorId',
  'authorName',
  'authorUrl',
] as const satisfies readonly (keyof CommentRecord)[];
const MEDIA_KEYS = [
  'id',
  'sha256',
  'authorId',
  'filename',
  'alt',
  'published',
  'updated',
  'rev',
  'source',
] as const satisfies readonly (keyof MediaRecord)[];

/** Why `check` refused its input (a BlogError's message), or undefined when it passed. */
function checked(check: () => unknown): string | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    if (!BlogError.is(error)) throw error;
    return error.message;
  }
}

/** A post or page line, checked as `posts.update` / `pages.update` check their bodies. */
function contentRecordOf(core: Core, type: 'post' | 'page', r: Record<string, unknown>): Line | string {
  const states: readonly unknown[] = type === 'post' ? POST_STATUSES : PAGE_STATUSES;
  if (!states.includes(r.status)) return `unknown ${type} status ${String(r.status)}`;
  if (!str(r.title) || !str(r.content) || !str(r.authorId) || !isoTime(r.updated as string))
    return `${type} without title, content, authorId or updated`;
  if (r.path !== undefined && !(str(r.path) && r.path.startsWith('/'))) return `${type} path must start with /`;
  if (type === 'page') {
    const page = pick<PageRecord>(r, PAGE_KEYS);
    return (
      checked(() =>
        core.parse(params.pagesUpdate, {
          blogId: 'b',
          pageId: page.id,
          body: { title: page.title, content: page.content },
        }),
      ) ?? {
        type: 'page',
        record: page,
      }
    );
  }
  if (!(Array.isArray(r.labels) && r.labels.every(str))) return 'post labels must be strings';
  const post = pick<PostRecord>(r, POST_KEYS);
  const { title, content, titleLink, customMetaData, location } = post;
  const body = {
    title,
    content,
    titleLink,
    customMetaData,
    location,
    readerComments: post.readerComments ?? 'ALLOW',
  };
  return (
    checked(() => core.parse(params.postsUpdate, { blogId: 'b', postId: post.id, body })) ?? {
      type: 'post',
      record: post,
    }
  );
}

/**
 * One line of the file as a record, checked like any other input: the fields of its kind only, each value
 * through the service's own schema for it (a post's fields as `posts.update` checks them); else why it is skipped.
 */
function recordOf(core: Core, l: Line): Line | string {
  if (l.type === 'bytes') return str(l.data) ? l : 'bytes without data';
  const r = l.record as unknown as Record<string, unknown>;
  if (!r || typeof r !== 'object' || !str(r.id) || !r.id) return 'record without an id';
  if (!ID.test(r.id)) return 'record id with characters other than letters, digits and . _ @ : -';
  switch (l.type) {
    case 'user': {
      const u = pick<UserRecord>(r, ['id', 'displayName', 'url', 'about', 'created']);
      if (!str(u.displayName)) return 'user without a displayName';
      // (An empty or over-long name is mended as the user is created: the id stands in, the rest is cut.)
      const bad = checked(() =>
        core.parse(blogAdminParams.usersUpdate, { userId: u.id, body: { url: u.url, about: u.about } }),
      );
      return bad ?? { type: 'user', record: { ...u, created: isoTime(u.created) ?? '' } };
    }
    case 'member':
      return str(r.userId) && ID.test(r.userId) && (ROLES as readonly unknown[]).includes(r.role)
        ? { type: 'member', record: pick<MemberRecord>(r, ['id', 'userId', 'role']) }
        : 'member without userId and role';
    case 'post':
    case 'page':
      return contentRecordOf(core, l.type, r);
    case 'comment': {
      if (!(COMMENT_STATUSES as readonly unknown[]).includes(r.status))
        return `unknown comment status ${String(r.status)}`;
      if (!(str(r.postId) && str(r.content) && isoTime(r.published as string)))
        return 'comment without postId, content or published';
      const c = pick<CommentRecord>(r, COMMENT_KEYS);
      for (const k of ['inReplyTo', 'authorId', 'authorName', 'authorUrl'] as const)
        if (c[k] !== undefined && !str(c[k])) return `comment ${k} must be a string`;
      return { type: 'comment', record: c };
    }
    case 'media': {
      if (!(str(r.sha256) && /^[0-9a-f]{64}$/.test(r.sha256))) return 'media without a sha256';
      if (
        !(str(r.authorId) && optStr(r.filename) && optStr(r.alt) && optStr(r.source) && isoTime(r.published as string))
      )
        return 'media without authorId or published';
      const m = pick<Omit<MediaRecord, 'blob'>>(r, MEDIA_KEYS);
      return (
        checked(() =>
          core.parse(mediaParams.mediaPatch, {
            blogId: 'b',
            mediaId: m.sha256,
            body: { alt: m.alt, filename: m.filename },
          }),
        ) ?? {
          type: 'media',
          record: m,
        }
      );
    }
    default:
      return `unknown record type ${String((l as { type: unknown }).type)}`;
  }
}

/** The blog of the file's header, opened with its owner (when the file names them). */
function openBlogOf(restorer: Restorer, b: BlogRecord, users: Map<string, UserRecord>) {
  return restorer.openBlog(
    {
      id: b.id,
      name: b.name,
      description: str(b.description) ? b.description : '',
      url: restorer.blogUrl(b.url),
      locale:
        b.locale && typeof b.locale === 'object'
          ? {
              language: String(b.locale.language ?? 'en'),
              country: String(b.locale.country ?? ''),
              variant: String(b.locale.variant ?? ''),
            }
          : { language: 'en', country: '', variant: '' },
      ...(str(b.customMetaData) ? { customMetaData: b.customMetaData } : {}),
      ...(isoTime(b.published) ? { published: isoTime(b.published)! } : {}),
      ...(isoTime(b.updated) ? { updated: isoTime(b.updated)! } : {}),
    },
    users.get(b.ownerId),
  );
}

export async function importJson(restorer: Restorer, chunks: AsyncIterable<string>): Promise<void> {
  let fileBlog: BlogRecord | undefined;
  const users = new Map<string, UserRecord>();
  let pending: { postId: string; list: CommentIn[] } | undefined;
  const flush = async () => {
    if (pending) await restorer.comments(pending.postId, pending.list);
    pending = undefined;
  };
  const open = async () => restorer.blog ?? openBlogOf(restorer, fileBlog!, users);
  const items = records(chunks)[Symbol.asyncIterator]();
  /** A line read past a picture's bytes, handed back to the loop. */
  let back: Awaited<ReturnType<typeof items.next>> | undefined;
  const next = async () => {
    const n = back ?? (await items.next());
    back = undefined;
    return n;
  };
  /** The `bytes` lines that follow a media line, decoded as they are read. */
  async function* bytesLines(): AsyncGenerator<Uint8Array> {
    for (;;) {
      const n = await next();
      const l = !n.done && 'line' in n.value ? (n.value.line as Line | undefined) : undefined;
      if (l?.type !== 'bytes' || !str(l.data)) {
        back = n;
        return;
      }
      yield fromBase64(l.data);
    }
  }
  for (let n = await next(); !n.done; n = await next()) {
    const item = n.value;
    if ('blog' in item) {
      fileBlog = checkBlog(item.blog);
      continue;
    }
    const line = item.line as Line;
    const l = line && typeof line === 'object' ? recordOf(restorer.core, line) : 'not a JSON record';
    if (typeof l === 'string') {
      restorer.skip(`line ${item.n}`, l);
      continue;
    }
    // A picture's bytes that its media line did not take (the picture was there already, or refused).
    if (l.type === 'bytes') continue;
    const source = `${l.type} ${l.record.id}`;
    if (l.type === 'user') {
      users.set(l.record.id, l.record);
      // Users are created as they are needed (the owner with the blog, authors with their posts).
      continue;
    }
    const blog = await open();
    const authorOf = async (id: string | undefined) => {
      const u = id ? users.get(id) : undefined;
      if (u) await restorer.user(u);
    };
    if (l.type === 'member') {
      await authorOf(l.record.userId);
      await restorer.member(l.record.userId, l.record.role);
      continue;
    }
    if (l.type === 'media') {
      await flush();
      await authorOf(l.record.authorId);
      await restorer.media(l.record, bytesLines(), source);
      continue;
    }
    if (l.type === 'comment') {
      if (pending?.postId !== l.record.postId || pending.list.length >= 500) await flush();
      await authorOf(l.record.authorId);
      pending ??= { postId: l.record.postId, list: [] };
      pending.list.push({
        record: {
          ...l.record,
          blogId: blog.id,
          published: isoTime(l.record.published)!,
          updated: isoTime(l.record.updated) ?? isoTime(l.record.published)!,
        },
        source,
      });
      continue;
    }
    await flush();
    await authorOf(l.record.authorId);
    await restoreContent(restorer, blog.id, l, source);
  }
  await flush();
  if (!fileBlog) throw badFile('Not a blogcore-json file: no header');
  await open();
}

/** A post or page line stored: its times read as the file gives them, a post's labels and comment setting checked. */
async function restoreContent(
  restorer: Restorer,
  blogId: string,
  l: Extract<Line, { type: 'post' | 'page' }>,
  source: string,
): Promise<void> {
  const times = {
    updated: isoTime(l.record.updated)!,
    ...(isoTime(l.record.published) ? { published: isoTime(l.record.published)! } : { published: undefined }),
    ...(isoTime(l.record.trashed) ? { trashed: isoTime(l.record.trashed)! } : { trashed: undefined }),
    rev: Number.isInteger(l.record.rev) && l.record.rev > 0 ? l.record.rev : 1,
  };
  if (l.type === 'post') {
    const p = l.record;
    await restorer.post(
      {
        ...p,
        ...times,
        blogId,
        labels: cleanLabels(p.labels),
        readerComments: (READER_COMMENTS as readonly string[]).includes(p.readerComments) ? p.readerComments : 'ALLOW',
        liveComments: 0,
        allComments: 0,
      },
      source,
    );
  } else {
    await restorer.page({ ...l.record, ...times, blogId }, source);
  }
}

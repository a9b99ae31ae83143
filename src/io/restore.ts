/**
 * The one way records enter the store with the ids, times and states a file gives them. Records are built
 * as the core's own (`records.ts` computes every key and token) and written with compare-and-set commits
 * that expect them absent: a record already there is left alone and counted `unchanged`, so running the same
 * import twice, or again after an interruption, completes it without duplicates. A post's comment counters
 * move in the same commit as its comments, so they never drift.
 */
import {
  type Core,
  DriverConflict,
  commentVisOf,
  memberId,
  put,
  type BlogRecord,
  type CommentRecord,
  type MemberRecord,
  type PageRecord,
  type PostRecord,
  type UserRecord,
  type MediaRecord,
  mediaId,
  normalizeBlogUrl,
  withPath,
  publicUrl,
  labelCounterOps,
} from '../service/store.js';
import { BlogError } from '../util/errors.js';
import { storeMedia } from '../media/service.js';
import { storedPathProblem } from '../rules/paths.js';
import { sanitizeCommentHtml } from '../rules/sanitize.js';
import { isHttpUrl, LIMITS, type Role } from '../schema/schemas.js';
import { internalsOf } from '../service/internals.js';
import type { BlogService } from '../service/types.js';
import { isoTime, own } from './keys.js';
import type { ImportFormat, ImportOptions, ImportReport } from './types.js';

/** An item's addresses in the old blog (a pretty permalink and WordPress's `?p=N`, say). */
type OldUrls = string | readonly string[];

export function coreOf(service: BlogService): Core {
  const internals = service ? internalsOf(service) : undefined;
  if (internals?.actor.kind !== 'host') {
    throw new BlogError({
      code: 403,
      reason: 'forbidden',
      message: 'Import and export need the host service itself, not one scoped with as()',
    });
  }
  return internals.core;
}

const invalidOption = (location: string, message: string) =>
  new BlogError({ code: 400, reason: 'invalid', message, location, locationType: 'parameter' });

// ---------------------------------------------------------------- the restorer

export interface CommentIn {
  record: CommentRecord;
  source: string;
}

export class Restorer {
  readonly report: ImportReport;
  blog: BlogRecord | undefined;
  private items = 0;
  private pictures = 0;
  /** WordPress attachments (their url and how the skip list names them), downloaded after the records with `media: true`. */
  readonly attachments: Array<{ url: string; source: string }> = [];
  private knownUsers = new Set<string>();
  /**
   * Post and page ids this run wrote or found: a second record of the file with one of them is a duplicate.
   * (Comments, the bulk of a file, are checked within their post, so this stays a small part of memory.)
   */
  private seen = new Set<string>();

  constructor(
    readonly core: Core,
    format: ImportFormat,
    private readonly options: ImportOptions,
    private readonly counter: { bytes: number },
  ) {
    this.report = {
      blogId: '',
      format,
      created: { posts: 0, pages: 0, comments: 0, users: 0, media: 0 },
      unchanged: { posts: 0, pages: 0, comments: 0, media: 0 },
      skipped: [],
      drafted: [],
      redirects: [],
    };
  }

  /** An item the source keeps from the public, imported as a DRAFT (reported on every run, as skips are). */
  drafted(source: string, reason: string): void {
    this.report.drafted.push({ source: own(source), reason: own(reason) });
  }

  skip(source: string, reason: string): void {
    this.report.skipped.push({ source: own(source), reason: own(reason) });
    this.tick();
  }

  /** Whether pictures are downloaded too (`media: true`). */
  get withMedia(): boolean {
    return this.options.media === true;
  }

  private tick(): void {
    this.items++;
    if (this.options.onProgress && this.items % 50 === 0) this.progress();
  }

  /** One more picture stored (or found stored). */
  picture(): void {
    this.pictures++;
    this.progress();
  }

  private progress(): void {
    this.options.onProgress?.({ items: this.items, bytes: this.counter.bytes, media: this.pictures });
  }

  finish(): ImportReport {
    this.progress();
    return this.report;
  }

  /** The blog's url: the caller's, else the file's. */
  blogUrl(fromFile: string | undefined): string {
    const url = this.options.blogUrl ?? fromFile;
    if (!url)
      throw invalidOption(
        'blogUrl',
        "This file does not name its blog's address: give the blog's url (blogUrl, or --blog on the command line)",
      );
    try {
      const u = normalizeBlogUrl(url);
      if (!/^https?:/.test(u)) throw new Error('scheme');
      return u;
    } catch {
      throw invalidOption('blogUrl', `Not an absolute http(s) URL: ${url}`);
    }
  }

  /** Creates the user unless a user with that id exists. */
  async user(u: UserRecord): Promise<void> {
    if (this.knownUsers.has(u.id)) return;
    const record: UserRecord = {
      ...u,
      created: u.created || this.core.nowIso(),
      displayName: (u.displayName.trim() || u.id).slice(0, LIMITS.displayName),
    };
    try {
      if (!(await this.core.get('users', u.id))) {
        await this.core.commit([put('users', record, 0)]);
        this.report.created.users++;
      }
    } catch (error) {
      if (!DriverConflict.is(error)) throw error;
    }
    this.knownUsers.add(u.id);
  }

  /**
   * The blog the records go to: the one already at the url (a second run, or a blog the host made), else a new
   * one owned by `ownerId` or by the file's first author.
   */
  async openBlog(
    b: Omit<BlogRecord, 'ownerId' | 'id' | 'published' | 'updated'> & Partial<BlogRecord>,
    fileOwner: UserRecord | undefined,
  ): Promise<BlogRecord> {
    await this.core.ready();
    const existing = await this.core.driver.getByIndex('blogs', 'url', [b.url.toLowerCase()]);
    if (existing) return this.use(existing.doc);
    let ownerId = this.options.ownerId;
    if (ownerId !== undefined) {
      if (!(await this.core.user(ownerId)))
        throw invalidOption('ownerId', `No user ${ownerId}: create it with users.insert first`);
    } else if (fileOwner) {
      await this.user(fileOwner);
      ownerId = fileOwner.id;
    } else {
      throw invalidOption(
        'ownerId',
        "The file declares no author to own the blog: give the owner's user id (ownerId, or --owner on the command line)",
      );
    }
    const now = this.core.nowIso();
    const record: BlogRecord = {
      ...b,
      id: b.id ?? this.core.newId(),
      name: (b.name.trim() || b.url).slice(0, LIMITS.blogName),
      description: b.description.slice(0, LIMITS.description),
      ownerId,
      published: b.published ?? now,
      updated: b.updated ?? now,
    };
    try {
      await this.core.commit([
        put('blogs', record, 0),
        put('members', { id: memberId(record.id, ownerId), blogId: record.id, userId: ownerId, role: 'ADMIN' }, 0),
      ]);
    } catch (error) {
      if (!DriverConflict.is(error)) throw error;
      const raced = await this.core.driver.getByIndex('blogs', 'url', [b.url.toLowerCase()]);
      if (raced) return this.use(raced.doc);
      throw new BlogError({ code: 409, reason: 'conflict', message: `Blog id ${record.id} is taken by another blog` });
    }
    return this.use(record);
  }

  private use(blog: BlogRecord): BlogRecord {
    this.blog = blog;
    this.report.blogId = blog.id;
    return blog;
  }

  /** Gives a user a role in the blog unless they have one. */
  async member(userId: string, role: Role): Promise<void> {
    const blogId = this.blog!.id;
    const id = memberId(blogId, userId);
    if (await this.core.get('members', id)) return;
    const record: MemberRecord = { id, blogId, userId, role };
    await this.core.commit([put('members', record, 0)]).catch((e) => {
      if (!DriverConflict.is(e)) throw e;
    });
  }

  private check(r: PostRecord | PageRecord, source: string, noun: string): string | undefined {
    if (r.title.length > LIMITS.title) return `${noun} title longer than ${LIMITS.title} characters`;
    if (r.content.length > LIMITS.content) return `${noun} content longer than ${LIMITS.content} characters`;
    if (r.blogId !== this.blog!.id) return `${noun} of another blog`;
    void source;
    return undefined;
  }

  /**
   * A picture of a blogcore-json file with its bytes: stored as the file has it (author, time, name, alt),
   * its bytes checked against its id. One the blog has is `unchanged` (its bytes are not read).
   */
  async media(r: Omit<MediaRecord, 'blob'>, bytes: AsyncIterable<Uint8Array>, source: string): Promise<void> {
    const blogId = this.blog!.id;
    if (await this.core.get('media', mediaId(blogId, r.sha256))) {
      this.report.unchanged.media++;
      return this.picture();
    }
    try {
      const { fresh } = await storeMedia(this.core, {
        blogId,
        body: bytes,
        authorId: r.authorId,
        filename: r.filename,
        alt: r.alt,
        published: isoTime(r.published),
        updated: isoTime(r.updated),
        rev: Number.isSafeInteger(r.rev) && r.rev > 0 ? r.rev : 1,
        source: r.source,
        sha256: r.sha256,
      });
      if (fresh) this.report.created.media++;
      else this.report.unchanged.media++;
      this.picture();
    } catch (error) {
      if (!BlogError.is(error)) throw error;
      this.skip(source, error.message);
    }
  }

  /** A post, with its comments in the same commit when it is new (the common case: one write per post). */
  async post(r: PostRecord, source: string, oldUrl?: OldUrls, comments: readonly CommentIn[] = []): Promise<void> {
    const done = await this.content('posts', r, source, oldUrl, comments);
    if (done !== 'with comments') await this.comments(r.id, comments);
  }

  async page(r: PageRecord, source: string, oldUrl?: OldUrls): Promise<void> {
    await this.content('pages', r, source, oldUrl, []);
  }

  /** Writes a new post or page, with the comments given when it can; says what it wrote. */
  private async content(
    collection: 'posts' | 'pages',
    r: PostRecord | PageRecord,
    source: string,
    oldUrl: OldUrls | undefined,
    comments: readonly CommentIn[],
  ): Promise<'with comments' | 'alone' | 'nothing'> {
    const kind = collection === 'posts' ? 'post' : 'page';
    const noun = collection === 'posts' ? 'Post' : 'Page';
    const bad = this.check(r, source, noun);
    const skipped = (reason: string) => {
      this.skip(source, reason);
      return 'nothing' as const;
    };
    if (bad) return skipped(bad);
    if (this.seen.has(r.id)) return skipped(`Duplicate ${kind} id in the file`);
    this.seen.add(r.id);
    const there = await this.core.get(collection, r.id);
    if (there) {
      if (there.doc.blogId !== r.blogId) return skipped(`${noun} id ${r.id} belongs to another blog`);
      this.report.unchanged[collection]++;
      this.redirect(oldUrl, there.doc.path);
      this.tick();
      return 'nothing';
    }
    let ready = this.prepare(comments);
    let handled = true;
    let live = 0;
    for (const item of ready) if (item.record.status === 'LIVE') live++;
    // Comments are filed under their post's visibility class, which the post records once it has any.
    const vis = collection === 'posts' ? commentVisOf(r as PostRecord) : undefined;
    let record = (
      collection === 'posts'
        ? { ...r, liveComments: live, allComments: ready.length, commentsVis: ready.length ? vis : undefined }
        : r
    ) as typeof r;
    // A path no site or folder can hold (`..%2f`, a NUL, a 300-byte name) is never stored: the record gets a
    // path of its own, and its old address, when the file gives one, redirects there.
    if (record.path && storedPathProblem(record.path)) record = { ...record, path: undefined } as typeof record;
    for (let attempt = 0; ; attempt++) {
      if (record.path) {
        const holder = await this.core.driver.getByIndex(collection, 'path', [record.blogId, record.path]);
        // A path another record holds (a duplicate in the file): this one gets a path of its own.
        if (holder && holder.id !== record.id) record = { ...record, path: undefined } as typeof record;
      }
      if (!record.path) record = await withPath(this.core, kind, record, true);
      try {
        // An imported post moves its labels' counters in the same commit (src/store/label-counts.ts).
        const counters = collection === 'posts' ? labelCounterOps(undefined, record) : [];
        await this.core.commit([
          put(collection, record, 0),
          ...counters,
          ...ready.map((i) => put('comments', { ...i.record, postId: r.id, vis }, 0)),
        ]);
        break;
      } catch (error) {
        if (!DriverConflict.is(error) || attempt > 3) throw error;
        if (error.kind === 'version') {
          // The post or a comment was written meanwhile (another run): the careful path decides about each.
          if (error.collection === 'comments') {
            handled = false;
            ready = [];
            record = { ...record, liveComments: 0, allComments: 0, commentsVis: undefined } as typeof record;
            continue;
          }
          this.report.unchanged[collection]++;
          this.tick();
          return 'nothing';
        }
      }
    }
    this.report.created[collection]++;
    this.report.created.comments += ready.length;
    for (let i = 0; i <= ready.length; i++) this.tick();
    this.redirect(oldUrl, record.path);
    return handled ? 'with comments' : 'alone';
  }

  private redirect(oldUrls: OldUrls | undefined, path: string | undefined): void {
    if (!oldUrls || !path) return;
    const to = publicUrl(this.blog!, path);
    for (const oldUrl of typeof oldUrls === 'string' ? [oldUrls] : oldUrls)
      if (to !== oldUrl) this.report.redirects.push({ from: own(oldUrl), to: own(to) });
  }

  /** Comments checked and shaped as the service keeps them; the rest are skipped with the reason. */
  private prepare(list: readonly CommentIn[]): CommentIn[] {
    const blogId = this.blog!.id;
    const ready: CommentIn[] = [];
    const ids = new Set<string>();
    for (const item of list) {
      const c = item.record;
      if (ids.has(c.id)) {
        this.skip(item.source, 'Duplicate comment id in the file');
        continue;
      }
      ids.add(c.id);
      const content = c.status === 'EMPTIED' ? '' : sanitizeCommentHtml(c.content);
      if (content.length > LIMITS.commentContent)
        this.skip(item.source, `Comment longer than ${LIMITS.commentContent} characters`);
      else if (c.status !== 'EMPTIED' && !content.trim()) this.skip(item.source, 'Empty comment');
      else {
        const authorUrl = c.authorUrl && isHttpUrl(c.authorUrl) ? c.authorUrl : undefined;
        const authorName = c.authorName?.trim().slice(0, LIMITS.displayName);
        ready.push({
          ...item,
          record: { ...c, blogId, content, authorUrl, authorName: c.authorId ? undefined : authorName || 'Anonymous' },
        });
      }
    }
    return ready;
  }

  /**
   * Comments of one stored post, in one commit with the post's counters. Comments already stored are
   * `unchanged`; a missing post, an over-long or empty comment, a duplicate id are skipped with the reason.
   */
  async comments(postId: string, list: readonly CommentIn[], deferIfPostMissing = false): Promise<boolean> {
    if (list.length === 0) return true;
    const blogId = this.blog!.id;
    const found = await this.core.get('posts', postId);
    if (!found || found.doc.blogId !== blogId) {
      if (deferIfPostMissing) return false;
      for (const item of list) this.skip(item.source, 'The post this comment belongs to is not in the import');
      return true;
    }
    const ready = this.prepare(list).map((i) => ({ ...i, record: { ...i.record, postId } }));
    if (ready.length === 0) return true;
    for (let attempt = 0; ; attempt++) {
      const post = attempt === 0 ? found : await this.core.get('posts', postId);
      if (!post) {
        for (const item of ready) this.skip(item.source, 'The post this comment belongs to is not in the import');
        return true;
      }
      const stored = await this.core.driver.getMany(
        'comments',
        ready.map((i) => i.record.id),
      );
      const fresh = ready.filter((_, i) => !stored[i]);
      const taken = ready.filter((_, i) => stored[i] && stored[i]!.doc.postId !== postId);
      let live = 0;
      for (const item of fresh) if (item.record.status === 'LIVE') live++;
      const p = post.doc;
      // As comments.insert files them: under the post's class now; a post's first comments settle its class.
      const ops = fresh.map((i) => put('comments', { ...i.record, vis: commentVisOf(p) }, 0));
      const settled = p.allComments === 0 ? { commentsVis: commentVisOf(p) } : {};
      if (fresh.length)
        ops.push(
          put(
            'posts',
            { ...p, ...settled, liveComments: p.liveComments + live, allComments: p.allComments + fresh.length },
            post,
          ),
        );
      try {
        if (ops.length) await this.core.commit(ops);
      } catch (error) {
        if (!DriverConflict.is(error) || attempt > 20) throw error;
        continue;
      }
      this.report.created.comments += fresh.length;
      for (const item of taken) this.skip(item.source, `Comment id ${item.record.id} belongs to another post`);
      this.report.unchanged.comments += ready.length - fresh.length - taken.length;
      for (let i = 0; i < ready.length - taken.length; i++) this.tick();
      return true;
    }
  }
}

/**
 * redirects (an extension, docs/design.md §22): a blog's old addresses and where each moved, kept with the blog so the
 * reading site answers them with a 301, live and in a static export. An import stores the redirects it makes;
 * ADMIN lists, adds and removes them. One record per old path and query (`redirectId`), so the site's look-up is
 * one read, and a second insert of the same `from` replaces its `to`.
 */
import { requireRole, type Actor } from '../rules/access.js';
import { redirectFrom } from '../rules/paths.js';
import type { Core } from '../core/core.js';
import { listOf, page } from '../core/paging.js';
import { DriverConflict } from '../store/driver.js';
import { del, put, redirectId, type RedirectRecord } from '../store/records.js';
import { shortHash } from '../util/ids.js';
import { invalid, notFound } from '../util/errors.js';
import { isHttpUrl } from '../schema/schemas.js';
import type { RedirectsDeleteParams, RedirectsInsertParams, RedirectsListParams } from '../schema/params.js';
import { redirectsParams as params } from '../schema/redirects.js';
import type { Redirect, RedirectList } from '../schema/resources.js';

const wire = (r: RedirectRecord): Redirect => ({ kind: 'blogcore#redirect', from: r.from, to: r.to });

/** The kept form of an old address, or a 400 naming the parameter. */
function fromOf(from: string, location: string): string {
  const kept = redirectFrom(from);
  if (kept === undefined)
    throw invalid(location, 'must be a url or a path starting with /, of at most 2,000 characters');
  return kept;
}

export function redirectsApi(core: Core, actor: Actor) {
  const admin = async (blogId: string, what: string) => {
    const s = await core.reader(actor, blogId);
    requireRole(s, 'ADMIN', what);
  };
  return {
    /** The blog's redirects in `from` order, one page. ADMIN. */
    async list(input: RedirectsListParams): Promise<RedirectList> {
      const p = core.parse(params.redirectsList, input);
      await admin(p.blogId, 'list redirects');
      const pg = await page(
        core.driver,
        {
          collection: 'redirects',
          index: 'blog',
          prefixes: [[p.blogId]],
          direction: 'asc',
          fingerprint: shortHash(JSON.stringify(['redirects', p.blogId])),
        },
        p.maxResults ?? 100,
        p.pageToken,
      );
      const items = pg.items.map((h) => wire(h.doc));
      return listOf(
        'blogcore#redirectList',
        items,
        pg,
        items.map((i) => `${i.from}\0${i.to}`),
      );
    },

    /** Adds a redirect, or changes where an old address leads. ADMIN. */
    async insert(input: RedirectsInsertParams): Promise<Redirect> {
      const p = core.parse(params.redirectsInsert, input);
      await core.requireWriter(actor);
      await admin(p.blogId, 'add redirects');
      const from = fromOf(p.body.from, 'body.from');
      const to = p.body.to;
      if (!isHttpUrl(to) && !(to.startsWith('/') && !to.startsWith('//')))
        throw invalid('body.to', 'must be an http(s) url or a path starting with /');
      if (redirectFrom(to) === from && !isHttpUrl(to)) throw invalid('body.to', 'must differ from body.from');
      const id = redirectId(p.blogId, from);
      for (let attempt = 0; ; attempt++) {
        const stored = await core.get('redirects', id);
        const record: RedirectRecord = {
          id,
          blogId: p.blogId,
          from,
          to,
          created: stored?.doc.created ?? core.nowIso(),
        };
        try {
          if (stored?.doc.to !== to) await core.commit([put('redirects', record, stored?.version ?? 0)]);
          return wire(record);
        } catch (error) {
          // Another caller wrote the same old address meanwhile: the last write wins, as a second insert does.
          if (!DriverConflict.is(error) || attempt > 20) throw error;
        }
      }
    },

    /** Removes the redirect of an old address; 404 when there is none. ADMIN. */
    async delete(input: RedirectsDeleteParams): Promise<void> {
      const p = core.parse(params.redirectsDelete, input);
      await core.requireWriter(actor);
      await admin(p.blogId, 'remove redirects');
      const id = redirectId(p.blogId, fromOf(p.from, 'from'));
      for (let attempt = 0; ; attempt++) {
        const stored = await core.get('redirects', id);
        if (!stored) throw notFound('Redirect');
        try {
          await core.commit([del('redirects', id, stored.version)]);
          return;
        } catch (error) {
          if (!DriverConflict.is(error) || attempt > 20) throw error;
        }
      }
    },
  };
}

/**
 * Where an old path and query of a blog leads, for the reading site: one read by id, whoever asks (readers
 * follow redirects; only ADMIN lists them). Undefined when the blog keeps none for it.
 */
export async function redirectOf(core: Core, blogId: string, pathAndQuery: string): Promise<string | undefined> {
  const from = redirectFrom(pathAndQuery);
  if (from === undefined) return undefined;
  return (await core.get('redirects', redirectId(blogId, from)))?.doc.to;
}

/** A blog's redirects in `from` order after the `from` given, `limit` at most: the static export walks them. */
export async function redirectsAfter(
  core: Core,
  blogId: string,
  after: string | undefined,
  limit: number,
): Promise<Array<{ from: string; to: string }>> {
  const docs = await core.driver.list({
    collection: 'redirects',
    index: 'blog',
    prefix: [blogId],
    ...(after !== undefined ? { lower: { key: [after, redirectId(blogId, after)], open: true } } : {}),
    direction: 'asc',
    limit,
  });
  return docs.map((d) => ({ from: d.doc.from, to: d.doc.to }));
}

/** Stores an import's redirects with its blog, 100 a commit; an old address already kept gets the new `to`. */
export async function storeRedirects(
  core: Core,
  blogId: string,
  pairs: ReadonlyArray<{ from: string; to: string }>,
): Promise<void> {
  const now = core.nowIso();
  for (let i = 0; i < pairs.length; i += 100) {
    const chunk = new Map<string, RedirectRecord>();
    for (const pair of pairs.slice(i, i + 100)) {
      const from = redirectFrom(pair.from);
      if (from === undefined) continue;
      const id = redirectId(blogId, from);
      chunk.set(id, { id, blogId, from, to: pair.to, created: now });
    }
    for (let attempt = 0; ; attempt++) {
      const stored = await core.driver.getMany('redirects', [...chunk.keys()]);
      const ops = [...chunk.values()].flatMap((r, j) =>
        stored[j]?.doc.to === r.to
          ? []
          : [put('redirects', { ...r, created: stored[j]?.doc.created ?? now }, stored[j]?.version ?? 0)],
      );
      try {
        if (ops.length) await core.commit(ops);
        break;
      } catch (error) {
        if (!DriverConflict.is(error) || attempt > 20) throw error;
      }
    }
  }
}

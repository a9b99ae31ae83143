/**
 * pageViews (Blogger v3): views the host reports (`record`, e.g. from its page renderer), kept in UTC day
 * buckets plus an all-time counter per blog, so recording is one small commit of adds (no read, no retry) and
 * reading a range walks at most 30 buckets, however old the blog.
 */
import { authError, requireRole, type Actor } from '../rules/access.js';
import type { Core } from '../core/core.js';
import { forbidden } from '../util/errors.js';
import type { PageViewsGetParams, PageViewsRange, PageViewsRecordParams } from '../schema/params.js';
import { addTo, type PageViewRecord } from '../store/records.js';
import { pageViewsParams as params } from '../schema/pageviews.js';
import type { PageViews } from '../schema/resources.js';

const DAY_MS = 86_400_000;
const RANGES: Record<PageViewsRange, { timeRange: PageViews['counts'][number]['timeRange']; days?: number }> = {
  all: { timeRange: 'ALL_TIME' },
  '30DAYS': { timeRange: 'THIRTY_DAYS', days: 30 },
  '7DAYS': { timeRange: 'SEVEN_DAYS', days: 7 },
};

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function pageViewsApi(core: Core, actor: Actor) {
  return {
    /** Views of the blog for each range asked (default all three); `NDAYS` counts today and the N-1 days before. */
    async get(input: PageViewsGetParams): Promise<PageViews> {
      const p = core.parse(params.pageViewsGet, input);
      const s = await core.reader(actor, p.blogId);
      // Signing in may help an anonymous caller (401, as userinfos answer); a signed-in non-admin it cannot (403).
      if (actor.kind === 'anonymous') throw authError('Sign in to read page views');
      requireRole(s, 'ADMIN', 'read page views');
      const ranges = p.range ?? (['all', '30DAYS', '7DAYS'] as const);
      const today = core.now().getTime();
      const days = await core.driver.list({
        collection: 'pageviews',
        index: 'blog',
        prefix: [p.blogId],
        lower: { key: [dayOf(today - 29 * DAY_MS)] },
        direction: 'desc',
        limit: 31,
      });
      const total = (await core.get('pageviews', `${p.blogId}:all`))?.doc.count ?? 0;
      const counts = ranges.map((r) => {
        const { timeRange, days: n } = RANGES[r];
        if (n === undefined) return { timeRange, count: String(total) };
        const from = dayOf(today - (n - 1) * DAY_MS);
        const sum = days.reduce((acc, d) => acc + (d.doc.day! >= from ? d.doc.count : 0), 0);
        return { timeRange, count: String(sum) };
      });
      return { kind: 'blogger#page_views', blogId: p.blogId, counts };
    },

    /** Counts one view (or `count`) of the blog, and of `postId` if given, today. Host code only: readers must not inflate counts. */
    async record(input: PageViewsRecordParams): Promise<void> {
      const p = core.parse(params.pageViewsRecord, input);
      if (actor.kind !== 'host') throw forbidden('Only host code records page views');
      await core.blog(p.blogId);
      const day = dayOf(core.now().getTime());
      const counters: PageViewRecord[] = [
        { id: `${p.blogId}:${day}`, blogId: p.blogId, day, count: 0 },
        { id: `${p.blogId}:all`, blogId: p.blogId, count: 0 },
        ...(p.postId
          ? [{ id: `${p.blogId}:${p.postId}:${day}`, blogId: p.blogId, postId: p.postId, day, count: 0 }]
          : []),
      ];
      // Adds: views of one blog recorded at once all count, none waits to read the counter first.
      const ops = counters.map((c) => addTo('pageviews', c, { count: p.count ?? 1 }));
      await core.transact(async () => ({ ops, result: undefined }));
    },
  };
}

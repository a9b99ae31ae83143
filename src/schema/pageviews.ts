/** The parameters of page views (src/resources/pageviews.ts: pageViews.get and record) as zod schemas. */
import { integer, list, object, optional, upperEnum } from './checks.js';
import { id } from './schemas.js';
import { PAGE_VIEWS_RANGES } from './values.js';

const pageViewsRange = upperEnum(PAGE_VIEWS_RANGES);

/** The parameter schema of each page views call, by operation (`pageViewsGet` for pageViews.get). */
export const pageViewsParams = {
  pageViewsGet: object({
    blogId: id,
    range: optional(list(pageViewsRange, 'must name at least one value', Infinity, '')),
  }),
  pageViewsRecord: object({ blogId: id, postId: optional(id), count: optional(integer(1, 1_000_000)) }),
};

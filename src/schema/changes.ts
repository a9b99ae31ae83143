/** The parameters of changes.list (src/resources/changes.ts, the replica's pull) as a zod schema. */
import { integer, object, optional, string } from './checks.js';
import { id, view } from './schemas.js';
import { LIMITS } from './values.js';

/** The parameter schema of changes.list, by operation. */
export const changesParams = {
  changesList: object({
    blogId: id,
    since: optional(string(1, 200)),
    pageToken: optional(string(1, 2_000)),
    maxResults: optional(integer(1, LIMITS.maxResults)),
    wait: optional(integer(0, 60)),
    view: optional(view),
  }),
};

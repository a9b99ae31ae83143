/** The parameters of redirects (src/resources/redirects.ts: list, insert, delete) as zod schemas. */
import { object, string } from './checks.js';
import { id, listing } from './schemas.js';

/** The parameter schema of each redirects call, by operation (`redirectsList` for redirects.list). */
export const redirectsParams = {
  redirectsList: object({ blogId: id, maxResults: listing.maxResults, pageToken: listing.pageToken }),
  redirectsInsert: object({ blogId: id, body: object({ from: string(1, 4_000), to: string(1, 4_000) }) }),
  redirectsDelete: object({ blogId: id, from: string(1, 4_000) }),
};

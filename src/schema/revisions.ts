/** The parameters of the revisions of posts and pages (src/resources/revisions.ts) as zod schemas. */
import { object } from './checks.js';
import { id, listing, withIfMatch } from './schemas.js';

/** The parameter schema of each revisions call, by operation (`postsRevisionsList` for posts.revisions.list). */
export const revisionsParams = {
  postsRevisionsList: object({ blogId: id, postId: id, maxResults: listing.maxResults, pageToken: listing.pageToken }),
  postsRevisionsGet: object({ blogId: id, postId: id, revisionId: id }),
  postsRevisionsRestore: object({ blogId: id, postId: id, revisionId: id, ...withIfMatch }),
  pagesRevisionsList: object({ blogId: id, pageId: id, maxResults: listing.maxResults, pageToken: listing.pageToken }),
  pagesRevisionsGet: object({ blogId: id, pageId: id, revisionId: id }),
  pagesRevisionsRestore: object({ blogId: id, pageId: id, revisionId: id, ...withIfMatch }),
};

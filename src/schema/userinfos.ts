/** The parameters of user infos (src/resources/userinfos.ts: blogUserInfos.get, postUserInfos.get and list). */
import { bool, object, optional } from './checks.js';
import { blogRead, count, id, listing, postListing } from './schemas.js';
import { LIMITS } from './values.js';

/** The parameter schema of each user infos call, by operation (`postUserInfosList` for postUserInfos.list). */
export const userInfosParams = {
  blogUserInfosGet: object({ userId: id, blogId: id, maxPosts: blogRead.maxPosts }),
  postUserInfosGet: object({ userId: id, blogId: id, postId: id, maxComments: optional(count(LIMITS.maxInline)) }),
  postUserInfosList: object({
    userId: id,
    blogId: id,
    ...listing,
    status: postListing.status,
    labels: postListing.labels,
    orderBy: postListing.orderBy,
    fetchBodies: optional(bool),
  }),
};

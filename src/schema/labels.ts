/** The parameters of labels.list (src/resources/labels.ts) as a zod schema. */
import { object } from './checks.js';
import { id, listing } from './schemas.js';

/** The parameter schema of labels.list, by operation. */
export const labelsParams = {
  labelsList: object({ blogId: id, maxResults: listing.maxResults, pageToken: listing.pageToken, view: listing.view }),
};

/** The parameters of blog membership (src/resources/members.ts: members.set, remove, list) as zod schemas. */
import { object, upperEnum } from './checks.js';
import { id } from './schemas.js';
import { ROLES } from './values.js';

/** The parameter schema of each members call, by operation (`membersSet` for members.set). */
export const membersParams = {
  membersSet: object({ blogId: id, userId: id, role: upperEnum(ROLES) }),
  membersRemove: object({ blogId: id, userId: id }),
  membersList: object({ blogId: id }),
};

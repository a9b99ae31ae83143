/**
 * The parameters and bodies of blog and user management (src/resources/blog-admin.ts: blogs.insert, update,
 * patch, delete; users.insert, update) as zod schemas built from the same pieces as src/schema/schemas.ts. Only
 * those calls import this file, so their schemas travel in their chunk and a browser's first download never
 * carries them (docs/design.md §13).
 */
import type { output } from 'zod/mini';
import { array, object, optionalEach, optional, refine, string, unknown } from './checks.js';
import { httpUrl, id, nonEmpty, readOnly, text } from './schemas.js';
import { LIMITS } from './values.js';

/** What a blog body carries beside its name and url (blogs.insert/update and, all optional, blogs.patch). */
const blogFields = {
  description: optional(text(LIMITS.description)),
  customMetaData: optional(text(LIMITS.text)),
  disallowedCommentWords: optional(
    array(
      string(1, LIMITS.disallowedWord),
      LIMITS.disallowedWords,
      `at most ${LIMITS.disallowedWords} disallowed words`,
    ),
  ),
  published: optional(unknown),
  posts: optional(unknown),
  pages: optional(unknown),
  locale: optional(object({ language: optional(text(50)), country: optional(text(50)), variant: optional(text(50)) })),
};
/** The body of blogs.insert and update (`BlogBody`). */
export const blogBody = object({ ...readOnly, name: nonEmpty(LIMITS.blogName), url: httpUrl, ...blogFields });

/** The body of blogs.patch: the fields of a blog body, all optional; `null` clears one that may be empty (`BlogPatchBody`). */
export const blogPatchBody = object({
  ...readOnly,
  name: optional(nonEmpty(LIMITS.blogName)),
  url: optional(httpUrl),
  ...blogFields,
  ...optionalEach(
    {
      description: text(LIMITS.description),
      customMetaData: text(LIMITS.text),
      locale: blogFields.locale.def.innerType,
    },
    true,
  ),
});

/** The body of users.update: what a user may change; the id is the user's for good (`UserPatchBody`). */
export const userPatchBody = object({
  kind: optional(unknown),
  selfLink: optional(unknown),
  created: optional(unknown),
  blogs: optional(unknown),
  id: optional(unknown),
  displayName: optional(nonEmpty(LIMITS.displayName)),
  // `null` clears the field (docs/design.md §24).
  ...optionalEach({ url: httpUrl, about: text(LIMITS.text) }, true),
});

/** The body of users.insert (`UserBody`). */
export const userBody = object({
  kind: optional(unknown),
  selfLink: optional(unknown),
  created: optional(unknown),
  blogs: optional(unknown),
  id: optional(refine(id, (s) => /^[\w.@:-]+$/.test(s), 'may hold letters, digits and . _ @ : - only')),
  displayName: nonEmpty(LIMITS.displayName),
  url: optional(httpUrl),
  about: optional(text(LIMITS.text)),
});

/** The parameter schema of each blog and user management call, by operation (`blogsPatch` for blogs.patch). */
export const blogAdminParams = {
  blogsInsert: object({ body: blogBody, ownerId: optional(id) }),
  blogsUpdate: object({ blogId: id, body: blogBody }),
  blogsPatch: object({ blogId: id, body: blogPatchBody }),
  blogsDelete: object({ blogId: id }),
  usersInsert: object({ body: userBody }),
  usersUpdate: object({ userId: id, body: userPatchBody }),
};

/** What a blog or user management call works with after a check: `BlogAdminParsed<'blogsPatch'>`. */
export type BlogAdminParsed<K extends keyof typeof blogAdminParams> = output<(typeof blogAdminParams)[K]>;

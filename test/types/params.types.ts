/**
 * Type tests, compiled by `tsc` in `npm run typecheck` (never run). Each `@ts-expect-error` line must fail to
 * compile: if a parameter type got loose (a plain `string` for an enum, an index signature), the directive
 * becomes unused and tsc fails. Below them: the public interfaces accept exactly what the runtime checks accept.
 */
import type { BlogService, OneOrMore, PostBody, PostStatus, PostsListParams, Role } from '../../src/index.js';
import type * as P from '../../src/schema/params.js';
import type * as S from '../../src/schema/index.js';
import type { params } from '../../src/schema/index.js';
import type { input as In } from 'zod/mini';
import type * as M from '../../src/schema/media.js';
import type { mediaParams } from '../../src/schema/media.js';

declare const service: BlogService;
const blogId = 'b';
const postId = 'p';

// ---------------------------------------------------------------- misspelt enum values

// @ts-expect-error 'OWNER' is not a view
void service.posts.get({ blogId, postId, view: 'OWNER' });
// @ts-expect-error enum values are upper-case in the types (the runtime also takes lower case)
void service.blogs.get({ blogId, view: 'reader' });
// @ts-expect-error 'PUBLISHED' is not a post status
void service.posts.list({ blogId, status: 'PUBLISHED' });
// @ts-expect-error one wrong value in a list
void service.posts.list({ blogId, status: ['LIVE', 'NOPE'] });
// @ts-expect-error SCHEDULED is a post status, not a page status
void service.pages.list({ blogId, status: 'SCHEDULED' });
// @ts-expect-error DRAFT is not a comment status
void service.comments.listByBlog({ blogId, status: 'DRAFT' });
// @ts-expect-error ARCHIVED is not a blog status
void service.blogs.listByUser({ userId: 'self', status: 'ARCHIVED' });
// @ts-expect-error OWNER is not a role
void service.blogs.listByUser({ userId: 'self', role: ['OWNER'] });
// @ts-expect-error OWNER is not a role
void service.members.set({ blogId, userId: 'u', role: 'OWNER' });
// @ts-expect-error orderBy is PUBLISHED or UPDATED
void service.posts.search({ blogId, q: 'x', orderBy: 'TITLE' });
// @ts-expect-error sortOption is DESCENDING or ASCENDING
void service.posts.list({ blogId, sortOption: 'SIDEWAYS' });
// @ts-expect-error page views ranges are all, 30DAYS and 7DAYS
void service.pageViews.get({ blogId, range: ['90DAYS'] });
// @ts-expect-error readerComments has three values
void service.posts.patch({ blogId, postId, body: { readerComments: 'SOMETIMES' } });

// ---------------------------------------------------------------- unknown parameter names

// @ts-expect-error misspelt parameter
void service.posts.list({ blogId, stauts: 'DRAFT' });
// @ts-expect-error misspelt body field
void service.posts.insert({ blogId, body: { titel: 'Hello' } });
// @ts-expect-error pages take no labels
void service.pages.insert({ blogId, body: { title: 't', labels: ['a'] } });
// @ts-expect-error comment authors have no email
void service.comments.insert({ blogId, postId, body: { content: 'c', author: { displayName: 'd', email: 'e' } } });
// @ts-expect-error a comment list is not a post list
void service.comments.list({ blogId, postId, labels: 'a' });

// ---------------------------------------------------------------- wrong types, missing fields

// @ts-expect-error maxResults is a number
void service.posts.list({ blogId, maxResults: '10' });
// @ts-expect-error fetchBodies is a boolean
void service.posts.list({ blogId, fetchBodies: 'true' });
// @ts-expect-error body labels are an array
void service.posts.insert({ blogId, body: { labels: 'a,b' } });
// @ts-expect-error blogId is required
void service.posts.list({});
// @ts-expect-error a comment needs content
void service.comments.insert({ blogId, postId, body: {} });
// @ts-expect-error a blog needs a url
void service.blogs.insert({ body: { name: 'n' } });
// @ts-expect-error ids are strings
void service.posts.get({ blogId: 1, postId });

// ---------------------------------------------------------------- what must compile

const statuses = ['LIVE', 'DRAFT'] as const;
const roles: readonly Role[] = ['AUTHOR', 'ADMIN'];
const labels: ReadonlyArray<string> = ['a', 'b'];
const body: PostBody = { title: 't', labels, readerComments: 'ALLOW', location: { name: 'here', lat: 1, lng: 2 } };
const listing: PostsListParams = {
  blogId,
  status: statuses,
  labels,
  orderBy: 'UPDATED',
  sortOption: 'ASCENDING',
  view: 'AUTHOR',
};
const one: OneOrMore<PostStatus> = 'SCHEDULED';
void service.posts.list(listing);
void service.posts.list({ blogId, status: one, labels: 'a,b', maxResults: 500 });
void service.posts.search({ ...listing, q: 'two words' });
void service.posts.insert({ blogId, body, isDraft: true });
void service.blogs.listByUser({ userId: 'self', role: roles, status: ['LIVE', 'DELETED'] });
void service.comments.list({ blogId, postId, status: ['LIVE', 'PENDING'] as const, fetchBodies: false });
void service.comments.insert({
  blogId,
  postId,
  body: { content: 'c', inReplyTo: { id: 'c1' }, author: { displayName: 'd', url: 'https://d.example/' } },
});
void service.pages.update({ blogId, pageId: 'g', body: { title: 't' }, publish: true, ifMatch: '"e"' });
// A resource read from the service can be sent back as a body: the fields the server owns are accepted.
void service.posts.get({ blogId, postId }).then((post) => service.posts.update({ blogId, postId, body: post }));

// ---------------------------------------------------------------- the interfaces and the runtime checks agree

/** True when A and B are the same type, property by property (optional, readonly and all). */
type Same<A, B> = (<T>() => T extends Deep<A> ? 1 : 2) extends <T>() => T extends Deep<B> ? 1 : 2 ? true : false;
type Deep<T> = T extends unknown[]
  ? Deep<T[number]>[]
  : T extends readonly unknown[]
    ? readonly Deep<T[number]>[]
    : T extends object
      ? { [K in keyof T]: Deep<T[K]> }
      : T;
type Check<K extends keyof typeof params, I> = Same<In<(typeof params)[K]>, I>;
// biome-ignore lint/correctness/noUnusedVariables: T is the check: agree<X>() compiles only when X is true
const agree = <T extends true>() => undefined;

agree<Check<'blogsGet', P.BlogsGetParams>>();
agree<Check<'blogsGetByUrl', P.BlogsGetByUrlParams>>();
agree<Check<'blogsListByUser', P.BlogsListByUserParams>>();
agree<Check<'blogsInsert', P.BlogsInsertParams>>();
agree<Check<'usersGet', P.UsersGetParams>>();
agree<Check<'usersInsert', P.UsersInsertParams>>();
agree<Check<'membersSet', P.MembersSetParams>>();
agree<Check<'membersRemove', P.MembersRemoveParams>>();
agree<Check<'membersList', P.MembersListParams>>();
agree<Check<'postsGet', P.PostsGetParams>>();
agree<Check<'postsList', P.PostsListParams>>();
agree<Check<'postsSearch', P.PostsSearchParams>>();
agree<Check<'postsGetByPath', P.PostsGetByPathParams>>();
agree<Check<'postsInsert', P.PostsInsertParams>>();
agree<Check<'postsUpdate', P.PostsUpdateParams>>();
agree<Check<'postsDelete', P.PostsDeleteParams>>();
agree<Check<'postsPublish', P.PostsPublishParams>>();
agree<Check<'postsRevert', P.PostsRevertParams>>();
agree<Check<'pagesGet', P.PagesGetParams>>();
agree<Check<'pagesList', P.PagesListParams>>();
agree<Check<'pagesInsert', P.PagesInsertParams>>();
agree<Check<'pagesUpdate', P.PagesUpdateParams>>();
agree<Check<'pagesDelete', P.PagesDeleteParams>>();
agree<Check<'pagesAction', P.PagesActionParams>>();
agree<Check<'commentsGet', P.CommentsGetParams>>();
agree<Check<'commentsList', P.CommentsListParams>>();
agree<Check<'commentsListByBlog', P.CommentsListByBlogParams>>();
agree<Check<'commentsAction', P.CommentsActionParams>>();
agree<Check<'commentsInsert', P.CommentsInsertParams>>();
agree<Check<'commentsModerate', P.CommentsModerateParams>>();
agree<Check<'changesList', P.ChangesListParams>>();
agree<Check<'blogUserInfosGet', P.BlogUserInfosGetParams>>();
agree<Check<'postUserInfosGet', P.PostUserInfosGetParams>>();
agree<Check<'postUserInfosList', P.PostUserInfosListParams>>();
agree<Check<'pageViewsGet', P.PageViewsGetParams>>();
agree<Check<'pageViewsRecord', P.PageViewsRecordParams>>();
agree<Check<'labelsList', P.LabelsListParams>>();
agree<Check<'usersUpdate', P.UsersUpdateParams>>();
agree<Check<'blogsUpdate', P.BlogsUpdateParams>>();
agree<Check<'blogsPatch', P.BlogsPatchParams>>();
agree<Check<'blogsDelete', P.BlogsDeleteParams>>();
agree<Check<'postsRevisionsList', P.PostsRevisionsListParams>>();
agree<Check<'postsRevisionsGet', P.PostsRevisionsGetParams>>();
agree<Check<'postsRevisionsRestore', P.PostsRevisionsRestoreParams>>();
agree<Check<'pagesRevisionsList', P.PagesRevisionsListParams>>();
agree<Check<'pagesRevisionsGet', P.PagesRevisionsGetParams>>();
agree<Check<'pagesRevisionsRestore', P.PagesRevisionsRestoreParams>>();
// Every runtime schema has its interface above: a new one without a check fails here.
// Media's schemas live beside (src/schema/media.ts), each with its interface.
agree<Same<In<(typeof mediaParams)['mediaUpload']>, M.MediaUploadParams>>();
agree<Same<In<(typeof mediaParams)['mediaGet']>, M.MediaGetParams>>();
agree<Same<In<(typeof mediaParams)['mediaList']>, M.MediaListParams>>();
agree<Same<In<(typeof mediaParams)['mediaPatch']>, M.MediaPatchParams>>();
agree<Same<In<(typeof mediaParams)['mediaDelete']>, M.MediaDeleteParams>>();
agree<Same<In<(typeof mediaParams)['mediaRead']>, M.MediaReadParams>>();
agree<
  Same<keyof typeof mediaParams, 'mediaUpload' | 'mediaGet' | 'mediaList' | 'mediaPatch' | 'mediaDelete' | 'mediaRead'>
>();
agree<Same<keyof typeof params, Checked>>();
type Checked =
  | 'blogsGet'
  | 'blogsGetByUrl'
  | 'blogsListByUser'
  | 'blogsInsert'
  | 'usersGet'
  | 'usersInsert'
  | 'membersSet'
  | 'membersRemove'
  | 'membersList'
  | 'postsGet'
  | 'postsList'
  | 'postsSearch'
  | 'postsGetByPath'
  | 'postsInsert'
  | 'postsUpdate'
  | 'postsDelete'
  | 'postsPublish'
  | 'postsRevert'
  | 'pagesGet'
  | 'pagesList'
  | 'pagesInsert'
  | 'pagesUpdate'
  | 'pagesDelete'
  | 'pagesAction'
  | 'commentsGet'
  | 'commentsList'
  | 'commentsListByBlog'
  | 'commentsAction'
  | 'commentsInsert'
  | 'commentsModerate'
  | 'changesList'
  | 'blogUserInfosGet'
  | 'postUserInfosGet'
  | 'postUserInfosList'
  | 'pageViewsGet'
  | 'pageViewsRecord'
  | 'labelsList'
  | 'usersUpdate'
  | 'blogsUpdate'
  | 'blogsPatch'
  | 'blogsDelete'
  | 'postsRevisionsList'
  | 'postsRevisionsGet'
  | 'postsRevisionsRestore'
  | 'pagesRevisionsList'
  | 'pagesRevisionsGet'
  | 'pagesRevisionsRestore';

// The service methods take the public interfaces (not the runtime schemas' own types).
agree<Same<Parameters<BlogService['posts']['list']>[0], PostsListParams>>();
agree<Same<Parameters<BlogService['comments']['insert']>[0], P.CommentsInsertParams>>();

// The body schemas `blogcore/schema` exports take exactly the body interfaces.
agree<Same<In<typeof S.postBody>, P.PostBody>>();
agree<Same<In<typeof S.pageBody>, P.PageBody>>();
agree<Same<In<typeof S.postPatchBody>, P.PostPatchBody>>();
agree<Same<In<typeof S.pagePatchBody>, P.PagePatchBody>>();
agree<Same<In<typeof S.commentBody>, P.CommentBody>>();
agree<Same<In<typeof S.blogBody>, P.BlogBody>>();
agree<Same<In<typeof S.blogPatchBody>, P.BlogPatchBody>>();
agree<Same<In<typeof S.userBody>, P.UserBody>>();
agree<Same<In<typeof S.userPatchBody>, P.UserPatchBody>>();

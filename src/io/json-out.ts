/**
 * `blogcore-json`: the lossless format. One JSON document laid out one record per line, so it is written
 * and read as a stream:
 *
 *   {"format":"blogcore-json","version":1,"blog":{…},"records":[
 *   {"type":"user","record":{…}},
 *   {"type":"post","record":{…}},        each post is followed by its comments
 *   {"type":"comment","record":{…}},
 *   ]}
 *
 * Records are the core's own (ids, paths, states, times, revisions); comment counters are not written:
 * the import counts them again as it stores the comments. A file reformatted by another tool is still read
 * (whole, as plain JSON).
 */
import type { Core } from '../core/core.js';
import type { CommentRecord, MemberRecord, PageRecord, PostRecord, UserRecord } from '../store/records.js';
import { blogOf, commentsOf, members, pages, posts, userCache } from './walk.js';

export const HEAD = '{"format":"blogcore-json"';

export type Line =
  | { type: 'user'; record: UserRecord }
  | { type: 'member'; record: MemberRecord }
  | { type: 'post'; record: PostRecord }
  | { type: 'page'; record: PageRecord }
  | { type: 'comment'; record: CommentRecord };

export async function* exportJson(core: Core, blogId: string): AsyncGenerator<string> {
  const blog = await blogOf(core, blogId);
  yield `${JSON.stringify({ format: 'blogcore-json', version: 1, exported: core.nowIso(), blog }).slice(0, -1)},"records":[`;
  let first = true;
  const line = (l: Line) => {
    const text = `${first ? '' : ','}\n${JSON.stringify(l)}`;
    first = false;
    return text;
  };
  const userOf = userCache(core);
  const written = new Set<string>();
  async function* user(id: string | undefined): AsyncGenerator<string> {
    if (!id || written.has(id)) return;
    written.add(id);
    const u = await userOf(id);
    if (u) yield line({ type: 'user', record: u });
  }
  yield* user(blog.ownerId);
  const roles: MemberRecord[] = [];
  for await (const m of members(core, blogId)) {
    yield* user(m.userId);
    roles.push(m);
  }
  for (const m of roles) yield line({ type: 'member', record: m });
  for await (const p of posts(core, blogId)) {
    yield* user(p.authorId);
    // Counters and the comments' visibility class are derived: the import computes them again.
    const { liveComments: _l, allComments: _a, commentsVis: _v, ...rest } = p;
    yield line({ type: 'post', record: rest as PostRecord });
    for await (const c of commentsOf(core, p)) {
      yield* user(c.authorId);
      const { vis: _cv, ...comment } = c;
      yield line({ type: 'comment', record: comment });
    }
  }
  for await (const p of pages(core, blogId)) {
    yield* user(p.authorId);
    yield line({ type: 'page', record: p });
  }
  yield '\n]}\n';
}

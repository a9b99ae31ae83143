/**
 * `blogcore-json`: the lossless format. One JSON document laid out one record per line, so it is written
 * and read as a stream:
 *
 *   {"format":"blogcore-json","version":1,"blog":{…},"records":[
 *   {"type":"user","record":{…}},
 *   {"type":"post","record":{…}},        each post is followed by its comments
 *   {"type":"comment","record":{…}},
 *   {"type":"media","record":{…}},       with `media: true`: each picture's record, then its bytes
 *   {"type":"bytes","data":"<base64>"},   in pieces of BYTES_PER_LINE (so no line holds a whole picture)
 *   ]}
 *
 * Records are the core's own (ids, paths, states, times, revisions); comment counters are not written:
 * the import counts them again as it stores the comments. A file reformatted by another tool is still read
 * (whole, as plain JSON).
 */
import {
  type Core,
  fixedChunks,
  type CommentRecord,
  type MediaRecord,
  type MemberRecord,
  type PageRecord,
  type PostRecord,
  type UserRecord,
} from '../service/store.js';
import { toBase64 } from '../util/base64.js';
import { piecesOfStream } from '../util/streams.js';
import { blogOf, commentsOf, media, members, pages, posts, userCache } from './walk.js';

/** Bytes of a picture per `bytes` line (256 KiB of base64). */
const BYTES_PER_LINE = 192 * 1024;

export const HEAD = '{"format":"blogcore-json"';

export type Line =
  | { type: 'user'; record: UserRecord }
  | { type: 'member'; record: MemberRecord }
  | { type: 'post'; record: PostRecord }
  | { type: 'page'; record: PageRecord }
  | { type: 'comment'; record: CommentRecord }
  | { type: 'media'; record: Omit<MediaRecord, 'blob'> }
  | { type: 'bytes'; data: string };

export async function* exportJson(core: Core, blogId: string, withMedia = false): AsyncGenerator<string> {
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
    // Counters and the comments' visibility class are derived: the import computes them again (the count of kept
    // revisions too: those stay behind). A replica's note never leaves the store (docs/design.md §26).
    const { liveComments: _l, allComments: _a, commentsVis: _v, revisions: _n, replica: _r, ...rest } = p;
    yield line({ type: 'post', record: rest as PostRecord });
    for await (const c of commentsOf(core, p)) {
      yield* user(c.authorId);
      const { vis: _cv, replica: _cr, ...comment } = c;
      yield line({ type: 'comment', record: comment });
    }
  }
  for await (const { replica: _r, revisions: _n, ...p } of pages(core, blogId)) {
    yield* user(p.authorId);
    yield line({ type: 'page', record: p });
  }
  if (withMedia) {
    for await (const m of media(core, blogId)) {
      const body = await core.blobs.read(m.blob);
      // A record whose bytes are gone has nothing to carry: it stays behind.
      if (!body) continue;
      yield* user(m.authorId);
      const { blob: _b, ...record } = m;
      yield line({ type: 'media', record });
      for await (const piece of fixedChunks(piecesOfStream(body), BYTES_PER_LINE, true))
        yield line({ type: 'bytes', data: toBase64(piece) });
    }
  }
  yield '\n]}\n';
}

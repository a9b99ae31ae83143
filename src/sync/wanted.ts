/**
 * The pictures a replica wants (docs/design.md §16): one `settings` document per blog with the pictures whose bytes
 * are still to fetch, the bytes to let go, and the pictures posts stopped using. Every batch of the replica that
 * writes posts or pages keeps it in step with their content (state.ts), whatever the user's role: a picture
 * a post starts to use and that has no local record yet is wanted (a reader's feed has no media records, so its
 * pictures are known by their urls alone), and one a post stops using is looked at again after the pull.
 */
import { mediaId, type Collection, type PageRecord, type PostRecord } from '../service/store.js';
import { mediaUses } from '../rules/media-refs.js';

/** What this module does with a batch (state.ts's `Batch`, which imports this module). */
interface Batch {
  load(collection: Collection, ids: readonly string[]): Promise<void>;
  get<T>(collection: Collection, id: string): Promise<{ doc: T } | undefined>;
  put<T extends { id: string }>(collection: Collection, doc: T): Promise<number>;
}

export interface Pictures {
  id: string;
  /** SHA-256s of pictures whose bytes are not here yet. */
  want: string[];
  /** Blob keys of bytes to delete. */
  drop: string[];
  /** The file names content gives wanted pictures that have no local record (known by url alone). */
  names?: Record<string, string>;
  /** Pictures a post or page stopped using: let go after the pull unless something here still uses them. */
  left?: string[];
}

export const picturesId = (blogId: string) => `sync:${blogId}:pictures`;

/** The blog's pictures document as stored in `batch` (a copy to change), or a new one. */
export async function picturesIn(batch: Batch, blogId: string): Promise<Required<Pictures>> {
  const found = (await batch.get<Pictures>('settings', picturesId(blogId)))?.doc;
  return {
    id: picturesId(blogId),
    want: [...(found?.want ?? [])],
    drop: [...(found?.drop ?? [])],
    names: { ...found?.names },
    left: [...(found?.left ?? [])],
  };
}

type Item = PostRecord | PageRecord;

/**
 * Brings the pictures document in step with posts and pages a batch writes (each `[before, after]`): reads
 * nothing when no item starts or stops using a picture.
 */
export async function noteUses(
  batch: Batch,
  items: ReadonlyArray<readonly [Item | undefined, Item | undefined]>,
): Promise<void> {
  const gained = new Map<string, string>();
  const lost = new Set<string>();
  let blogId = '';
  for (const [was, now] of items) {
    // (A record made and dropped within the batch has neither.)
    const item = now ?? was;
    if (!item) continue;
    blogId = item.blogId;
    const before = was ? mediaUses(blogId, was.content) : new Map<string, string>();
    const after = now ? mediaUses(blogId, now.content) : new Map<string, string>();
    for (const [sha, name] of after) if (!before.has(sha)) gained.set(sha, name);
    for (const sha of before.keys()) if (!after.has(sha)) lost.add(sha);
  }
  if (!gained.size && !lost.size) return;
  // A picture with a local record has its bytes here, or waits for them already.
  const ids = [...gained.keys()].map((sha) => mediaId(blogId, sha));
  if (ids.length) await batch.load('media', ids);
  const pictures = await picturesIn(batch, blogId);
  const wanted = new Set(pictures.want);
  for (const [sha, name] of gained) {
    if (wanted.has(sha) || (await batch.get('media', mediaId(blogId, sha)))) continue;
    pictures.want.push(sha);
    pictures.names[sha] = name;
  }
  pictures.left = [...new Set([...pictures.left, ...lost])];
  await batch.put('settings', pictures);
}

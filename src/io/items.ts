/** Posts and pages of the foreign formats (WXR, Blogger, Ghost) made into records, their states settled as the service would. */
import type { PageRecord, PostRecord } from '../service/store.js';
import { insertedStatus } from '../rules/states.js';
import { cleanLabels, idFor } from './keys.js';
import type { CommentIn, Restorer } from './restore.js';

/** A post or page as a foreign format gives it, before it becomes a record. */
export interface ItemIn {
  kind: 'post' | 'page';
  /** The file's own id for it (stable across runs). */
  key: string;
  /** How the skip list names it. */
  source: string;
  title: string;
  content: string;
  labels?: string[];
  status: 'LIVE' | 'DRAFT' | 'SCHEDULED' | 'SOFT_TRASHED';
  published?: string | undefined;
  updated?: string | undefined;
  /** A path to keep exactly (Blogger's); others get one by the core's rule. */
  path?: string | undefined;
  authorId: string;
  /** Its address in the old blog, for the redirect map. */
  oldUrl?: string | readonly string[] | undefined;
  readerComments?: PostRecord['readerComments'];
  /** Why the source keeps it from the public (a password, members only, private), if it does: it becomes a DRAFT. */
  notPublic?: string | undefined;
  /** A post's comments, written with it. */
  comments?: CommentIn[];
}

/**
 * The states a record may take on import, settled as the service would: a future LIVE post is SCHEDULED, and
 * what the source keeps from the public is a DRAFT.
 */
export async function restoreItem(restorer: Restorer, it: ItemIn): Promise<string> {
  const blogId = restorer.blog!.id;
  const now = restorer.core.nowIso();
  const updated = it.updated ?? it.published ?? now;
  let status = it.status;
  let published = it.published;
  // Nothing private becomes public: what the source hides is a DRAFT here, and the report says why.
  if (it.notPublic) {
    if (status === 'LIVE' || status === 'SCHEDULED') status = 'DRAFT';
    restorer.drafted(it.source, it.notPublic);
  }
  if (it.kind === 'page' && status === 'SCHEDULED') status = 'DRAFT';
  if (status === 'SCHEDULED' && !published) status = 'DRAFT';
  if (status === 'LIVE') {
    published ??= updated;
    status = insertedStatus(it.kind, false, published, now);
  }
  const path = it.path && /^\/[^?#\s]*$/.test(it.path) && it.path.length <= 500 ? it.path : undefined;
  const base = {
    id: idFor(blogId, it.kind, it.key),
    blogId,
    authorId: it.authorId,
    title: it.title,
    content: it.content,
    ...(published ? { published } : {}),
    updated,
    ...(status === 'SOFT_TRASHED' ? { trashed: updated } : {}),
    ...(path ? { path } : {}),
    rev: 1,
  };
  if (it.kind === 'post') {
    await restorer.post(
      {
        ...base,
        status,
        labels: cleanLabels(it.labels ?? []),
        readerComments: it.readerComments ?? 'ALLOW',
        liveComments: 0,
        allComments: 0,
      },
      it.source,
      it.oldUrl,
      it.comments,
    );
  } else {
    await restorer.page({ ...base, status: status as PageRecord['status'] }, it.source, it.oldUrl);
  }
  return base.id;
}

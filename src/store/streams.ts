/**
 * The change log's streams (driver `streamChanges` walks one alone). Users' and blogs' changes go to
 * RECORDS_STREAM, which other processes' caches follow (record-cache.ts). Each blog's posts, pages, comments and media
 * go to two streams: what readers see or once saw, and what no reader ever could (`unseen` posts and pages:
 * drafts never published, posts created SCHEDULED; records.ts marks them). A reader's pull walks the
 * first alone, so it never mentions the second; authors, admins and a replica's own scan walk both, merged.
 */
import type { Change, LogPosition, StorageDriver } from './driver.js';

/** Never a blog id (ids hold no `~`). */
export const RECORDS_STREAM = '~records';

export const blogStream = (blogId: string, unseen: boolean): string => (unseen ? `${blogId}~unseen` : blogId);

/** The blog's changes after `after`, in log order, at most `limit`: the shown stream, and with `unseen` the other merged in. */
export async function blogChanges(
  driver: Pick<StorageDriver, 'streamChanges'>,
  blogId: string,
  after: LogPosition,
  limit: number,
  unseen: boolean,
): Promise<Change[]> {
  const shown = await driver.streamChanges(blogId, after, limit);
  if (!unseen) return shown;
  const hidden = await driver.streamChanges(blogStream(blogId, true), after, limit);
  if (hidden.length === 0) return shown;
  return [...shown, ...hidden].sort((a, b) => a.seq - b.seq || a.pos - b.pos).slice(0, limit);
}

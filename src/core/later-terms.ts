/**
 * Search terms written after their posts (docs/design.md §26): a replica's first pull stores posts without their
 * terms on a driver that can add them afterwards (`StorageDriver.addTerms`), and marks the blog (`laterTermsId`,
 * at the pull's start and end). This walks the blog's posts in pages and hands each post's terms to the driver for
 * the version it is stored at (a post written since carries its own), then removes the mark unless a pull marked
 * the blog again meanwhile (a later call walks again). Searches of the blog wait for it (Core.termsWritten).
 */
import { DriverConflict, type JsonObject, type KeyBound, type StoredDoc } from '../store/driver.js';
import { del, termsOf } from '../store/records.js';
import type { RecordStore } from '../store/record-store.js';

/** Posts a page of the walk reads and hands over. */
const PAGE = 1000;

/** Writes the terms of the blog's posts; `mark`: the blog's mark as read before. */
export async function writeLaterTerms(driver: RecordStore, blogId: string, mark: StoredDoc<JsonObject>): Promise<void> {
  if (!driver.addTerms) return;
  let lower: KeyBound | undefined;
  for (;;) {
    const page = await driver.list({
      collection: 'posts',
      index: 'published',
      prefix: [blogId],
      direction: 'asc',
      limit: PAGE,
      ...(lower ? { lower } : {}),
    });
    if (page.length) {
      await driver.addTerms(
        'posts',
        page.map((p) => ({ id: p.id, version: p.version, terms: termsOf(p.doc) })),
      );
    }
    if (page.length < PAGE) break;
    lower = { key: page[page.length - 1]!.key.slice(1), open: true };
  }
  try {
    await driver.commit([del('settings', mark.id, mark.version)]);
  } catch (error) {
    if (!DriverConflict.is(error)) throw error;
  }
}

/**
 * The IndexedDB driver's blob store: media bytes as `Blob` values in the `~blobs` object store (schema.ts names
 * it; index.ts passes the name in, so this file loads alone), keyed by the core's key, beside the records (so
 * clearing the site's data clears both). A put gathers what its source yields into one Blob (browsers keep
 * large Blobs on disk, not in the page's memory) and stores it in one transaction, so a key holds all of a blob
 * or none of it; a read streams a slice of the stored Blob. Loaded on the first call (index.ts): most page
 * loads never touch a picture's bytes.
 */
import type { IDBPDatabase } from 'idb';
import type { BlobStore } from '../../src/store/driver.js';

/** `db` answers the open database (and throws when the driver is closed or lost); `objects` names the object store. */
export function idbBlobs(db: () => IDBPDatabase, objects: string): BlobStore {
  return {
    async put(key, source) {
      db();
      const parts: Blob[] = [];
      let size = 0;
      for await (const chunk of source) {
        if (chunk.byteLength === 0) continue;
        parts.push(new Blob([chunk as Uint8Array<ArrayBuffer>]));
        size += chunk.byteLength;
      }
      await db().put(objects, new Blob(parts), key);
      return size;
    },
    async read(key, range) {
      const blob = (await db().get(objects, key)) as Blob | undefined;
      if (!blob) return undefined;
      return (
        range ? blob.slice(range.offset, range.offset + range.length) : blob
      ).stream() as ReadableStream<Uint8Array>;
    },
    async delete(key) {
      await db().delete(objects, key);
    },
    // A put keeps nothing stored until its one transaction: an interrupted one leaves nothing to sweep.
    async sweep() {
      db();
      return 0;
    },
  };
}

/**
 * The IndexedDB driver's blob store: media bytes as `Blob` values in the `~blobs` object store, keyed by the
 * core's key, beside the records (so clearing the site's data clears both). A put gathers what its source
 * yields into one Blob (browsers keep large Blobs on disk, not in the page's memory) and stores it in one
 * transaction, so a key holds all of a blob or none of it; a read streams a slice of the stored Blob.
 */
import type { BlobRange, BlobStore } from '../../src/store/driver.js';

/** The object store (created by the driver's upgrade in index.ts). */
const BLOBS = '~blobs';

/** A request's result as a promise. */
function ask<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function write(db: IDBDatabase, fn: (store: IDBObjectStore) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const tx = db.transaction(BLOBS, 'readwrite');
    tx.oncomplete = () => resolve();
    tx.onabort = () => reject(tx.error);
    fn(tx.objectStore(BLOBS));
  });
}

/** `conn` answers the open database (and throws when the driver is closed or lost). */
export function idbBlobs(conn: () => IDBDatabase): BlobStore {
  return {
    async put(key, source) {
      conn();
      const parts: Blob[] = [];
      let size = 0;
      for await (const chunk of source) {
        if (chunk.byteLength === 0) continue;
        parts.push(new Blob([chunk as Uint8Array<ArrayBuffer>]));
        size += chunk.byteLength;
      }
      await write(conn(), (store) => store.put(new Blob(parts), key));
      return size;
    },
    async read(key: string, range?: BlobRange) {
      const blob = (await ask(conn().transaction(BLOBS).objectStore(BLOBS).get(key))) as Blob | undefined;
      if (!blob) return undefined;
      return (range ? blob.slice(range.offset, range.offset + range.length) : blob).stream() as ReadableStream<Uint8Array>;
    },
    async delete(key) {
      await write(conn(), (store) => store.delete(key));
    },
    // A put keeps nothing stored until its one transaction: an interrupted one leaves nothing to sweep.
    async sweep() {
      conn();
      return 0;
    },
  };
}

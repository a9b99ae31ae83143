/** The memory driver's blob store: each blob a list of fixed-size chunks in a Map, swapped in whole once written. */
import { chunkStream, fixedChunks, type BlobRange, type BlobStore } from '../../src/store/driver.js';

const CHUNK = 256 * 1024;

export function memoryBlobs(live: () => void): BlobStore {
  const blobs = new Map<string, { size: number; chunks: Uint8Array[] }>();
  return {
    async put(key: string, source: AsyncIterable<Uint8Array>): Promise<number> {
      live();
      const chunks: Uint8Array[] = [];
      let size = 0;
      for await (const chunk of fixedChunks(source, CHUNK)) {
        chunks.push(chunk);
        size += chunk.byteLength;
      }
      live();
      blobs.set(key, { size, chunks });
      return size;
    },
    async read(key: string, range?: BlobRange): Promise<ReadableStream<Uint8Array> | undefined> {
      live();
      const blob = blobs.get(key);
      if (!blob) return undefined;
      // Copies out, so a reader cannot change what is stored.
      return chunkStream(blob.size, CHUNK, range, async (n) => blob.chunks[n]?.slice());
    },
    async delete(key: string): Promise<void> {
      live();
      blobs.delete(key);
    },
    // A put that never finished left nothing here: its chunks went with its process.
    async sweep(): Promise<number> {
      live();
      return 0;
    },
  };
}

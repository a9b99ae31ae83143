/**
 * One memory run of media.bench.ts in a process of its own: an upload of `<dir>/big.png` (streamed from the
 * file) or a read of it back, through blogcore or raw (the whole file in memory). Prints {ms, baseMb, peakMb}
 * (RSS, sampled every 2 ms). Usage: node --expose-gc --import tsx media-child.ts <what> <dir> [<file in dir>]
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { fsBlobs } from '../../src/media/blobs/index.js';
import { createBlogService } from '../../src/index.js';

const [what, dir, name] = [process.argv[2]!, process.argv[3]!, process.argv[4] ?? 'big.png'];
const file = join(dir, name);
const mb = () => process.memoryUsage().rss / 1e6;
const jsMb = () => {
  const m = process.memoryUsage();
  return (m.heapUsed + m.arrayBuffers) / 1e6;
};
const kind = what.endsWith('fs') ? 'fs' : 'sqlite';
const service = createBlogService({
  driver: sqliteDriver({ filename: join(dir, `memory-${kind}.db`) }),
  // Larger pictures than the default limit show whether memory grows with the size.
  maxMediaBytes: 200e6,
  ...(kind === 'fs' ? { blobs: fsBlobs({ dir: join(dir, 'memory-files') }) } : {}),
});
const url = 'https://memory.example/';
const blogId = await service.blogs.getByUrl({ url }).then(
  (b) => b.id,
  async () => {
    const owner = await service.users.insert({ body: { displayName: 'Bench' } });
    return (await service.blogs.insert({ body: { name: 'Memory', url }, ownerId: owner.id })).id;
  },
);
// A read needs the picture there: stored before the baseline is taken.
const stored = what.startsWith('read')
  ? await service.media.upload({ blogId, body: createReadStream(file) })
  : undefined;
const raw = new Database(join(dir, 'memory-raw.db'));
raw.exec('CREATE TABLE IF NOT EXISTS pics (sha TEXT PRIMARY KEY, bytes BLOB NOT NULL)');

const runs: Record<string, () => Promise<void>> = {
  'upload-sqlite': async () => void (await service.media.upload({ blogId, body: createReadStream(file) })),
  'upload-fs': async () => void (await service.media.upload({ blogId, body: createReadStream(file) })),
  'read-sqlite': () => drain(),
  'read-fs': () => drain(),
  'raw-upload-sqlite': async () => {
    const bytes = await readFile(file);
    raw
      .prepare('INSERT OR REPLACE INTO pics (sha, bytes) VALUES (?, ?)')
      .run(createHash('sha256').update(bytes).digest('hex'), bytes);
  },
  'raw-upload-fs': async () => {
    const bytes = await readFile(file);
    await writeFile(join(dir, `raw-${createHash('sha256').update(bytes).digest('hex')}`), bytes);
  },
  'raw-read': async () => {
    const bytes = await readFile(file);
    if (bytes.byteLength === 0) throw new Error('empty');
  },
};

async function drain(): Promise<void> {
  const { body } = await service.media.read({ blogId, mediaId: stored!.id });
  let n = 0;
  for await (const piece of body as unknown as AsyncIterable<Uint8Array>) n += piece.byteLength;
  if (n !== stored!.bytes) throw new Error('short read');
}

(globalThis as { gc?: () => void }).gc?.();
const baseMb = mb();
const jsBaseMb = jsMb();
let peakMb = baseMb;
let jsPeakMb = jsBaseMb;
const sample = () => {
  peakMb = Math.max(peakMb, mb());
  jsPeakMb = Math.max(jsPeakMb, jsMb());
};
const sampler = setInterval(sample, 2);
const t0 = performance.now();
await runs[what]!();
const ms = performance.now() - t0;
clearInterval(sampler);
sample();
await service.close();
raw.close();
console.log(JSON.stringify({ ms, baseMb, peakMb, jsBaseMb, jsPeakMb }));

/**
 * Child process of crash.test.ts: uploads pictures without end into a blog on a SQLite file, its bytes in the
 * file (`sqlite`) or in a directory (`fs`), each from a slow stream, printing a line per piece sent and
 * `done <id>` per upload finished, until it is killed. Usage: node --import tsx crash-uploader.ts <sqlite|fs> <dir>
 */
import { join } from 'node:path';
import { createBlogService, BlogError } from '../../src/index.js';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { fsBlobs } from '../../src/media/blobs/index.js';
import { makePng } from './pictures.js';

const [kind, dir] = [process.argv[2]!, process.argv[3]!];
const service = createBlogService({
  driver: sqliteDriver({ filename: join(dir, 'blog.db') }),
  ...(kind === 'fs' ? { blobs: fsBlobs({ dir: join(dir, 'blobs') }) } : {}),
});
const url = 'https://crash-media.example/';
let blogId: string;
try {
  blogId = (await service.blogs.getByUrl({ url })).id;
} catch (error) {
  if (!BlogError.is(error) || error.code !== 404) throw error;
  const owner = await service.users.insert({ body: { displayName: 'Owner' } });
  blogId = (await service.blogs.insert({ body: { name: 'Crash', url }, ownerId: owner.id })).id;
}
for (let i = Date.now(); ; i++) {
  const bytes = makePng(500, 500, i);
  async function* slow() {
    for (let at = 0; at < bytes.byteLength; at += 65_536) {
      yield bytes.subarray(at, at + 65_536);
      process.stdout.write('piece\n');
      await new Promise((r) => setTimeout(r, 2));
    }
  }
  const m = await service.media.upload({ blogId, body: slow() });
  process.stdout.write(`done ${m.id}\n`);
}

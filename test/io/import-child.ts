/** Imports a generated WXR into a SQLite file, printing progress lines: the interrupted-import test kills it midway. */
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { createBlogService } from '../../src/index.js';
import { importBlog } from '../../src/io/index.js';
import { wxrFile } from './generate.js';

const [filename, posts] = process.argv.slice(2);
const service = createBlogService({
  driver: sqliteDriver({ filename: filename! }),
  now: () => new Date('2026-03-15T10:00:00Z'),
});
await importBlog(service, wxrFile(Number(posts)), { onProgress: (p) => process.stdout.write(`${p.items}\n`) });
await service.close();
process.stdout.write('done\n');

/** Another process on the same file: renames the blog named on the command line, then says so on stdout. */
import { createBlogService } from '../../../src/index.js';
import { sqliteDriver } from '../../../drivers/sqlite/index.js';

const [file, blogId, name] = process.argv.slice(2) as [string, string, string];
const service = createBlogService({ driver: sqliteDriver({ filename: file }) });
await service.blogs.patch({ blogId, body: { name } });
await service.close();
process.stdout.write('renamed\n');

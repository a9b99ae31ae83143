// Deletes a blog from an SQLite file, printing a line after every commit, so the test can SIGKILL it midway.
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { createBlogService, type StorageDriver } from '../../src/index.js';

const inner = sqliteDriver({ filename: process.argv[2]! });
const commit: StorageDriver['commit'] = async (ops) => {
  const out = await inner.commit(ops);
  process.stdout.write(`${out.seq}\n`);
  // Give the parent time to kill between commits (a crash lands between two batches, never inside one).
  await new Promise((r) => setTimeout(r, 300));
  return out;
};
const driver = new Proxy(inner, {
  get: (target, name) => {
    if (name === 'commit') return commit;
    const value = Reflect.get(target, name) as unknown;
    return typeof value === 'function' ? value.bind(target) : value;
  },
}) as StorageDriver;
const service = createBlogService({ driver });
await service.blogs.delete({ blogId: process.argv[3]! });
process.stdout.write('done\n');

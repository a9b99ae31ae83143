// One process of the two-process scheduler test: opens the shared SQLite file, runs the scheduler, and
// prints one line per `post.published` it emitted. "finish" on stdin closes it.
import { createInterface } from 'node:readline';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { createBlogService } from '../../src/index.js';

const service = createBlogService({ driver: sqliteDriver({ filename: process.argv[2]! }) });
await service.ready();
service.on('post.published', (e) => console.log(JSON.stringify({ published: e.id })));
service.startScheduler({ onError: (e) => console.error(e) });
console.log(JSON.stringify({ ready: true }));
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'finish') break;
}
await service.close();
console.log(JSON.stringify({ closed: true }));

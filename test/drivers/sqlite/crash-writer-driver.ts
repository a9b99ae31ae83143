/**
 * Child process for the crash test: writes to a SQLite store through the driver in an endless loop
 * until it is killed. Usage: node --import tsx test/drivers/sqlite/crash-writer-driver.ts <file>
 */
import { sqliteDriver } from '../../../drivers/sqlite/index.js';
import type { WriteOp } from '../../../src/store/driver.js';
import { crashSchema, notePut, postPut, type CrashPost } from './crash-schema.js';

const file = process.argv[2]!;
const d = sqliteDriver({ filename: file });
await d.open(crashSchema);
const labels = ['a', 'b', 'c', 'd', 'e', 'f'];
const words = ['red', 'green', 'blue', 'apple', 'pie', 'car'];
const pick = <T>(xs: T[], k: number) => [...xs].sort(() => Math.random() - 0.5).slice(0, k);
const run = `${process.pid}-${Date.now()}`;
for (let i = 0; ; i++) {
  // A post with 1–3 labels and up to 3 notes, in one commit.
  const post: CrashPost = {
    id: `p-${run}-${i}`,
    time: new Date().toISOString(),
    labels: pick(labels, 1 + (i % 3)),
    words: pick(words, 3),
  };
  await d.commit([
    postPut(post, 0),
    ...Array.from({ length: i % 4 }, (_, k) => notePut(post.id, `n-${run}-${i}-${k}`)),
  ]);
  const some = await d.list({
    collection: 'posts',
    index: 'time',
    prefix: ['b'],
    direction: i % 2 ? 'asc' : 'desc',
    limit: 1,
  });
  const target = some[0];
  if (target && i % 3 === 0) {
    // Relabel.
    const p = target.doc as unknown as CrashPost;
    await d.commit([postPut({ ...p, labels: pick(labels, 1 + (i % 2)), words: pick(words, 2) }, target.version)]);
  } else if (target && i % 3 === 1) {
    // Delete a post with all its notes, in one commit.
    const notes = await d.list({
      collection: 'notes',
      index: 'post',
      prefix: [target.id],
      direction: 'asc',
      limit: 1000,
    });
    const ops: WriteOp[] = [{ type: 'delete', collection: 'posts', id: target.id, expect: target.version }];
    for (const n of notes) ops.push({ type: 'delete', collection: 'notes', id: n.id, expect: n.version });
    await d.commit(ops);
  }
  if (i % 100 === 99) process.stdout.write(`${i + 1}\n`);
}

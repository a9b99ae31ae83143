/**
 * One measured run of the io bench in its own process, so peak RSS is this run's alone:
 * `node --import tsx test/bench/io-child.ts <wxr|blogger|raw-wxr|export-FORMAT> <posts> <db file>` prints one JSON line.
 */
import Database from 'better-sqlite3';
import { SaxesParser } from 'saxes';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { createBlogService } from '../../src/index.js';
import { exportBlog, importBlog, type ExportFormat } from '../../src/io/index.js';
import { bloggerFile, wxrFile } from '../io/generate.js';

const [what, count, filename] = process.argv.slice(2) as [string, string, string];
const posts = Number(count);
let peak = process.memoryUsage().rss;
const base = peak;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
const t0 = performance.now();
const cpu0 = process.cpuUsage();
let items = 0;
let bytes = 0;

let retainedMb = 0;
/** The JS heap still in use after a full collection: what the run holds on to, apart from garbage not yet collected. */
const retained = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

if (what === 'wxr' || what === 'blogger') {
  const service = createBlogService({ driver: sqliteDriver({ filename }) });
  const report = await importBlog(service, what === 'wxr' ? wxrFile(posts) : bloggerFile(posts));
  items = report.created.posts + report.created.comments;
  retainedMb = retained();
  await service.close();
} else if (what === 'raw-wxr') {
  // The raw baseline: the same file through saxes alone, each post and its comments inserted with plain
  // prepared statements, one transaction per post (as the importer commits a post, then its comments).
  const db = new Database(filename);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(
    'CREATE TABLE posts (id TEXT PRIMARY KEY, doc TEXT NOT NULL); CREATE TABLE comments (id TEXT PRIMARY KEY, post_id TEXT NOT NULL, doc TEXT NOT NULL); CREATE INDEX comments_post ON comments (post_id, id);',
  );
  const insPost = db.prepare('INSERT INTO posts (id, doc) VALUES (?, ?)');
  const insComment = db.prepare('INSERT INTO comments (id, post_id, doc) VALUES (?, ?, ?)');
  const parser = new SaxesParser({ xmlns: true });
  let item: Record<string, string> | undefined;
  let comments: Array<Record<string, string>> = [];
  let comment: Record<string, string> | undefined;
  let text = '';
  parser.on('opentag', (t) => {
    text = '';
    if (t.local === 'item') item = {};
    else if (t.local === 'comment') comment = {};
  });
  parser.on('text', (t) => (text += t));
  parser.on('cdata', (t) => (text += t));
  parser.on('closetag', (t) => {
    if (t.local === 'comment' && comment) {
      comments.push(comment);
      comment = undefined;
    } else if (t.local === 'item' && item) {
      const post = item;
      const list = comments;
      db.transaction(() => {
        insPost.run(post.post_id, JSON.stringify(post));
        for (const c of list) insComment.run(`${post.post_id}:${c.comment_id}`, post.post_id, JSON.stringify(c));
      })();
      items += 1 + list.length;
      item = undefined;
      comments = [];
    } else if (comment) comment[t.local] = text;
    else if (item) item[t.local] = text;
  });
  for await (const chunk of wxrFile(posts)) parser.write(chunk);
  parser.close();
  db.close();
} else if (what.startsWith('export-')) {
  const service = createBlogService({ driver: sqliteDriver({ filename }) });
  const blog = await service.blogs.getByUrl({ url: 'https://gen.example.test/' });
  for await (const chunk of exportBlog(service, blog.id, { format: what.slice(7) as ExportFormat }))
    bytes += chunk.length;
  items = blog.posts.totalItems;
  await service.close();
}
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);
const cpu = process.cpuUsage(cpu0);
console.log(
  JSON.stringify({
    ms: performance.now() - t0,
    cpuMs: (cpu.user + cpu.system) / 1000,
    items,
    bytes,
    peakMb: peak / 2 ** 20,
    retainedMb,
    growthMb: (peak - base) / 2 ** 20,
  }),
);

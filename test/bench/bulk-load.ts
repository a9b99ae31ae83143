/**
 * Loading a blog of a million posts for the bench in minutes rather than hours: the records, index keys and
 * search tokens `service.posts.insert` stores (src/store/records.ts `put`, the same path rule), committed
 * through the driver a batch at a time, and the label counters written once at the end. The 10k and 100k
 * runs load through `posts.insert` itself; test/bench/bulk-load.test.ts checks both give the same store.
 */
import type { BlogService } from '../../src/index.js';
import { internalsOf } from '../../src/service/internals.js';
import { labelId, put, type LabelRecord, type PostRecord } from '../../src/store/records.js';
import { slugify } from '../../src/rules/text.js';
import type { Generator } from '../drivers/sqlite/bench-data.js';

export interface Loaded {
  blogId: string;
  ids: string[];
}

/** Posts `gen.post(0..n-1)` into a new blog, as the service would store them; `batch` posts per commit. */
export async function bulkLoad(
  service: BlogService,
  gen: Generator,
  n: number,
  batch = 1000,
  log?: (done: number) => void,
): Promise<Loaded> {
  const { core } = internalsOf(service)!;
  const owner = await service.users.insert({ body: { displayName: 'Bench author' } });
  const blogId = (
    await service.blogs.insert({
      body: { name: 'Bench', url: `https://bench-${Date.now()}.example/` },
      ownerId: owner.id!,
    })
  ).id!;
  const ids: string[] = new Array(n);
  const paths = new Set<string>();
  const counts = new Map<string, LabelRecord>();
  for (let i = 0; i < n; i += batch) {
    const ops = [];
    for (let k = i; k < Math.min(n, i + batch); k++) {
      const p = gen.post(k);
      const now = core.nowIso();
      const record: PostRecord = {
        id: core.newId(),
        blogId,
        authorId: owner.id!,
        status: p.draft ? 'DRAFT' : 'LIVE',
        title: p.title,
        content: p.content,
        labels: p.labels,
        readerComments: 'ALLOW',
        published: p.published,
        updated: now,
        rev: 1,
        liveComments: 0,
        allComments: 0,
      };
      if (!p.draft) record.path = pathOf(record, paths);
      ids[k] = record.id;
      ops.push(put('posts', record, 0));
      for (const label of record.labels) {
        const id = labelId(blogId, label);
        const c = counts.get(id) ?? { id, blogId, label, live: 0, all: 0 };
        c.all++;
        if (record.status === 'LIVE') c.live++;
        counts.set(id, c);
      }
    }
    await core.commit(ops);
    log?.(Math.min(n, i + batch));
  }
  await core.commit([...counts.values()].map((c) => put('labels', c, 0)));
  return { blogId, ids };
}

/** content.ts `withPath`: /YYYY/MM/slug.html, then _2, _3… for the slugs already taken. */
function pathOf(p: PostRecord, taken: Set<string>): string {
  const base = `/${p.published!.slice(0, 4)}/${p.published!.slice(5, 7)}/${slugify(p.title, 'post')}`;
  for (let n = 1; ; n++) {
    const path = n === 1 ? `${base}.html` : `${base}_${n}.html`;
    if (!taken.has(path)) {
      taken.add(path);
      return path;
    }
  }
}

/**
 * blogcore on the memory driver vs the raw in-memory baseline doing the same work: a Map of posts, sorted
 * arrays of [time, id] for the published and updated orders and per label, binary-searched for keyset
 * pages, and an inverted word index for search — the indexes blogcore keeps, written by hand.
 * docs/design.md §14 sets no read target for the memory driver; its insert is held to the general ≤ 1.2×.
 */
import { createBlogService } from '../../src/index.js';
import { memoryDriver } from '../../drivers/memory/index.js';
import { printGrowth, printTable, time, type BenchContext, type Row, type Timing } from './harness.js';
import { TARGETS } from './targets.js';

interface RawPost {
  id: string;
  title: string;
  content: string;
  labels: string[];
  published: string;
  updated: string;
}

/** The baseline: what a hand-written in-memory blog store would do, nothing more. */
function sortedInsert(list: Array<[string, string]>, key: [string, string]) {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const m = list[mid]!;
    if (m[0] < key[0] || (m[0] === key[0] && m[1] < key[1])) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, key);
}

class RawStore {
  posts = new Map<string, RawPost>();
  order: Array<[string, string]> = []; // [published, id], ascending
  byUpdated: Array<[string, string]> = [];
  byLabel = new Map<string, Array<[string, string]>>();
  words = new Map<string, Set<string>>();

  insert(p: RawPost) {
    this.posts.set(p.id, structuredClone(p));
    sortedInsert(this.order, [p.published, p.id]);
    sortedInsert(this.byUpdated, [p.updated, p.id]);
    for (const l of p.labels) {
      let list = this.byLabel.get(l);
      if (!list) this.byLabel.set(l, (list = []));
      sortedInsert(list, [p.published, p.id]);
    }
    const text = `${p.title} ${p.content.replace(/<[^>]*>/g, ' ')} ${p.labels.join(' ')}`.toLowerCase();
    for (const w of new Set(text.match(/[a-z0-9]+/g))) {
      let set = this.words.get(w);
      if (!set) this.words.set(w, (set = new Set()));
      set.add(p.id);
    }
  }

  get(id: string) {
    return JSON.stringify(this.posts.get(id));
  }

  /** Newest first, strictly before the cursor. */
  page(limit: number, before?: [string, string]) {
    let end = this.order.length;
    if (before) {
      let lo = 0;
      let hi = this.order.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const m = this.order[mid]!;
        if (m[0] < before[0] || (m[0] === before[0] && m[1] < before[1])) lo = mid + 1;
        else hi = mid;
      }
      end = lo;
    }
    const out: RawPost[] = [];
    for (let i = end - 1; i >= 0 && out.length < limit; i--) out.push(this.posts.get(this.order[i]![1])!);
    return JSON.stringify(out);
  }
}

const words = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore'.split(
  ' ',
);
function content(i: number) {
  const parts: string[] = [];
  for (let j = 0; j < 300; j++) parts.push(words[(i * 7 + j * 13) % words.length]!);
  return `<p>${parts.join(' ')}</p>`;
}

export default async function run(ctx: BenchContext): Promise<void> {
  const sizes = (ctx.args.sizes ?? (ctx.quick ? '2000' : '10000,100000')).split(',').map(Number);
  const rows: Row[] = [];
  const growth: Record<string, Array<[number, Timing]>> = { 'blogcore first page': [], 'blogcore deep page': [] };
  for (const n of sizes) {
    let clock = Date.parse('2020-01-01T00:00:00Z');
    const service = createBlogService({ driver: memoryDriver(), now: () => new Date(clock) });
    await service.users.insert({ body: { id: 'u', displayName: 'U' } });
    const blog = await service.blogs.insert({ body: { name: 'Bench', url: 'https://bench.example/' }, ownerId: 'u' });
    const raw = new RawStore();
    const ids: string[] = [];
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      clock += 1000;
      const post = await service.posts.insert({
        blogId: blog.id,
        body: { title: `Post ${i}`, content: content(i), labels: [`l${i % 40}`] },
      });
      ids.push(post.id);
      raw.insert({
        id: post.id,
        title: post.title,
        content: post.content!,
        labels: post.labels!,
        published: post.published!,
        updated: post.updated,
      });
    }
    console.log(`(memory: loaded ${n} posts in ${((performance.now() - t0) / 1000).toFixed(1)} s, both stores)`);

    const pick = (i: number) => ids[(i * 7919) % ids.length]!;
    const get = {
      ours: await time((i) => service.posts.get({ blogId: blog.id, postId: pick(i) }), ctx.budgetMs),
      raw: await time((i) => raw.get(pick(i)), ctx.budgetMs),
    };
    rows.push({ op: 'get', size: n, ...get });

    const first = {
      ours: await time(() => service.posts.list({ blogId: blog.id, maxResults: 20 }), ctx.budgetMs),
      raw: await time(() => raw.page(20), ctx.budgetMs),
    };
    rows.push({ op: 'list first page (20)', size: n, ...first });

    // A token and a raw cursor halfway down the list.
    let token: string | undefined;
    for (let seen = 0; seen < n / 2; seen += 500) {
      token = (await service.posts.list({ blogId: blog.id, maxResults: 500, fetchBodies: false, pageToken: token }))
        .nextPageToken;
    }
    const mid = raw.order[raw.order.length - Math.floor(n / 2) - 1]!;
    const deep = {
      ours: await time(() => service.posts.list({ blogId: blog.id, maxResults: 20, pageToken: token }), ctx.budgetMs),
      raw: await time(() => raw.page(20, mid), ctx.budgetMs),
    };
    rows.push({ op: 'list page 50% deep (20)', size: n, ...deep });
    growth['blogcore first page']!.push([n, first.ours]);
    growth['blogcore deep page']!.push([n, deep.ours]);

    let k = 0;
    const insert = {
      ours: await time(() => {
        clock += 1000;
        return service.posts.insert({
          blogId: blog.id,
          body: { title: `New ${k++}`, content: content(k), labels: ['new'] },
        });
      }, ctx.budgetMs),
      raw: await time(() => {
        clock += 1000;
        const at = new Date(clock).toISOString();
        const post = {
          id: `raw${k++}`,
          title: `New ${k}`,
          content: content(k),
          labels: ['new'],
          published: at,
          updated: at,
        };
        raw.insert(post);
        return JSON.stringify(post);
      }, ctx.budgetMs),
    };
    rows.push({ op: 'insert', size: n, ...insert, target: TARGETS.write });
    await service.close();
  }
  printTable('memory driver: blogcore vs Map + sorted array', rows);
  printGrowth('memory driver: cost by size', growth);
}

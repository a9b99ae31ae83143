/**
 * labels.list (an extension): a blog's labels with their post counts, read from the counters that post
 * writes keep (src/store/label-counts.ts), keyset-paged by label. Below AUTHOR view the walk is over the `live`
 * index, so a label only drafts or trashed posts carry is never visited, let alone shown.
 */
import { seesDrafts, type Actor } from '../rules/access.js';
import type { Core } from '../core/core.js';
import { shortHash } from '../util/ids.js';
import { listOf, page } from '../core/paging.js';
import type { LabelsListParams } from '../schema/params.js';
import { labelsParams as params } from '../schema/labels.js';
import type { Label, LabelList } from '../schema/resources.js';

export function labelsApi(core: Core, actor: Actor) {
  return {
    async list(input: LabelsListParams): Promise<LabelList> {
      const p = core.parse(params.labelsList, input);
      const s = await core.reader(actor, p.blogId, p.view);
      // Counts of drafts, scheduled and trashed posts (`allPosts`) are for the views that see those.
      const all = seesDrafts(s.view);
      // Due scheduled posts go LIVE first, so their labels count.
      await core.promoteDue();
      const pg = await page(
        core.driver,
        {
          collection: 'labels',
          index: all ? 'blog' : 'live',
          prefixes: [[p.blogId]],
          direction: 'asc',
          fingerprint: shortHash(JSON.stringify(['labels', p.blogId, all])),
        },
        p.maxResults ?? 100,
        p.pageToken,
      );
      const items: Label[] = pg.items.map((h) => {
        const l = h.doc;
        return { kind: 'blogcore#label', name: l.label, livePosts: l.live, ...(all ? { allPosts: l.all } : {}) };
      });
      return listOf('blogcore#labelList', items, pg, [
        ...items.map((i) => `${i.name}:${i.livePosts}:${i.allPosts ?? ''}`),
        s.view,
      ]);
    },
  };
}

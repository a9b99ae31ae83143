/**
 * `blogcore` + `blogcore/idb` as a browser app bundles them: no Node built-ins anywhere in the core or the
 * driver, and the calls browsers rarely make kept out of the first download (src/util/lazy.ts).
 */
import { expect, it } from 'vitest';
import { browserBundleInputs, NODE_BUILTIN, splitBrowserBundle } from '../browser/bundle.js';

const APP = "export * from './src/index.ts';\nexport * from './drivers/idb/index.ts';\n";

it('bundles src/index.ts + drivers/idb for the browser platform without Node built-ins', async () => {
  const { errors, inputs } = await browserBundleInputs(APP);
  expect(errors).toEqual([]);
  expect(inputs).toContain('drivers/idb/index.ts');
  expect(inputs.filter((path) => NODE_BUILTIN.test(path))).toEqual([]);
});

/**
 * What loads on first use, by the module its chunk is loaded through (src/util/lazy.ts): the back office's calls
 * (src/resources/back-office.ts) through one module, so the code they share with the first download stays in few
 * chunks; writing a comment (its limits and rules); the comment sanitizer with js-xss; event sharing (only for drivers that can watch a store, not
 * IndexedDB); the scheduler; the search terms a first pull leaves for after it; the store upgrade; IndexedDB's media bytes, its search and label postings (loaded by the
 * first search, list by label, or write of a searchable collection) and its database upgrade. Media's calls (its picture checks and hashing) are the back
 * office's.
 */
const LAZY: Record<string, string[]> = {
  'drivers/idb/blobs.ts': ['drivers/idb/blobs.ts'],
  'drivers/idb/search.ts': ['drivers/idb/search.ts'],
  'drivers/idb/segments.ts': [], // (with search.ts's chunk, in one they share)
  'drivers/idb/key-postings.ts': [], // (label postings: in the chunk search and segments share)
  // An open that must build or upgrade the database: a new one, a new schema, an older layout (and only for
  // that, the builders of layouts 3 and 4's label entries).
  'drivers/idb/upgrade.ts': ['drivers/idb/upgrade.ts'],
  'drivers/idb/keyed-upgrade.ts': ['drivers/idb/keyed-upgrade.ts'],
  'node_modules/linkedom/esm/index.js': [], // (a DOM for writing together where there is none: never in a browser)
  'src/core/event-share.ts': ['src/core/event-share.ts'],
  'src/core/scheduler.ts': ['src/core/scheduler.ts'],
  // Search terms a replica's first pull left for after it: loaded when a blog's mark says so.
  'src/core/later-terms.ts': ['src/core/later-terms.ts'],
  // Writing together: Yjs, the editor's schema and the HTML codec load with the first collab call.
  'src/resources/collab.ts': [
    'src/resources/collab.ts',
    'src/collab/document.ts',
    'src/collab/html.ts',
    'src/collab/presence.ts',
    'src/schema/collab.ts',
  ],
  'src/resources/back-office.ts': [
    'src/resources/blog-admin.ts',
    'src/resources/changes.ts',
    'src/resources/comment-moderation.ts',
    'src/core/comment-visibility.ts',
    'src/schema/blog-admin.ts',
    'src/schema/changes.ts',
    'src/schema/comment-moderation.ts',
    'src/schema/labels.ts',
    'src/schema/members.ts',
    'src/schema/pageviews.ts',
    'src/schema/revisions.ts',
    'src/schema/userinfos.ts',
    'src/resources/labels.ts',
    'src/media/service.ts',
    'src/media/images.ts',
    'src/resources/members.ts',
    'src/resources/pages.ts',
    'src/resources/pageviews.ts',
    'src/resources/revisions.ts',
    'src/resources/userinfos.ts',
  ],
  // Comments from the public: the limits and their counters load with the first comment written (their rules,
  // src/rules/comments.ts, in a chunk shared with the back office's moderation).
  'src/resources/comment-insert.ts': [
    'src/resources/comment-insert.ts',
    'src/resources/comment-admission.ts',
    'src/core/comment-gate.ts',
  ],
  'src/rules/sanitize.ts': ['src/rules/sanitize.ts'],
  'src/store/upgrade.ts': ['src/store/upgrade.ts'],
};

it("keeps the back office's calls out of the first download, in chunks loaded on first use", async () => {
  const { first, lazy } = await splitBrowserBundle(APP);
  const firstInputs = first.flatMap((c) => Object.keys(c.inputs));
  expect(firstInputs).toContain('drivers/idb/index.ts');
  expect(lazy.flatMap((c) => (c.loads ? [c.loads] : [])).sort()).toEqual(Object.keys(LAZY).sort());
  for (const [loads, modules] of Object.entries(LAZY)) {
    expect(modules.filter((path) => firstInputs.includes(path))).toEqual([]);
    expect(Object.keys(lazy.find((c) => c.loads === loads)!.inputs)).toEqual(expect.arrayContaining(modules));
  }
  // What every write needs stays in the first download: label counters, revision capture, the record cache.
  for (const path of ['src/store/label-counts.ts', 'src/core/revision-capture.ts', 'src/core/record-cache.ts'])
    expect(firstInputs).toContain(path);
  // The postings code search and writes share (some 9 KB minified) loads with the first of them.
  for (const path of ['drivers/idb/postings.ts', 'drivers/idb/segments.ts', 'drivers/idb/key-postings.ts'])
    expect(firstInputs).not.toContain(path);
  // Yjs and TipTap come with writing together, not before.
  expect(
    firstInputs.filter((path) => /node_modules\/(yjs|@tiptap|y-protocols|prosemirror|linkedom)/.test(path)),
  ).toEqual([]);
  // Nor do the comment rules and address parsing.
  expect(firstInputs.filter((path) => /src\/rules\/comments\.ts|src\/util\/addresses/.test(path))).toEqual([]);
  // Media's checks and hashing (image-size, @noble/hashes) load with its calls, not before.
  expect(firstInputs.filter((path) => /image-size|@noble|src\/media\/images/.test(path))).toEqual([]);
});

/**
 * The command line. `blogcore export --format site`: the static site in a folder, then a second run into the
 * same folder after an edit and a deletion, which rewrites only the files of those two posts and the list pages
 * that name them (plus the sitemap and feeds), leaves every other file untouched, and says what it wrote.
 * `blogcore serve --site`: the site at `/`, the API under `/v3`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, expect, test, vi } from 'vitest';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { createBlogService, type Post } from '../../src/index.js';
import { mayEnd } from '../../src/site/chunks.js';
import { start } from '../http/spawn.js';
import { seed } from './fixture.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist/cli.js');
if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run `npm run build` before these tests');
const dir = mkdtempSync(join(tmpdir(), 'blogcore-site-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every file of the export (not its manifest): its text and when it was last written. */
function snapshot(root: string): Map<string, { text: string; mtime: number }> {
  const out = new Map<string, { text: string; mtime: number }>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name !== '.blogcore-site.json')
        out.set(relative(root, p).split('\\').join('/'), { text: readFileSync(p, 'utf8'), mtime: statSync(p).mtimeMs });
    }
  };
  walk(root);
  return out;
}

/**
 * Runs `fill` with record ids that are the same on every run: the service's clock stands still (so ids differ
 * only in their random part, made once and then counted up) and the platform's random bytes come from a fixed
 * seed. Where list pages end depends on ids (`mayEnd`), so the post the test deletes is the same every run.
 */
async function withFixedIds<T>(fill: (now: () => Date) => Promise<T>): Promise<T> {
  let state = 0x2f6b_1c3d;
  const spy = vi.spyOn(globalThis.crypto, 'getRandomValues').mockImplementation((a: ArrayBufferView) => {
    const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    for (let i = 0; i < bytes.length; i++) {
      state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
      bytes[i] = state >>> 24;
    }
    return a;
  });
  try {
    return await fill(() => new Date(Date.UTC(2026, 10, 1)));
  } finally {
    spy.mockRestore();
  }
}

const listed = (stdout: string, verb: string) =>
  stdout
    .split('\n')
    .filter((l) => l.startsWith(`  ${verb} `))
    .map((l) => l.slice(verb.length + 3));
const isList = (file: string) => /^(index\.html|page\/|search\/label\/|\d{4}\/\d{2}\/(index\.html|page\/))/.test(file);
const articles = (html: string) => [...html.matchAll(/<li><article><h2><a href="([^"]+)"/g)].map((m) => m[1]!);

test('a second export rewrites only what changed: the edited and deleted posts and the list pages that name them', async () => {
  const db = join(dir, 'blog.db');
  const out = join(dir, 'site');
  const seeded = await withFixedIds(async (now) => {
    const made = createBlogService({ driver: sqliteDriver({ filename: db }), now });
    const s = await seed(made, 'https://notes.example/');
    await made.close();
    return s;
  });

  const first = run('export', '--db', db, '--blog', 'https://notes.example/', '--format', 'site', '--out', out);
  expect(first.stderr).toBe('');
  expect(first.code).toBe(0);
  expect(first.stdout).toContain('everything rendered');
  const before = snapshot(out);
  expect(listed(first.stdout, 'wrote').sort()).toEqual([...before.keys()].sort());
  const pathOf = (p: Post) => new URL(p.url!).pathname;
  const fileOf = (p: Post) => pathOf(p).slice(1);

  // The post to delete (the same one every run: the ids are fixed): one that ends no list page, on pages that keep more than enough posts without it.
  const edited = seeded.posts.find((p) => p.title === 'Field note 10')!;
  const deleted = seeded.posts.find(
    (p) =>
      /^Field note \d+$/.test(p.title) &&
      ![edited.id, seeded.chatty.id].includes(p.id) &&
      p.title !== 'Field note 37' &&
      !mayEnd(p.id, 10) &&
      [...before]
        .filter(([f, v]) => isList(f) && v.text.includes(`href="${pathOf(p)}"`))
        .every(([f, v]) => {
          // A first page holds at least 10 posts, a later one 5, and ends by force at 40 or 35: without this
          // post each still holds enough and none ended by force, so where the page ends does not move (lists
          // are cut at posts chosen by id, once a page holds enough).
          const shown = articles(v.text);
          const first = !f.includes('page/');
          return (
            shown.length > (first ? 10 : 5) && shown.length < (first ? 40 : 35) && shown[shown.length - 1] !== pathOf(p)
          );
        }),
  )!;
  expect(deleted).toBeDefined();
  const service = createBlogService({ driver: sqliteDriver({ filename: db }) });
  await service.posts.patch({ blogId: seeded.blogId, postId: edited.id, body: { title: 'Field note 10, revised' } });
  await service.posts.delete({ blogId: seeded.blogId, postId: deleted.id });
  await service.close();

  const second = run('export', '--db', db, '--blog', seeded.blogId, '--format', 'site', '--out', out);
  expect(second.code).toBe(0);
  expect(second.stdout).toContain('only what changed since the last export');
  const after = snapshot(out);
  const changed = [...after].filter(([f, v]) => before.get(f)?.text !== v.text).map(([f]) => f);
  const gone = [...before.keys()].filter((f) => !after.has(f));

  // It says exactly what it wrote and removed, and touched nothing else.
  expect(listed(second.stdout, 'wrote').sort()).toEqual(changed.sort());
  expect(listed(second.stdout, 'removed')).toEqual(gone);
  for (const [f, v] of after) if (!changed.includes(f)) expect(v.mtime, f).toBe(before.get(f)!.mtime);

  // What changed: the edited post, the deleted one (removed), the list pages naming either, the sitemap and feeds.
  expect(gone).toEqual([fileOf(deleted)]);
  const names = (text: string | undefined, p: Post) => text?.includes(`href="${pathOf(p)}"`) === true;
  const allowed = new Set([
    fileOf(edited),
    'sitemap.xml',
    'feeds/posts/default.xml',
    'feeds/posts/rss.xml',
    ...[...before, ...after]
      .filter(([f, v]) => isList(f) && (names(v.text, edited) || names(v.text, deleted)))
      .map(([f]) => f),
  ]);
  expect(changed.filter((f) => !allowed.has(f))).toEqual([]);
  // …and each list page that names the edited post shows its new title.
  const naming = [...after].filter(([f, v]) => isList(f) && names(v.text, edited)).map(([f]) => f);
  expect(naming.length).toBeGreaterThanOrEqual(3); // home, its month, its label
  for (const f of [fileOf(edited), ...naming]) {
    expect(changed).toContain(f);
    expect(after.get(f)!.text).toContain('Field note 10, revised');
  }
  for (const [f, v] of after) if (isList(f)) expect(names(v.text, deleted), f).toBe(false);
  // The other posts' pages were not rewritten.
  const postFiles = [...after.keys()].filter((f) => /^\d{4}\/\d{2}\/(?!index\.html)[^/]+\.html$/.test(f));
  expect(postFiles.filter((f) => changed.includes(f))).toEqual([fileOf(edited)]);

  // Nothing changed since: nothing is written.
  const third = run('export', '--db', db, '--blog', seeded.blogId, '--format', 'site', '--out', out);
  expect(third.stdout).toContain('0 files written, 0 removed');
}, 60_000);

test('--format site needs --out', () => {
  const r = run('export', '--db', join(dir, 'blog.db'), '--blog', 'https://notes.example/', '--format', 'site');
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('--format site needs --out <dir>');
});

test("serve --site answers the blog's pages at / and the API under /v3", async () => {
  const p = start([
    'dist/cli.js',
    'serve',
    '--site',
    '--quiet',
    '--db',
    join(dir, 'served.db'),
    '--port',
    '0',
    '--host',
    '127.0.0.1',
  ]);
  try {
    const site = (await p.waitFor(/Site: (http:\/\/127\.0\.0\.1:\d+)\//))[1]!;
    const home = await fetch(`${site}/`);
    expect(home.status).toBe(200);
    const text = await home.text();
    expect(text).toContain('<p class="site-name"><a href="/">blogcore demo</a></p>');
    const post = /<h2><a href="([^"]+)">Hello, blogcore<\/a><\/h2>/.exec(text)![1]!;
    expect((await fetch(site + post)).status).toBe(200);
    expect(text).not.toContain('A draft in progress');
    const api = await fetch(`${site}/v3/`);
    expect(((await api.json()) as { kind: string }).kind).toBe('blogcore#api');
    expect((await fetch(`${site}/no-such-thing`)).status).toBe(404);
  } finally {
    await p.stop();
  }
});

/**
 * The static export never writes outside its folder, whatever an imported blog names its pages: crafted
 * WordPress, Blogger, Ghost and blogcore-json files give posts, pages, labels and pictures paths that decode to
 * `..`, `/`, `\`, NUL or names too long for the file system. Through every writer (the one docs/site.md shows,
 * the command's own, a recording one, and the `blogcore` command itself) the hostile ones are skipped and
 * reported, every other file is written, and nothing appears outside the folder.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { createBlogService, type BlogService } from '../../src/index.js';
import { importBlog } from '../../src/io/index.js';
import { exportSite, type SiteExportReport, type SiteFiles, type SiteManifest } from '../../src/site/index.js';
import { folderFiles } from '../../src/cli/site.js';
import { put } from '../../src/store/records.js';
import type { StorageDriver } from '../../src/store/driver.js';
import type { PageRecord, PostRecord } from '../../src/store/records.js';
import { makePng } from '../media/pictures.js';
import { requireBuild, ROOT } from '../http/spawn.js';

const dir = mkdtempSync(join(tmpdir(), 'blogcore-export-paths-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Eight steps up from a post's folder: deep enough to leave any export folder below `DEPTH` folders of the sandbox. */
const UP = '..%2f'.repeat(8);
const DEPTH = 12;
const LONG = 'a'.repeat(300);
const WIDE = 'é'.repeat(200); // 200 characters, 400 UTF-8 bytes: over every common file system's 255

const wxr = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel><title>WP</title><link>https://wp.example.test</link>
<wp:author><wp:author_id>1</wp:author_id><wp:author_login>ann</wp:author_login><wp:author_display_name>Ann</wp:author_display_name></wp:author>
${[
  ['1', 'post', `/2020/01/${UP}PWNED-wxr.html`, `../../../../../../../../PWNED-wxr-label`],
  ['2', 'page', `/p/${UP}PWNED-wxr-page.html`, ''],
  ['3', 'post', `/2020/01/${LONG}.html`, 'fine'],
  ['4', 'post', '/2020/01/kept.html', 'fine'],
]
  .map(
    ([id, type, path, label]) =>
      `<item><title>Item ${id}</title><dc:creator>ann</dc:creator><content:encoded><![CDATA[<p>Item ${id}</p>]]></content:encoded><wp:post_id>${id}</wp:post_id><wp:post_date_gmt>2020-01-0${id} 10:00:00</wp:post_date_gmt><wp:status>publish</wp:status><wp:post_type>${type}</wp:post_type>${label ? `<category domain="post_tag" nicename="x">${label}</category>` : ''}<wp:postmeta><wp:meta_key>blogcore_path</wp:meta_key><wp:meta_value>${path}</wp:meta_value></wp:postmeta></item>`,
  )
  .join('\n')}
</channel></rss>`;

const bloggerEntry = (n: number, filename: string, label: string) =>
  `<entry><id>tag:blogger.com,1999:blog-9.post-${n}</id><blogger:type>POST</blogger:type><blogger:status>LIVE</blogger:status><author><name>Bo</name><uri>https://www.blogger.com/profile/9</uri></author><title>Entry ${n}</title><content type='html'>&lt;p&gt;Entry ${n}&lt;/p&gt;</content><published>2020-01-0${n}T10:00:00.000Z</published><updated>2020-01-0${n}T10:00:00.000Z</updated><category term='${label}'/><blogger:filename>${filename}</blogger:filename></entry>`;
const blogger = `<?xml version='1.0' encoding='utf-8'?>
<feed xmlns='http://www.w3.org/2005/Atom' xmlns:blogger='http://schemas.google.com/blogger/2018'>
<id>tag:blogger.com,1999:blog-9.archive</id><title type='text'>Blogger</title><link rel='alternate' type='text/html' href='https://bo.blogspot.test/'/>
${bloggerEntry(1, `/2020/01/${'%2e%2e%5c'.repeat(8)}PWNED-blogger.html`, '..\\..\\..\\..\\..\\..\\..\\..\\PWNED-blogger-label')}
${bloggerEntry(2, '/2020/01/x%00PWNED-blogger-nul.html', WIDE)}
${bloggerEntry(3, '/2020/01/kept.html', 'fine')}
</feed>`;

const ghost = JSON.stringify({
  db: [
    {
      meta: { exported_on: 1767225600000, version: '5.75.0' },
      data: {
        posts: [1, 2].map((n) => ({
          id: `g${n}`,
          title: n === 1 ? 'Tagged badly' : 'Kept',
          slug: `s${n}`,
          html: `<p>Ghost ${n}</p>`,
          type: 'post',
          status: 'published',
          visibility: 'public',
          created_at: `2020-01-0${n}T09:00:00.000Z`,
          updated_at: `2020-01-0${n}T09:00:00.000Z`,
          published_at: `2020-01-0${n}T10:00:00.000Z`,
        })),
        users: [{ id: 'u1', name: 'Gus', slug: 'gus' }],
        tags: [
          { id: 't1', name: '../../../../../../../../PWNED-ghost-label' },
          { id: 't2', name: 'fine' },
        ],
        posts_tags: [
          { post_id: 'g1', tag_id: 't1' },
          { post_id: 'g2', tag_id: 't2' },
        ],
      },
    },
  ],
});

const BLOG = '01M8J1KAHVJN6V8D3EA6MS5H9K';
const jsonPost = (id: string, path: string, labels: string[], day: number) =>
  JSON.stringify({
    type: 'post',
    record: {
      id,
      authorId: 'ada',
      status: 'LIVE',
      title: `Post ${id}`,
      content: `<p>${id}</p>`,
      labels,
      published: `2020-01-0${day}T10:00:00Z`,
      updated: `2020-01-0${day}T10:00:00Z`,
      rev: 1,
      path,
    },
  });
const json = `{"format":"blogcore-json","version":1,"exported":"2026-11-28T00:00:00.000Z","blog":{"id":"${BLOG}","name":"Json","description":"","url":"https://json.example.test/","locale":{"language":"en","country":"","variant":""},"ownerId":"ada","published":"2020-01-01T00:00:00.000Z","updated":"2020-01-01T00:00:00.000Z"},"records":[
{"type":"user","record":{"id":"ada","displayName":"Ada","created":"2020-01-01T00:00:00.000Z"}},
${jsonPost('J1', `/2020/01/${'%2E%2E%2F'.repeat(8)}PWNED-json.html`, ['fine'], 1)},
${jsonPost('J2', '/C:/PWNED-json-drive.html', ['fine'], 2)},
${jsonPost('J3', '/2020/01/kept.html', ['fine'], 3)},
${jsonPost('J4', '/2020/01/kept.html/inner.html', ['fine'], 4)},
${jsonPost('J5', `/2020/${'%2e%2e/'.repeat(8)}dots.html`, ['fine'], 5)}
]}`;

interface Imported {
  service: BlogService;
  blogId: string;
  /** Paths of pages the file names that no file can hold, as the report names them. */
  hostile: string[];
  /** Files that must be written. */
  kept: string[];
}

/**
 * Imports no longer store such paths (test/io/hostile-paths.test.ts); a store written before they were checked
 * may hold them, so they are put back here, record by record, as such a store has them.
 */
async function plant(driver: StorageDriver, service: BlogService, blogId: string, paths: Record<string, string>) {
  for (const collection of ['posts', 'pages'] as const) {
    const list =
      collection === 'posts'
        ? await service.posts.list({ blogId, maxResults: 50 })
        : await service.pages.list({ blogId, maxResults: 50 });
    for (const item of list.items ?? []) {
      const path = paths[item.title ?? ''];
      if (!path) continue;
      const stored = (await driver.get(collection, item.id!))!;
      await driver.commit([put(collection, { ...(stored.doc as unknown as PostRecord & PageRecord), path }, stored)]);
    }
  }
}

const IMPORTS: Record<string, () => Promise<Imported>> = {
  async wordpress() {
    const driver = memoryDriver();
    const service = createBlogService({ driver });
    const { blogId } = await importBlog(service, wxr, { format: 'wxr' });
    await plant(driver, service, blogId!, {
      'Item 1': `/2020/01/${UP}PWNED-wxr.html`,
      'Item 2': `/p/${UP}PWNED-wxr-page.html`,
      'Item 3': `/2020/01/${LONG}.html`,
    });
    return {
      service,
      blogId: blogId!,
      hostile: [
        `2020/01/${UP}PWNED-wxr.html`,
        `p/${UP}PWNED-wxr-page.html`,
        `2020/01/${LONG}.html`,
        `search/label/${encodeURIComponent('../../../../../../../../PWNED-wxr-label')}`,
      ],
      kept: ['2020/01/kept.html', 'search/label/fine.html', 'index.html', '2020/01/index.html'],
    };
  },
  async blogger() {
    const driver = memoryDriver();
    const service = createBlogService({ driver });
    const { blogId } = await importBlog(service, blogger, { format: 'blogger-atom' });
    await plant(driver, service, blogId!, {
      'Entry 1': `/2020/01/${'%2e%2e%5c'.repeat(8)}PWNED-blogger.html`,
      'Entry 2': '/2020/01/x%00PWNED-blogger-nul.html',
    });
    return {
      service,
      blogId: blogId!,
      hostile: [
        `2020/01/${'%2e%2e%5c'.repeat(8)}PWNED-blogger.html`,
        '2020/01/x%00PWNED-blogger-nul.html',
        `search/label/${encodeURIComponent('..\\..\\..\\..\\..\\..\\..\\..\\PWNED-blogger-label')}`,
        `search/label/${encodeURIComponent(WIDE)}`,
      ],
      kept: ['2020/01/kept.html', 'search/label/fine.html', 'index.html'],
    };
  },
  async ghost() {
    const service = createBlogService({ driver: memoryDriver() });
    const { blogId } = await importBlog(service, ghost, {
      format: 'ghost-json',
      blogUrl: 'https://ghost.example.test/',
    });
    return {
      service,
      blogId: blogId!,
      hostile: [`search/label/${encodeURIComponent('../../../../../../../../PWNED-ghost-label')}`],
      kept: ['2020/01/kept.html', '2020/01/tagged-badly.html', 'search/label/fine.html', 'index.html'],
    };
  },
  async 'blogcore-json'() {
    const driver = memoryDriver();
    const service = createBlogService({ driver });
    const { blogId } = await importBlog(service, json, { format: 'blogcore-json' });
    await plant(driver, service, blogId!, {
      'Post J1': `/2020/01/${'%2E%2E%2F'.repeat(8)}PWNED-json.html`,
      'Post J2': '/C:/PWNED-json-drive.html',
      'Post J5': `/2020/${'%2e%2e/'.repeat(8)}dots.html`,
    });
    // Pictures: one whose name no file system holds (skipped), one that is fine (written).
    const as = service.as({ userId: 'ada' });
    const wide = await as.media.upload({ blogId: blogId!, body: makePng(4, 3, 1), filename: `${WIDE}.png` });
    const fine = await as.media.upload({ blogId: blogId!, body: makePng(4, 3, 2), filename: 'fine.png' });
    await as.posts.insert({
      blogId: blogId!,
      body: { title: 'Pictures', content: `<img src="${wide.url}" alt=""><img src="${fine.url}" alt="">` },
    });
    return {
      service,
      blogId: blogId!,
      hostile: [
        `2020/01/${'%2E%2E%2F'.repeat(8)}PWNED-json.html`,
        'C:/PWNED-json-drive.html',
        `media/${blogId}/${wide.id}/${wide.filename}`,
      ],
      // (`%2e%2e/` is a `..` step to a URL parser: the post's url is `/dots.html`, below the folder.)
      kept: ['dots.html', 'search/label/fine.html', `media/${blogId}/${fine.id}/fine.png`],
    };
  },
};

/** The writer docs/site.md shows, as it is there: it joins each path to its folder and trusts it. */
function docsWriter(out: string): SiteFiles {
  return {
    async write(path, text) {
      await mkdir(dirname(join(out, path)), { recursive: true });
      await writeFile(join(out, path), text);
    },
    remove: (path) => rm(join(out, path), { force: true }),
    async writeBytes(path, bytes) {
      await mkdir(dirname(join(out, path)), { recursive: true });
      await writeFile(join(out, path), new Uint8Array(await new Response(bytes).arrayBuffer()));
    },
  };
}

/** Every path a writer is handed must be plain steps below its folder. */
function recordingWriter(seen: string[]): SiteFiles {
  const check = (path: string) => {
    seen.push(path);
    const steps = path.split(/[/\\]/);
    if (steps.some((s) => s === '' || s === '.' || s === '..') || /[\\\0]|^[a-z]:/i.test(path))
      throw new Error(`handed an unsafe path: ${path}`);
  };
  return {
    write: async (path) => check(path),
    remove: async (path) => check(path),
    writeBytes: async (path, bytes) => {
      check(path);
      await bytes.cancel();
    },
  };
}

/** A fresh export folder `DEPTH` folders deep inside its own sandbox, so any escape lands in the sandbox. */
function sandbox(name: string): { box: string; out: string } {
  const box = join(dir, name);
  const out = join(box, ...Array.from({ length: DEPTH }, (_, i) => `d${i}`), 'site');
  mkdirSync(out, { recursive: true });
  return { box, out };
}

function filesUnder(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out.push(relative(root, join(d, e.name)).split(sep).join('/'));
    }
  };
  walk(root);
  return out;
}

function expectSkipped(report: SiteExportReport, imported: Imported) {
  const skipped = new Map(report.skipped.map((s) => [s.path, s.reason]));
  for (const path of imported.hostile) expect(skipped.get(path), path).toMatch(/segment|path|drive/);
  for (const file of report.written) expect(file).not.toMatch(/PWNED|(^|\/)\.\.?(\/|$)/);
}

const WRITERS = {
  'the writer docs/site.md shows': docsWriter,
  "the command's folder writer": (out: string) => folderFiles(resolve(out)),
};

describe.each(Object.keys(IMPORTS))('a crafted %s import', (format) => {
  it.each(Object.keys(WRITERS) as (keyof typeof WRITERS)[])(
    'through %s: hostile paths are skipped and reported, the rest written, nothing outside the folder',
    async (writer) => {
      const imported = await IMPORTS[format]!();
      const { box, out } = sandbox(`${format}-${writer.length}`);
      const report = await exportSite(imported.service, { blogId: imported.blogId, files: WRITERS[writer](out) });
      expectSkipped(report, imported);
      // Nothing anywhere in the sandbox but the export's own files.
      const outsideRoot = relative(box, out).split(sep).join('/');
      const everything = filesUnder(box);
      expect(everything.filter((f) => !f.startsWith(`${outsideRoot}/`))).toEqual([]);
      expect(everything.filter((f) => f.includes('PWNED'))).toEqual([]);
      const written = filesUnder(out);
      for (const file of imported.kept) expect(written, file).toContain(file);
      expect(written.sort()).toEqual([...report.written].sort());
      await imported.service.close();
    },
  );

  it('hands a writer only plain paths below its folder, removals read back from a manifest included', async () => {
    const imported = await IMPORTS[format]!();
    const seen: string[] = [];
    const first = await exportSite(imported.service, { blogId: imported.blogId, files: recordingWriter(seen) });
    expectSkipped(first, imported);
    expect(seen.length).toBeGreaterThan(imported.kept.length);
    // A manifest left in the folder and edited to name files outside it: removing them is refused, not done.
    const tampered: SiteManifest = {
      ...first.manifest,
      signature: 'changed',
      files: { ...first.manifest.files, '../../victim.txt': 'x', 'a/../../victim.txt': 'x', 'C:\\victim.txt': 'x' },
    };
    seen.length = 0;
    const second = await exportSite(imported.service, {
      blogId: imported.blogId,
      files: recordingWriter(seen),
      previous: tampered,
    });
    expect(second.removed).toEqual([]);
    expect(second.skipped.map((s) => s.path)).toEqual(
      expect.arrayContaining(['../../victim.txt', 'a/../../victim.txt', 'C:\\victim.txt']),
    );
    expect(seen.filter((p) => p.includes('victim'))).toEqual([]);
    await imported.service.close();
  });
});

describe('writes that fail for one file', () => {
  it("a file system's refusal of one file (a post's folder is another post's file) skips that file only", async () => {
    const imported = await IMPORTS['blogcore-json']!();
    const { out } = sandbox('collide');
    const report = await exportSite(imported.service, { blogId: imported.blogId, files: folderFiles(resolve(out)) });
    // One of `2020/01/kept.html` and `2020/01/kept.html/inner.html` is written; the other cannot be, and says why.
    const pair = ['2020/01/kept.html', '2020/01/kept.html/inner.html'];
    const written = pair.filter((f) => report.written.includes(f));
    const skipped = report.skipped.filter((s) => pair.includes(s.path));
    expect(written).toHaveLength(1);
    expect(skipped).toHaveLength(1);
    expect(skipped[0]!.reason).toMatch(/^(ENOTDIR|EISDIR): /);
    expect(report.manifest.files[skipped[0]!.path]).toBeUndefined();
    expect(report.written).toEqual(expect.arrayContaining(['dots.html', 'index.html', 'search/label/fine.html']));
    await imported.service.close();
  });

  it('an error that is not about one file (a full disk) stops the export', async () => {
    const imported = await IMPORTS.ghost!();
    const full = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    const files: SiteFiles = { write: () => Promise.reject(full), remove: async () => {} };
    await expect(exportSite(imported.service, { blogId: imported.blogId, files })).rejects.toBe(full);
    await imported.service.close();
  });
});

describe('blogcore export --format site', () => {
  it('imports a crafted WordPress file, exports the rest, lists what it skipped and exits 0', () => {
    requireBuild();
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [join(ROOT, 'dist/cli.js'), ...args], { encoding: 'utf8', cwd: dir });
    const { box, out } = sandbox('cli');
    const file = join(dir, 'crafted.xml');
    writeFileSync(file, wxr);
    const db = join(dir, 'cli.db');
    const imported = cli('import', '--db', db, file);
    expect(imported.status, imported.stderr).toBe(0);
    const r = cli('export', '--db', db, '--blog', 'https://wp.example.test/', '--format', 'site', '--out', out);
    expect(r.status, r.stderr).toBe(0);
    // The import gave the hostile posts and page paths of their own (test/io/hostile-paths.test.ts); the label
    // that decodes to `..` steps is what the export skips.
    expect(r.stdout).toMatch(/files written, 0 removed, 1 skipped/);
    expect(r.stdout).toContain(
      `  skipped search/label/${encodeURIComponent('../../../../../../../../PWNED-wxr-label')} (a path segment holds a slash or backslash)`,
    );
    expect(r.stderr).toContain('1 file was not written');
    expect(filesUnder(box).filter((f) => f.includes('PWNED'))).toEqual([]);
    expect(readFileSync(join(out, '2020/01/kept.html'), 'utf8')).toContain('Item 4');
    expect(existsSync(join(out, '.blogcore-site.json'))).toBe(true);
    const outsideRoot = relative(box, out).split(sep).join('/');
    expect(filesUnder(box).filter((f) => !f.startsWith(`${outsideRoot}/`))).toEqual([]);
  }, 60_000);
});

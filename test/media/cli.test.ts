/**
 * The command line with pictures: `blogcore media add` and `media list`, `serve` serving them under /media,
 * `import --media` from a local server, and `export --media` restoring them into another store.
 */
import { execFile, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, start, type Proc } from '../http/spawn.js';
import { makePng, PICTURES } from './pictures.js';

requireBuild();
const dir = mkdtempSync(join(tmpdir(), 'blogcore-media-cli-'));
const procs: Proc[] = [];
let pictures: Server;
let port: number;
beforeAll(async () => {
  pictures = createServer((req, res) =>
    req.url === '/p.png' ? res.writeHead(200).end(makePng(30, 30, 42)) : res.writeHead(404).end(),
  );
  await new Promise<void>((r) => pictures.listen(0, '127.0.0.1', r));
  port = (pictures.address() as AddressInfo).port;
});
afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop('SIGKILL')));
  pictures.closeAllConnections();
  pictures.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = (...args: string[]) => {
  const r = spawnSync(process.execPath, ['dist/cli.js', ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};
/** As `run`, without blocking this process (its picture server must answer meanwhile). */
const runAsync = (...args: string[]) =>
  new Promise<{ code: number | null; stdout: string }>((resolve) => {
    execFile(process.execPath, ['dist/cli.js', ...args], { encoding: 'utf8' }, (error, stdout) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout }),
    );
  });

describe('blogcore media', () => {
  it('adds pictures, lists them, serve serves them; a file that is not a picture is named and refused', async () => {
    const db = join(dir, 'blog.db');
    const p = start(['dist/cli.js', 'serve', '--db', db, '--port', '0', '--host', '127.0.0.1', '--quiet']);
    procs.push(p);
    await p.waitFor(/Ctrl\+C stops the server/);
    const blogUrl = p.output().match(/Blog: +(\S+)/)![1]!;
    const base = new URL(blogUrl).origin;
    const blogId = blogUrl.split('/').pop()!;
    writeFileSync(join(dir, 'photo.jpg'), PICTURES.jpg);
    writeFileSync(join(dir, 'drawing.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    const added = run(
      'media',
      'add',
      join(dir, 'photo.jpg'),
      join(dir, 'drawing.svg'),
      '--db',
      db,
      '--blog',
      blogId,
      '--alt',
      'A gradient',
    );
    expect(added.code).toBe(1);
    expect(added.stdout).toMatch(/photo\.jpg → [0-9a-f]{64} {2}40×30 {2}\d+ bytes {2}photo\.jpg {2}\/media\//);
    expect(added.stderr).toContain('drawing.svg: The body is not a JPEG, PNG, GIF, WebP or AVIF picture');
    const listed = JSON.parse(run('media', 'list', '--db', db, '--blog', blogId, '--json').stdout) as Array<{
      url: string;
      alt: string;
    }>;
    expect(listed.map((m) => m.alt)).toEqual(['A gradient']);
    // The running server serves what another process added.
    const res = await fetch(`${base}${listed[0]!.url}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(PICTURES.jpg);
    expect(run('media', 'oops', '--db', db, '--blog', blogId).code).toBe(2);
  });

  it('import --media downloads the pictures; export --media carries them into another store', async () => {
    const wxr =
      '<?xml version="1.0"?><rss version="2.0" xmlns:wp="http://wordpress.org/export/1.2/" xmlns:dc="http://purl.org/dc/elements/1.1/" ' +
      'xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>T</title><link>http://t.example</link>' +
      '<wp:author><wp:author_login>ann</wp:author_login></wp:author><item><title>One</title><dc:creator>ann</dc:creator>' +
      `<content:encoded><![CDATA[<img src="http://127.0.0.1:${port}/p.png">]]></content:encoded><wp:post_id>1</wp:post_id>` +
      '<wp:status>publish</wp:status><wp:post_type>post</wp:post_type></item></channel></rss>';
    writeFileSync(join(dir, 'in.xml'), wxr);
    const db = join(dir, 'imported.db');
    const refused = await runAsync('import', join(dir, 'in.xml'), '--db', db, '--media');
    expect(refused.stdout).toContain('private, loopback or link-local');
    const done = await runAsync(
      'import',
      join(dir, 'in.xml'),
      '--db',
      db,
      '--media',
      '--allow-private-hosts',
      '127.0.0.1',
    );
    expect(done.code).toBe(0);
    expect(done.stdout).toContain('pictures:  1 stored, 0 already there');
    const out = join(dir, 'out.json');
    expect(
      run('export', '--db', db, '--blog', 'http://t.example/', '--format', 'blogcore-json', '--media', '--out', out)
        .code,
    ).toBe(0);
    const copy = run('import', out, '--db', join(dir, 'copy.db'), '--json');
    expect(JSON.parse(copy.stdout)).toMatchObject({ created: { posts: 1, media: 1 } });
  });
});

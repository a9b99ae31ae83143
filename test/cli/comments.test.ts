// `blogcore comments pending|moderate` (docs/comments.md "Moderation at scale"): the built CLI, dist/cli.js, on a
// SQLite file holding a spam run from one address beside a real reader's comment.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { createBlogService } from '../../src/index.js';
import { ROOT, requireBuild } from '../http/spawn.js';

let dir: string;
beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), 'blogcore-comments-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['dist/cli.js', 'comments', ...args], { cwd: ROOT, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const SPAMMER = '203.0.113.9';
const READER = '198.51.100.4';

/** A blog with 620 PENDING comments from SPAMMER (more than one call of comments.moderate) and one from READER. */
async function store(
  name: string,
  runLength = 620,
): Promise<{ db: string; blogId: string; count: () => Promise<Record<string, number>> }> {
  const db = join(dir, name);
  const open = () =>
    createBlogService({
      driver: sqliteDriver({ filename: db }),
      // The run is written here as fast as the test can: the limits themselves are tested elsewhere.
      commentLimits: { anonymous: { everySeconds: 1, burst: 1_000 } },
    });
  const service = open();
  await service.users.insert({ body: { id: 'ada', displayName: 'Ada' } });
  const blog = await service.blogs.insert({ body: { name: 'Notes', url: 'https://notes.example/' }, ownerId: 'ada' });
  const post = await service.posts.insert({ blogId: blog.id, body: { title: 'Hello' } });
  const anon = service.as(null);
  for (let i = 0; i < runLength; i++)
    await anon.comments.insert({
      blogId: blog.id,
      postId: post.id,
      body: { content: `<p>cheap pills &amp; more, offer ${i}</p>`, author: { displayName: 'Pills' } },
      clientAddress: SPAMMER,
    });
  await anon.comments.insert({
    blogId: blog.id,
    postId: post.id,
    body: { content: 'A kind word', author: { displayName: 'Kim' } },
    clientAddress: READER,
  });
  await service.close();
  const count = async () => {
    const s = open();
    try {
      const out: Record<string, number> = {};
      for (const status of ['PENDING', 'SPAM', 'LIVE'] as const) {
        let pageToken: string | undefined;
        do {
          const page = await s.comments.listByBlog({
            blogId: blog.id,
            status,
            maxResults: 500,
            ...(pageToken ? { pageToken } : {}),
          });
          for (const c of page.items) {
            const key = `${status} ${c.clientAddress}`;
            out[key] = (out[key] ?? 0) + 1;
          }
          pageToken = page.nextPageToken;
        } while (pageToken);
      }
      return out;
    } finally {
      await s.close();
    }
  };
  return { db, blogId: blog.id, count };
}

describe('blogcore comments', () => {
  it('pending lists the queue with addresses and says where most came from; moderate clears one address', async () => {
    const s = await store('queue.db');
    const listed = cli('pending', '--db', s.db, '--blog', 'https://notes.example/');
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines.length).toBe(621);
    expect(lines[0]!.split('\t')).toEqual([
      expect.any(String),
      expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      expect.stringMatching(/^post \S+$/),
      `Kim ${READER}`,
      'A kind word',
    ]);
    expect(lines[1]).toContain(`Pills ${SPAMMER}\tcheap pills & more, offer 619`);
    expect(listed.stderr).toContain('621 comments pending');
    expect(listed.stderr).toContain(`620 from ${SPAMMER} (comments moderate spam --address ${SPAMMER})`);

    const spam = cli('moderate', 'spam', '--db', s.db, '--blog', s.blogId, '--status', 'pending', '--address', SPAMMER);
    expect([spam.code, spam.stdout, spam.stderr]).toEqual([0, '620 comments marked as spam\n', '']);
    expect(await s.count()).toEqual({ [`SPAM ${SPAMMER}`]: 620, [`PENDING ${READER}`]: 1 });

    const json = JSON.parse(cli('pending', '--db', s.db, '--blog', s.blogId, '--json').stdout) as Array<{
      content: string;
      clientAddress: string;
    }>;
    expect(json.map((c) => [c.content, c.clientAddress])).toEqual([['A kind word', READER]]);

    const gone = cli('moderate', 'delete', '--db', s.db, '--blog', s.blogId, '--status', 'SPAM', '--json');
    expect([gone.code, JSON.parse(gone.stdout)]).toEqual([0, { action: 'delete', handled: 620 }]);
    const approved = cli('moderate', 'approve', '--db', s.db, '--blog', s.blogId, '--contains', 'KIND');
    expect(approved.stdout).toBe('1 comment approved\n');
    expect(await s.count()).toEqual({ [`LIVE ${READER}`]: 1 });
    expect(cli('pending', '--db', s.db, '--blog', s.blogId).stderr).toBe('0 comments pending\n');
  }, 120_000);

  it('answers a wrong call with one line pointing at its help, before opening the store', () => {
    const db = join(dir, 'never-made.db');
    const cases: Array<[string[], string]> = [
      [[], 'comments: pending or moderate <approve|spam|delete>'],
      [['purge'], 'comments: pending or moderate <approve|spam|delete>, not purge'],
      [['pending', '--db', db], 'comments pending: --db and --blog are required'],
      [['moderate', 'burn', '--db', db, '--blog', 'b'], 'comments moderate: approve, spam or delete, not burn'],
      [['moderate', 'spam', '--db', db, '--blog', 'b'], 'comments moderate: name the comments: --status, --address'],
      [
        ['moderate', 'spam', '--db', db, '--blog', 'b', '--status', 'PENDING,NOPE'],
        'comments moderate: --status is PENDING, SPAM, LIVE, EMPTIED, not NOPE',
      ],
      [['pending', '--db', db, '--blog', 'b', '--address', SPAMMER], 'comments pending: --status, --address'],
    ];
    for (const [args, message] of cases) {
      const r = cli(...args);
      expect([r.code, r.stdout], args.join(' ')).toEqual([2, '']);
      expect(r.stderr.split('\n')[0], args.join(' ')).toContain(`blogcore: ${message}`);
      expect(r.stderr.trimEnd().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr.trimEnd()).toMatch(/; see `blogcore comments --help`$/);
    }
    const help = spawnSync(process.execPath, ['dist/cli.js', '--help'], { cwd: ROOT, encoding: 'utf8' });
    expect(help.stdout).toContain('blogcore comments pending | moderate');
  });

  it('a store that does not exist, or a blog it does not hold, is one line and exit 1', async () => {
    const missing = cli('pending', '--db', join(dir, 'nothing-here.db'), '--blog', 'https://notes.example/');
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    const s = await store('other.db', 1);
    const wrong = cli('moderate', 'spam', '--db', s.db, '--blog', 'https://elsewhere.example/', '--address', SPAMMER);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr.trim().split('\n')).toHaveLength(1);
  }, 120_000);
});

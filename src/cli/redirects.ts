/**
 * `blogcore redirects list|add|remove`: a blog's old addresses and where they lead (docs/design.md §22). An import
 * stores its redirects with the blog; these add, change and remove them, and `serve --site` answers each
 * with a 301.
 */
import { createBlogService } from 'blogcore';
import type { IoStreams } from './io.js';
import { UsageError } from './errors.js';
import { blogIdOf, openDriver } from './store.js';

type Values = Record<string, string | boolean | string[] | undefined>;

export const REDIRECT_COMMANDS = {
  redirects: {
    usage: `blogcore redirects list | add <from> <to> | remove <from> --db <file> --blog <url|id>
      A blog's old addresses (a url or a path, its query kept) and where each leads (a url, or a path on the
      blog's host); the reading site answers them with 301. An import stores the redirects it makes.`,
    positionals: true,
    options: { db: { type: 'string' }, blog: { type: 'string' } },
    run: (values: Values, positionals: string[]) =>
      redirectsCommand(values, positionals, { stdout: process.stdout, stderr: process.stderr }),
  },
} as const;

const ARGS = { list: 0, add: 2, remove: 1 } as const;

export async function redirectsCommand(values: Values, positionals: string[], ctx: IoStreams): Promise<void> {
  const [sub, ...args] = positionals;
  if (sub !== 'list' && sub !== 'add' && sub !== 'remove')
    throw new UsageError(`redirects: list, add <from> <to> or remove <from>${sub ? `, not ${sub}` : ''}`);
  if (args.length !== ARGS[sub])
    throw new UsageError(
      `redirects ${sub}: ${['takes no more arguments', 'name <from>', 'name <from> and <to>'][ARGS[sub]]}`,
    );
  if (typeof values.db !== 'string' || typeof values.blog !== 'string')
    throw new UsageError(`redirects ${sub}: --db and --blog are required`);
  const service = createBlogService({ driver: await openDriver(values.db, { create: false }) });
  try {
    const blog = values.blog;
    const blogId = await blogIdOf(service, blog);
    if (sub === 'add') {
      const r = await service.redirects.insert({ blogId, body: { from: args[0]!, to: args[1]! } });
      ctx.stdout.write(`${r.from} → ${r.to} (301)\n`);
    } else if (sub === 'remove') {
      await service.redirects.delete({ blogId, from: args[0]! });
      ctx.stdout.write(`removed ${args[0]}\n`);
    } else {
      let count = 0;
      for (let pageToken: string | undefined; ; ) {
        const page = await service.redirects.list({ blogId, maxResults: 500, ...(pageToken ? { pageToken } : {}) });
        for (const r of page.items) ctx.stdout.write(`${r.from}\t${r.to}\n`);
        count += page.items.length;
        pageToken = page.nextPageToken;
        if (!pageToken) break;
      }
      if (count === 0) ctx.stderr.write('This blog keeps no redirects.\n');
    }
  } finally {
    await service.close();
  }
}

/**
 * `blogcore comments pending` and `blogcore comments moderate`: a blog's comment queue from the command line
 * (docs/comments.md "Moderation at scale"), as the store `--db` names it and its owner sees it (client addresses
 * included). `moderate` is `comments.moderate`, called until no page token comes back.
 */
import { type Comment, type CommentsModerateParams, createBlogService } from 'blogcore';
import { UsageError } from './errors.js';
import type { IoStreams } from './io.js';
import { blogIdOf, openDriver } from './store.js';

type Values = Record<string, string | boolean | string[] | undefined>;

export const COMMENT_COMMANDS = {
  comments: {
    usage: `blogcore comments pending | moderate <approve|spam|delete> --db <file> --blog <url|id> [--status <s,…>] [--address <ip>] [--author <userId>] [--contains <text>] [--json]
      pending: the comments awaiting approval, newest first: id, date, post, author, the address an anonymous
      one came from, its first words; then how many, and the addresses most of them came from.
      moderate: approves, marks as spam or deletes every comment that matches --status (PENDING, SPAM,
      LIVE, EMPTIED; comma-separated), --address, --author and --contains (its text, case aside), 500 at a
      time until none is left, and prints how many. Name at least one of them.`,
    positionals: true,
    options: {
      db: { type: 'string' },
      blog: { type: 'string' },
      status: { type: 'string', multiple: true },
      address: { type: 'string' },
      author: { type: 'string' },
      contains: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    run: (values: Values, positionals: string[]) =>
      commentsCommand(values, positionals, { stdout: process.stdout, stderr: process.stderr }),
  },
} as const;

const ACTIONS = ['approve', 'spam', 'delete'] as const;
type Action = (typeof ACTIONS)[number];
const DONE: Record<Action, string> = { approve: 'approved', spam: 'marked as spam', delete: 'deleted' };
const STATUSES = ['PENDING', 'SPAM', 'LIVE', 'EMPTIED'] as const;

export async function commentsCommand(values: Values, positionals: string[], ctx: IoStreams): Promise<void> {
  const [sub, ...args] = positionals;
  if (sub !== 'pending' && sub !== 'moderate')
    throw new UsageError(`comments: pending or moderate <approve|spam|delete>${sub ? `, not ${sub}` : ''}`);
  if (typeof values.db !== 'string' || typeof values.blog !== 'string')
    throw new UsageError(`comments ${sub}: --db and --blog are required`);
  let moderate: Pick<CommentsModerateParams, 'filter' | 'action'> | undefined;
  if (sub === 'moderate') moderate = moderation(values, args);
  else if (args.length > 0) throw new UsageError(`comments pending: takes no more arguments, not ${args[0]}`);
  else if (['status', 'address', 'author', 'contains'].some((k) => values[k] !== undefined))
    throw new UsageError('comments pending: --status, --address, --author and --contains are for moderate');
  const service = createBlogService({ driver: await openDriver(values.db, { create: false }) });
  try {
    const blogId = await blogIdOf(service, values.blog);
    if (!moderate) {
      await pending(service, blogId, values.json === true, ctx);
      return;
    }
    let handled = 0;
    let pageToken: string | undefined;
    do {
      const r = await service.comments.moderate({ blogId, ...moderate, ...(pageToken ? { pageToken } : {}) });
      handled += r.handled;
      pageToken = r.nextPageToken;
    } while (pageToken);
    ctx.stdout.write(
      values.json === true
        ? `${JSON.stringify({ action: moderate.action, handled })}\n`
        : `${handled} ${handled === 1 ? 'comment' : 'comments'} ${DONE[moderate.action]}\n`,
    );
  } finally {
    await service.close();
  }
}

/** `moderate <action>` and its filter flags, checked before the store is opened. */
function moderation(values: Values, args: string[]): Pick<CommentsModerateParams, 'filter' | 'action'> {
  const [action, extra] = args;
  if (!ACTIONS.includes(action as Action))
    throw new UsageError(`comments moderate: approve, spam or delete${action ? `, not ${action}` : ''}`);
  if (extra !== undefined) throw new UsageError(`comments moderate: takes one action, not also ${extra}`);
  const status = ((values.status as string[] | undefined) ?? []).flatMap((s) => s.split(',')).map((s) => s.trim());
  const wrong = status.find((s) => !STATUSES.includes(s.toUpperCase() as (typeof STATUSES)[number]));
  if (wrong !== undefined) throw new UsageError(`comments moderate: --status is ${STATUSES.join(', ')}, not ${wrong}`);
  const filter: CommentsModerateParams['filter'] = {
    ...(status.length ? { status: status.map((s) => s.toUpperCase() as (typeof STATUSES)[number]) } : {}),
    ...(typeof values.address === 'string' ? { clientAddress: values.address } : {}),
    ...(typeof values.author === 'string' ? { authorId: values.author } : {}),
    ...(typeof values.contains === 'string' ? { contains: values.contains } : {}),
  };
  // An empty filter is every comment of the blog: too much to say by leaving the flags out.
  if (Object.keys(filter).length === 0)
    throw new UsageError('comments moderate: name the comments: --status, --address, --author or --contains');
  return { filter, action: action as Action };
}

/** The PENDING comments, a page of 500 at a time; then the count and the addresses most came from. */
async function pending(
  service: ReturnType<typeof createBlogService>,
  blogId: string,
  json: boolean,
  ctx: IoStreams,
): Promise<void> {
  const all: Comment[] = [];
  let count = 0;
  const byAddress = new Map<string, number>();
  let pageToken: string | undefined;
  do {
    const page = await service.comments.listByBlog({
      blogId,
      status: 'PENDING',
      maxResults: 500,
      ...(pageToken ? { pageToken } : {}),
    });
    count += page.items.length;
    for (const c of page.items) {
      if (json) all.push(c);
      else ctx.stdout.write(`${line(c)}\n`);
      if (c.clientAddress) byAddress.set(c.clientAddress, (byAddress.get(c.clientAddress) ?? 0) + 1);
    }
    pageToken = page.nextPageToken;
  } while (pageToken);
  if (json) {
    ctx.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
    return;
  }
  ctx.stderr.write(`${count} ${count === 1 ? 'comment' : 'comments'} pending\n`);
  const most = [...byAddress].filter(([, n]) => n > 1).sort((a, b) => b[1] - a[1]);
  for (const [address, n] of most.slice(0, 5))
    ctx.stderr.write(`  ${n} from ${address} (comments moderate spam --address ${address})\n`);
}

/** One comment on one line: id, date, post, author (and address), the start of its text. */
function line(c: Comment): string {
  const text = (c.content ?? '')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
  const who = `${c.author.displayName}${c.author.id ? ` (${c.author.id})` : ''}${c.clientAddress ? ` ${c.clientAddress}` : ''}`;
  return [c.id, c.published, `post ${c.post.id}`, who, text.length > 60 ? `${text.slice(0, 59)}…` : text].join('\t');
}

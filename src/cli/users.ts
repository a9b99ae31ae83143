/**
 * Who may sign in to a store through the CLI's tokens: `blogcore users list`, and the lines `serve`, `token` and
 * `import` print about a user and the blogs they administer.
 */
import type { BlogService, StorageDriver } from 'blogcore';
import { hasToken } from './settings.js';
import { openDriver, shownDb } from './store.js';
import { createBlogService } from 'blogcore';
import { CliError } from './errors.js';

interface Role {
  blogId: string;
  role: string;
}

const PAGE = 500;

/** Every user with a role in a blog, with their roles, walking the members' `user` index a page at a time. */
async function* usersWithRoles(driver: StorageDriver): AsyncGenerator<{ userId: string; roles: Role[] }> {
  let current: { userId: string; roles: Role[] } | undefined;
  let after: readonly string[] | undefined;
  for (;;) {
    const page = await driver.list({
      collection: 'members',
      index: 'user',
      prefix: [],
      ...(after ? { lower: { key: after, open: true } } : {}),
      direction: 'asc',
      limit: PAGE,
    });
    for (const m of page) {
      const { userId, blogId, role } = m.doc as { userId: string; blogId: string; role: string };
      if (current && current.userId !== userId) yield current;
      if (!current || current.userId !== userId) current = { userId, roles: [] };
      current.roles.push({ blogId, role });
    }
    if (page.length < PAGE) break;
    after = page[page.length - 1]!.key;
  }
  if (current) yield current;
}

/** `Café & Crème (https://cafe.example.org/)`, or the id of a blog that is gone. */
export async function blogLabel(service: BlogService, blogId: string): Promise<string> {
  const blog = await service.blogs.get({ blogId }).catch(() => undefined);
  return blog ? `${blog.name} (${blog.url})` : `blog ${blogId}`;
}

/** `user 01K… (Marie Curié)`. */
export async function userLabel(service: BlogService, userId: string): Promise<string> {
  const user = await service.users.get({ userId }).catch(() => undefined);
  return user ? `user ${userId} (${user.displayName})` : `user ${userId}`;
}

/** The blogs a user administers, as labels. */
export async function adminOf(driver: StorageDriver, service: BlogService, userId: string): Promise<string[]> {
  const roles = await driver.list({
    collection: 'members',
    index: 'user',
    prefix: [userId],
    direction: 'asc',
    limit: 20,
  });
  const admin = roles.filter((m) => (m.doc as { role: string }).role === 'ADMIN');
  return Promise.all(admin.map((m) => blogLabel(service, (m.doc as { blogId: string }).blogId)));
}

/**
 * Up to `max` blogs of the store, each with its admins: what `serve` prints for a store that already holds
 * blogs, so the user knows whom to mint a token for.
 */
export async function blogsAndAdmins(
  driver: StorageDriver,
  service: BlogService,
  max: number,
): Promise<Array<{ blogId: string; line: string; admins: string[] }>> {
  const blogs = await driver.list({ collection: 'blogs', index: 'url', prefix: [], direction: 'asc', limit: max * 4 });
  const seen = new Set<string>(); // a blog's old urls are entries of the same index
  const out: Array<{ blogId: string; line: string; admins: string[] }> = [];
  for (const b of blogs) {
    if (seen.has(b.id) || out.length >= max) continue;
    seen.add(b.id);
    const members = await service.members.list({ blogId: b.id }).catch(() => undefined);
    if (!members) continue; // being deleted
    const admins = members.items.filter((m) => m.role === 'ADMIN').map((m) => m.userId);
    out.push({ blogId: b.id, line: await blogLabel(service, b.id), admins });
  }
  return out;
}

/** `blogcore users list`: every user with a role in a blog, their roles, and whether they hold a token. */
export async function usersList(db: string, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const driver = await openDriver(db, { create: false });
  const service = createBlogService({ driver });
  try {
    await service.ready();
    let count = 0;
    for await (const { userId, roles } of usersWithRoles(driver)) {
      count++;
      const token = (await hasToken(driver, userId)) ? 'has a token' : 'no token';
      out.write(`${await userLabel(service, userId)}, ${token}\n`);
      for (const r of roles) out.write(`    ${r.role.padEnd(6)} of ${await blogLabel(service, r.blogId)}\n`);
    }
    if (count === 0) throw new CliError(`${shownDb(db)}: no user holds a role in a blog yet`);
    out.write(
      `\nA bearer token for one of them (their previous token stops working):\n  blogcore token --db ${shownDb(db)} --user <id>\n`,
    );
  } finally {
    await service.close();
  }
}

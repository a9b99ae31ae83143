/** `blogcore token`: a new bearer token for a user of the store (their previous one stops working). */
import { createBlogService } from 'blogcore';
import { CliError } from './errors.js';
import { mintToken, readSettings } from './settings.js';
import { describeSqliteError, openDriver, shownDb } from './store.js';
import { adminOf, userLabel } from './users.js';

/** Mints a token for `userId` (default: the demo admin `serve`'s first run made); prints it alone on stdout. */
export async function token(db: string, userId: string | undefined): Promise<void> {
  const driver = await openDriver(db, { create: false });
  const service = createBlogService({ driver });
  try {
    await service.ready().catch((error: unknown) => {
      throw describeSqliteError(db, error);
    });
    const user = userId ?? (await readSettings(driver)).settings?.adminUserId;
    const list = `\`blogcore users list --db ${shownDb(db)}\` lists the users`;
    if (user === undefined)
      throw new CliError(`${shownDb(db)}: name the user the token is for with --user <id> (${list})`);
    if (!(await service.users.get({ userId: user }).catch(() => undefined)))
      throw new CliError(`${shownDb(db)}: no user ${user} (${list})`);
    const token = await mintToken(driver, user);
    const blogs = await adminOf(driver, service, user);
    console.error(
      `New bearer token for ${await userLabel(service, user)}, ${blogs.length ? `ADMIN of ${blogs.join(', ')}` : 'admin of no blog'} (their previous token no longer works):`,
    );
    console.log(token);
  } finally {
    await service.close();
  }
}

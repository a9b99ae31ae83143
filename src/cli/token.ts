/** `blogcore token`: replaces the admin token of a database `blogcore serve` set up. */
import { createBlogService } from 'blogcore';
import { CliError } from './errors.js';
import { newToken, readSettings, sha256, writeSettings } from './settings.js';
import { describeSqliteError, openDriver } from './store.js';

export async function rotateToken(db: string): Promise<void> {
  const driver = await openDriver(db, { create: false });
  const service = createBlogService({ driver });
  try {
    await service.ready().catch((error: unknown) => {
      throw describeSqliteError(db, error);
    });
    const { version, settings } = await readSettings(driver);
    if (!settings) throw new CliError(`${db}: no admin token to replace (\`blogcore serve --db ${db}\` sets one up on its first run)`);
    const token = newToken();
    await writeSettings(driver, version, { ...settings, tokenHash: sha256(token) });
    console.error('New admin bearer token (the previous one no longer works):');
    console.log(token);
  } finally {
    await service.close();
  }
}

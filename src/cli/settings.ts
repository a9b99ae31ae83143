/** The CLI's own record in the store (`settings` collection): the demo blog, its admin, and the admin token's hash. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { BlogError, type StorageDriver } from 'blogcore';
import type { Actor, RequestHead } from 'blogcore/http';

export interface CliSettings {
  adminUserId: string;
  blogId: string;
  tokenHash: string;
  [key: string]: string;
}
const SETTINGS_ID = 'cli';

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
export const newToken = (): string => `bc_${randomBytes(24).toString('base64url')}`;

export async function readSettings(driver: StorageDriver): Promise<{ version: number; settings?: CliSettings }> {
  const found = await driver.get('settings', SETTINGS_ID);
  return found ? { version: found.version, settings: found.doc as unknown as CliSettings } : { version: 0 };
}

export async function writeSettings(driver: StorageDriver, expect: number, settings: CliSettings): Promise<void> {
  await driver.commit([{ type: 'put', collection: 'settings', id: SETTINGS_ID, expect, doc: { ...settings }, keys: {} }]);
}

const authError = (message: string) => new BlogError({ code: 401, reason: 'authError', message, location: 'Authorization', locationType: 'header' });

/** `Authorization: Bearer <token>` (or Google's `access_token` parameter) → the admin; none → anonymous. */
export function bearerAuth(driver: StorageDriver) {
  return async (request: RequestHead): Promise<Actor | null> => {
    const header = request.headers.get('authorization');
    let token: string | null;
    if (header !== null) {
      const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
      if (!m) throw authError('Invalid Credentials: use Authorization: Bearer <token>');
      token = m[1]!;
    } else {
      const q = new URL(request.url).searchParams;
      token = q.get('access_token') ?? q.get('oauth_token');
      if (token === null || token === '') return null;
    }
    // Read the hash on every signed request, so `blogcore token` revokes the old token at once.
    const { settings } = await readSettings(driver);
    const given = Buffer.from(sha256(token), 'hex');
    if (!settings || !timingSafeEqual(given, Buffer.from(settings.tokenHash, 'hex'))) throw authError('Invalid Credentials');
    return { userId: settings.adminUserId };
  };
}

/**
 * The CLI's own records in the store (`settings` collection):
 * - `cli`: that `blogcore serve` has set the store up, and the demo blog and admin its first run made (a store
 *   that held blogs already gets no demo: then both are absent). Stores of 0.2.0 also keep one token hash here.
 * - `token:<sha256>` → `{ userId }`: a bearer token (only its hash) and the user it signs in as;
 *   `tokenOf:<userId>` → `{ hash }`: that user's current token, so minting a new one revokes the old at once.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { BlogError, DriverConflict, type JsonObject, type StorageDriver, type WriteOp } from 'blogcore';
import type { Actor, RequestHead } from 'blogcore/http';

export interface CliSettings {
  /** When serve first opened the store. */
  setUp?: string;
  /** The demo blog and its admin, when the first run made them. */
  adminUserId?: string;
  blogId?: string;
  /** 0.2.0's one admin token (its hash); replaced by a `token:` record when a token is minted for that admin. */
  tokenHash?: string;
}
const SETTINGS_ID = 'cli';
const tokenId = (hash: string) => `token:${hash}`;
const tokenOfId = (userId: string) => `tokenOf:${userId}`;

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const newToken = (): string => `bc_${randomBytes(24).toString('base64url')}`;

export async function readSettings(driver: StorageDriver): Promise<{ version: number; settings?: CliSettings }> {
  const found = await driver.get('settings', SETTINGS_ID);
  return found ? { version: found.version, settings: found.doc as CliSettings } : { version: 0 };
}

const settingsPut = (id: string, doc: object, expect: number): WriteOp => ({
  type: 'put',
  collection: 'settings',
  id,
  expect,
  doc: { ...doc } as JsonObject,
  keys: {},
});

export async function writeSettings(driver: StorageDriver, expect: number, settings: CliSettings): Promise<void> {
  await driver.commit([settingsPut(SETTINGS_ID, settings, expect)]);
}

/**
 * A new bearer token for `userId` (who must exist: the caller checks). The user's previous token stops working
 * in the same commit, even for a server that is running (it reads the token record on every signed request).
 */
export async function mintToken(driver: StorageDriver, userId: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const token = newToken();
    const hash = sha256(token);
    const [current, cli] = await driver.getMany('settings', [tokenOfId(userId), SETTINGS_ID]);
    const ops: WriteOp[] = [
      settingsPut(tokenId(hash), { userId }, 0),
      settingsPut(tokenOfId(userId), { hash }, current?.version ?? 0),
    ];
    const old = (current?.doc as { hash?: string } | undefined)?.hash;
    if (old) {
      const stored = await driver.get('settings', tokenId(old));
      if (stored) ops.push({ type: 'delete', collection: 'settings', id: tokenId(old), expect: stored.version });
    }
    // 0.2.0 kept the demo admin's token in the `cli` record: a new token for that admin replaces it too.
    const settings = cli?.doc as CliSettings | undefined;
    if (settings?.tokenHash && settings.adminUserId === userId) {
      const { tokenHash: _, ...rest } = settings;
      ops.push(settingsPut(SETTINGS_ID, rest, cli!.version));
    }
    try {
      await driver.commit(ops);
      return token;
    } catch (error) {
      if (!DriverConflict.is(error) || attempt >= 5) throw error; // another mint for this user at the same time
    }
  }
}

/** Whether a user has a token of this command now. */
export async function hasToken(driver: StorageDriver, userId: string): Promise<boolean> {
  return (await driver.get('settings', tokenOfId(userId))) !== undefined;
}

/** The user a token signs in as, if it is a current token of this store. */
async function userOfToken(driver: StorageDriver, token: string): Promise<string | undefined> {
  const hash = sha256(token);
  const found = await driver.get('settings', tokenId(hash));
  if (found) return (found.doc as { userId: string }).userId;
  // A 0.2.0 store: the admin token kept in the `cli` record (compared in constant time, as it was).
  const { settings } = await readSettings(driver);
  if (
    settings?.tokenHash &&
    settings.adminUserId &&
    timingSafeEqual(Buffer.from(hash, 'hex'), Buffer.from(settings.tokenHash, 'hex'))
  ) {
    return settings.adminUserId;
  }
  return undefined;
}

const authError = (message: string) =>
  new BlogError({ code: 401, reason: 'authError', message, location: 'Authorization', locationType: 'header' });

/**
 * `Authorization: Bearer <token>` (or Google's `access_token` parameter) → the user the token was minted for;
 * none → anonymous. Tokens are looked up by their SHA-256 (random 24-byte tokens: the hash gives nothing away).
 */
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
    // Read on every signed request, so `blogcore token` revokes the old token at once.
    const userId = await userOfToken(driver, token);
    if (userId === undefined) throw authError('Invalid Credentials');
    return { userId };
  };
}

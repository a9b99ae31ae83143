/**
 * The comment form's time token (docs/design.md §25): when the form was served and for which post,
 * signed with HMAC-SHA-256 under a key kept in the store (`settings/commentFormKey`, made on first use, shared
 * by every app server on the store). A form sent back with no token, a forged one, one older than a day or
 * sooner than 2 s after it was served is a bot's. `rotateCommentFormKey` makes a new key; the one before it
 * still verifies, so forms served just before a rotation still work.
 */
import { internalsOf } from '../service/internals.js';
import type { BlogService } from '../service/types.js';
import type { JsonObject, WriteOp } from '../service/store.js';
import { DriverConflict } from '../service/store.js';

const KEY_ID = 'commentFormKey';
/** Keys are read again this often, so a rotation reaches every app server. */
const RELOAD_MS = 10 * 60_000;
export const FORM_MIN_MS = 2_000;
export const FORM_MAX_MS = 86_400_000;

interface KeyRecord {
  id: string;
  /** Base64url of 32 random bytes: the key tokens are signed with. */
  current: string;
  /** The key before the last rotation: tokens it signed still verify. */
  previous?: string;
}

/** What a token sent back says: a person's form, a form open too long, or a bot's. */
export type TokenCheck = { ok: true; postId: string } | { ok: false; why: 'missing' | 'forged' | 'fast' | 'expired' };

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const unb64url = (text: string) =>
  Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
const encoder = new TextEncoder();

function coreOf(service: BlogService) {
  const inner = internalsOf(service);
  if (!inner) throw new TypeError('createSite needs a service made by createBlogService');
  return inner.core;
}

function newKey(): string {
  return b64url(crypto.getRandomValues(new Uint8Array(32)));
}

const keyPut = (doc: KeyRecord, expect: number): WriteOp => ({
  type: 'put',
  collection: 'settings',
  id: KEY_ID,
  expect,
  doc: doc as unknown as JsonObject,
  keys: {},
});

/** The key record, made on first use (two servers making it at once: the second reads the first's). */
async function keyRecord(service: BlogService): Promise<{ record: KeyRecord; version: number }> {
  const core = coreOf(service);
  for (;;) {
    const found = await core.getAs<KeyRecord>('settings', KEY_ID);
    if (found) return { record: found.doc, version: found.version };
    const record: KeyRecord = { id: KEY_ID, current: newKey() };
    try {
      await core.commit([keyPut(record, 0)]);
      return { record, version: 1 };
    } catch (e) {
      if (!DriverConflict.is(e)) throw e;
    }
  }
}

/**
 * A new key for the comment form's tokens; the one before stays valid for forms already served (the one before
 * that no longer is). Every app server picks it up within 10 minutes.
 *
 * @example
 * await rotateCommentFormKey(service); // e.g. monthly, or when the store was copied somewhere you do not trust
 */
export async function rotateCommentFormKey(service: BlogService): Promise<void> {
  const core = coreOf(service);
  for (;;) {
    const { record, version } = await keyRecord(service);
    try {
      await core.commit([keyPut({ id: KEY_ID, current: newKey(), previous: record.current }, version)]);
      return;
    } catch (e) {
      if (!DriverConflict.is(e)) throw e;
    }
  }
}

/** Issues and checks the form's tokens for one site, with the service's clock. */
export function formTokens(service: BlogService) {
  const core = coreOf(service);
  let loaded: { at: number; keys: Promise<CryptoKey[]> } | undefined;

  const keys = (): Promise<CryptoKey[]> => {
    const now = Date.now();
    if (!loaded || now - loaded.at > RELOAD_MS) {
      const keys = keyRecord(service).then(({ record }) =>
        Promise.all(
          [record.current, ...(record.previous ? [record.previous] : [])].map((k) =>
            crypto.subtle.importKey('raw', unb64url(k), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']),
          ),
        ),
      );
      loaded = { at: now, keys };
      // A failed read is tried again on the next form, not kept.
      keys.catch(() => {
        if (loaded?.keys === keys) loaded = undefined;
      });
    }
    return loaded.keys;
  };

  const signed = (t: string, blogId: string, postId: string) => encoder.encode(`${t}:${blogId}:${postId}`);

  return {
    /** A token for a form of `postId` served now. */
    async issue(blogId: string, postId: string): Promise<string> {
      const t = core.now().getTime().toString(36);
      const [key] = await keys();
      const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key!, signed(t, blogId, postId)));
      return `${t}.${b64url(mac)}.${postId}`;
    },

    /** What a token sent back with a form of `blogId` says. */
    async check(token: string | null, blogId: string): Promise<TokenCheck> {
      if (!token) return { ok: false, why: 'missing' };
      // (A post id may hold dots: it comes last.)
      const [t = '', sig = '', ...rest] = token.split('.');
      const postId = rest.join('.');
      if (!/^[0-9a-z]{1,12}$/.test(t) || !/^[A-Za-z0-9_-]{43}$/.test(sig) || postId === '' || postId.length > 200)
        return { ok: false, why: 'forged' };
      const mac = unb64url(sig);
      let genuine = false;
      for (const key of await keys())
        if (await crypto.subtle.verify('HMAC', key, mac, signed(t, blogId, postId))) genuine = true;
      if (!genuine) return { ok: false, why: 'forged' };
      const age = core.now().getTime() - Number.parseInt(t, 36);
      if (age < FORM_MIN_MS) return { ok: false, why: 'fast' };
      if (age > FORM_MAX_MS) return { ok: false, why: 'expired' };
      return { ok: true, postId };
    },
  };
}

export type FormTokens = ReturnType<typeof formTokens>;

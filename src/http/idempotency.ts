/**
 * Idempotent creates (docs/design.md §15, HTTP `Idempotency-Key`): a retried create answers the first result
 * instead of making a twin. Keys live in the store (collection `idempotency`), so they hold across restarts
 * and app servers, scoped per caller, for at least KEEP_MS.
 *
 * A key is claimed (a `pending` record, compare-and-set) before the create runs and completed with its
 * result after, so two copies of one request racing each other create once: the second gets 409 while the
 * first runs. A failed create releases its claim (nothing was created, a retry runs again); a claim whose
 * process died is taken over after STALE_MS. Expired keys are swept a bounded batch per call.
 */
import type { Actor } from '../rules/access.js';
import { type Core, DriverConflict, type JsonObject } from '../service/store.js';
import { BlogError, conflict } from '../util/errors.js';

/** How long a key is kept (at least): a retry within it answers the first result. */
export const KEEP_MS = 24 * 3_600_000;
const STALE_MS = 60_000;
const SWEEP = 50;
const KEY = /^[\x21-\x7e]{1,200}$/;

export interface KeyRecord {
  id: string;
  /** SHA-256 of the request (operation and parameters): the same key with another request is refused. */
  fingerprint: string;
  state: 'pending' | 'done';
  result?: JsonObject;
  /** When the key was first used (it expires KEEP_MS later), and when it was last claimed. */
  created: string;
  claimed: string;
}

const headerError = (code: number, message: string) =>
  new BlogError({ code, reason: 'invalid', message, location: 'Idempotency-Key', locationType: 'header' });

async function sha256(text: string): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  let hex = '';
  for (const b of digest) hex += b.toString(16).padStart(2, '0');
  return hex;
}

/**
 * Whose keys a key is among. Anonymous callers are many people under one name, so their scope is the request
 * itself: another visitor reusing a key with their own comment gets their own, never the first one's (only the
 * very same request under the same key, which is a retry as far as anyone can tell, answers the first result).
 */
const scopeOf = (actor: Actor, fingerprint: string) =>
  actor.kind === 'user' ? `user:${actor.userId}` : actor.kind === 'anonymous' ? `anonymous:${fingerprint}` : actor.kind;

/**
 * Runs `create` once per (caller, key) and request; see the file comment. It lives with the HTTP helper
 * (the header is its only way in), so browser bundles of the core do not carry it.
 */
export async function once<T>(
  core: Core,
  actor: Actor,
  key: string,
  request: unknown,
  create: () => Promise<T>,
): Promise<T> {
  if (typeof key !== 'string' || !KEY.test(key))
    throw headerError(400, 'Idempotency-Key must be 1 to 200 visible ASCII characters');
  const fingerprint = await sha256(JSON.stringify(request));
  const id = JSON.stringify([scopeOf(actor, fingerprint), key]);
  await core.ready();
  await sweep(core);
  let claim: { version: number; record: KeyRecord };
  for (let attempt = 0; ; attempt++) {
    const now = core.now().getTime();
    const stored = await core.getAs<KeyRecord>('idempotency', id);
    const live = stored && Date.parse(stored.doc.created) > now - KEEP_MS ? stored.doc : undefined;
    if (live) {
      if (live.fingerprint !== fingerprint) throw headerError(422, 'This Idempotency-Key was used for another request');
      if (live.state === 'done') return live.result as T;
      if (Date.parse(live.claimed) > now - STALE_MS || attempt > 3)
        throw conflict('A request with this Idempotency-Key is still running: retry it later');
    }
    const iso = new Date(now).toISOString();
    const record: KeyRecord = { id, fingerprint, state: 'pending', created: live?.created ?? iso, claimed: iso };
    const expect = stored?.version ?? 0;
    try {
      await core.commit([keyPut(record, expect)]);
      claim = { version: expect + 1, record };
      break;
    } catch (error) {
      if (!DriverConflict.is(error)) throw error; // another copy claimed it first: look again
    }
  }
  let result: T;
  try {
    result = await create();
  } catch (error) {
    await core
      .commit([{ type: 'delete', collection: 'idempotency', id, expect: claim.version }])
      .catch(() => undefined);
    throw error;
  }
  const done: KeyRecord = {
    ...claim.record,
    state: 'done',
    result: JSON.parse(JSON.stringify(result ?? null)) as JsonObject,
  };
  await core.commit([keyPut(done, claim.version)]).catch(() => undefined);
  return result;
}

const keyPut = (r: KeyRecord, expect: number) => ({
  type: 'put' as const,
  collection: 'idempotency',
  id: r.id,
  expect,
  doc: r as unknown as JsonObject,
  keys: { created: [[r.created, r.id]] },
});

/** Deletes up to SWEEP keys older than KEEP_MS. */
async function sweep(core: Core): Promise<void> {
  const before = new Date(core.now().getTime() - KEEP_MS).toISOString();
  const old = await core.driver.list({
    collection: 'idempotency',
    index: 'created',
    prefix: [],
    upper: { key: [before], open: true },
    direction: 'asc',
    limit: SWEEP,
  });
  if (old.length === 0) return;
  await core
    .commit(old.map((d) => ({ type: 'delete' as const, collection: 'idempotency', id: d.id, expect: d.version })))
    .catch((error: unknown) => {
      if (!DriverConflict.is(error)) throw error; // reused meanwhile: the next sweep looks again
    });
}

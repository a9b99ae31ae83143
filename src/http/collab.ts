/**
 * The shared document's routes (docs/collab.md): `GET …/posts/{postId}/collab` answers the whole document, or with
 * `since` what is new (waiting up to `wait` ms), as `application/octet-stream` with its position in
 * `Blogcore-Collab-Position`; `POST` of one update answers `{ "position": … }`. Presence travels in headers:
 * the sender's in `Blogcore-Collab-Presence` (base64), everyone's back in the same header with its clock in
 * `Blogcore-Collab-Presence-Clock` (send that clock back as `presence` to wait past it).
 */
import type { CollabPushResult, CollabState } from '../schema/collab.js';
import { COLLAB_LIMITS } from '../schema/values.js';
import { fromBase64, toBase64 } from '../util/base64.js';
import { BlogError } from '../util/errors.js';
import { tooLarge } from '../web/body.js';
import type { IncomingLike, Outgoing } from '../web/dispatch.js';
import { JSON_TYPE, PRIVATE } from './respond.js';

export const POSITION_HEADER = 'blogcore-collab-position';
export const PRESENCE_HEADER = 'blogcore-collab-presence';
export const PRESENCE_CLOCK_HEADER = 'blogcore-collab-presence-clock';

interface CollabCalls {
  open(p: unknown): Promise<CollabState>;
  pull(p: unknown): Promise<CollabState>;
  push(p: unknown): Promise<CollabPushResult>;
}

const badPresence = () =>
  new BlogError({
    code: 400,
    reason: 'invalid',
    message: `${PRESENCE_HEADER} must be base64 of at most ${COLLAB_LIMITS.presence} bytes`,
    location: PRESENCE_HEADER,
    locationType: 'header',
  });

function presenceSent(incoming: IncomingLike): Uint8Array | undefined {
  const text = incoming.header(PRESENCE_HEADER);
  if (text === null || text.trim() === '') return undefined;
  if (text.length > Math.ceil(COLLAB_LIMITS.presence / 3) * 4 || !/^[A-Za-z0-9+/]+={0,2}$/.test(text.trim()))
    throw badPresence();
  return fromBase64(text.trim());
}

/** GET (open, or pull with `since`) and POST (push) of a shared document. */
export async function serveCollab(
  api: CollabCalls,
  method: string,
  params: Record<string, unknown>,
  incoming: IncomingLike,
  corsHeaders: Record<string, string> | undefined,
): Promise<Outgoing> {
  const headers: Record<string, string> = {
    'cache-control': PRIVATE,
    'x-content-type-options': 'nosniff',
    ...corsHeaders,
  };
  if (method === 'POST') {
    const declared = incoming.header('content-length');
    const max = COLLAB_LIMITS.update;
    if (declared !== null && /^\d+$/.test(declared) && Number(declared) > max) throw tooLarge(max);
    const update = incoming.hasBody() ? await incoming.readBody(max) : new Uint8Array(0);
    const presence = presenceSent(incoming);
    const { position } = await api.push({
      ...params,
      update: update.byteLength ? update : new Uint8Array([0, 0]),
      ...(presence ? { presence } : {}),
    });
    headers['content-type'] = JSON_TYPE;
    headers[POSITION_HEADER] = position;
    return { status: 200, headers, text: JSON.stringify({ position }) };
  }
  const { presence: clock, ...rest } = params;
  const state =
    rest.since === undefined
      ? await api.open(rest)
      : await api.pull({ ...rest, ...(clock !== undefined ? { presenceSince: clock } : {}) });
  headers['content-type'] = 'application/octet-stream';
  headers[POSITION_HEADER] = state.position;
  if (state.presence) {
    headers[PRESENCE_HEADER] = toBase64(state.presence.update);
    headers[PRESENCE_CLOCK_HEADER] = String(state.presence.clock);
  }
  const body = new Uint8Array(state.update.byteLength);
  body.set(state.update);
  return { status: 200, headers, text: method === 'HEAD' ? null : body };
}

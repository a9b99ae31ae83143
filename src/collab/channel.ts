/**
 * Where a shared document lives, as the client (client.ts) reaches it: a service's `collab` calls (in process, e.g.
 * a replica's local service), or a server's `/collab` routes over HTTP (src/http/collab.ts).
 */
import type { CollabApi } from '../service/types.js';
import type { CollabPushResult, CollabState, CollabTarget } from '../schema/collab.js';

/** Where the shared document lives: a service (e.g. a replica's local one), or a server over HTTP. */
export interface CollabChannel {
  open(): Promise<CollabState>;
  push(update: Uint8Array, presence?: Uint8Array): Promise<CollabPushResult>;
  pull(since: string, wait: number, presenceSince: number, signal: AbortSignal): Promise<CollabState>;
}

export interface CollabRemote {
  /** The API root, e.g. `https://blog.example/v3`. */
  baseUrl: string;
  /** Headers for every request (a function is asked each time, for tokens that rotate). */
  headers?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
  fetch?: typeof fetch;
}

/** The calls of a service (`service.collab` of a local or a server service). */
export function serviceChannel(api: CollabApi, target: CollabTarget): CollabChannel {
  return {
    open: () => api.open(target),
    push: (update, presence) => api.push({ ...target, update, ...(presence ? { presence } : {}) }),
    // In process a pull cannot be cut short: it waits less, so leaving takes at most that long.
    pull: (since, wait, presenceSince) => api.pull({ ...target, since, wait: Math.min(wait, 5_000), presenceSince }),
  };
}

const PRESENCE_HEADER = 'blogcore-collab-presence';
const toBase64 = (bytes: Uint8Array) => {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
};
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** Thrown for an answer that is not a network failure (403, 404, 413…): retrying will not help. */
export class CollabRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A server's `/collab` route over HTTP. */
export function httpChannel(remote: CollabRemote, target: CollabTarget): CollabChannel {
  const item = target.postId !== undefined ? `posts/${target.postId}` : `pages/${target.pageId}`;
  const url = `${remote.baseUrl.replace(/\/+$/, '')}/blogs/${target.blogId}/${item}/collab`;
  const call = async (query: string, init: RequestInit = {}) => {
    const base = typeof remote.headers === 'function' ? await remote.headers() : (remote.headers ?? {});
    const res = await (remote.fetch ?? fetch)(url + query, {
      ...init,
      headers: { ...base, ...(init.headers as Record<string, string> | undefined) },
    });
    if (!res.ok) {
      const text = await res.text().catch(() => '');
      if (res.status >= 500 || res.status === 429) throw new Error(`collab: ${res.status}`);
      throw new CollabRefused(res.status, text || res.statusText);
    }
    return res;
  };
  const state = async (res: Response): Promise<CollabState> => {
    const presence = res.headers.get(PRESENCE_HEADER);
    const clock = res.headers.get(`${PRESENCE_HEADER}-clock`);
    return {
      update: new Uint8Array(await res.arrayBuffer()),
      position: res.headers.get('blogcore-collab-position') ?? '0',
      ...(presence && clock ? { presence: { update: fromBase64(presence), clock: Number(clock) } } : {}),
    };
  };
  return {
    open: async () => state(await call('')),
    push: async (update, presence) => {
      const res = await call('', {
        method: 'POST',
        headers: {
          'content-type': 'application/octet-stream',
          ...(presence ? { [PRESENCE_HEADER]: toBase64(presence) } : {}),
        },
        body: update as Uint8Array<ArrayBuffer>,
      });
      return (await res.json()) as CollabPushResult;
    },
    pull: async (since, wait, presenceSince, signal) =>
      state(await call(`?since=${since}&wait=${wait}&presence=${presenceSince}`, { signal })),
  };
}

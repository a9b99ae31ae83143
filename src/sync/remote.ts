/**
 * The replica's side of the wire (docs/design.md §16), browser-safe: pulls of `GET /blogs/{blogId}/changes` page by
 * page, and ordinary `/v3` writes with `If-Match` and `Idempotency-Key`. Errors come back as `RemoteError`
 * with the server's status and Google error reason (410 `resyncRequired`: pull afresh without `since`;
 * 412 `conditionNotMet`: the server's copy moved, a conflict). The replica (`createReplica`) builds on this.
 */
import type { ChangeList } from '../service/store.js';
import { RemoteError } from '../util/errors.js';

export { RemoteError };

export interface RemoteOptions {
  /** The API root, e.g. `https://blog.example/v3`. */
  baseUrl: string;
  /** Sent with every request (e.g. `authorization`); a function is asked each time (tokens that rotate). */
  headers?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
  /** The `fetch` requests go through (default: the global one). */
  fetch?: typeof fetch;
}

export interface PullOptions {
  since?: string;
  pageToken?: string;
  maxResults?: number;
  /** Seconds (≤ 60) the server may hold the request open waiting for a change. */
  wait?: number;
  signal?: AbortSignal;
}

export interface WriteOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** The etag the local copy was based on: the server answers 412 if its copy moved. */
  ifMatch?: string;
  /** For creates: a retry with the same key answers the first result instead of creating a twin. */
  idempotencyKey?: string;
  /** Raw bytes sent as the body instead of JSON (a media upload), with their type and file name. */
  bytes?: { body: Blob; type: string; filename: string };
  signal?: AbortSignal;
}

export interface Remote {
  /** One page of a pull. */
  pull(blogId: string, options?: PullOptions): Promise<ChangeList>;
  /** One `/v3` call (path after `baseUrl`): the JSON answer (undefined for 204). */
  call<T = unknown>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    options?: WriteOptions,
  ): Promise<T>;
  /** The bytes of a picture, from the media route beside the API root (`/v3` → `/media`). */
  picture(blogId: string, mediaId: string, filename: string, signal?: AbortSignal): Promise<ReadableStream<Uint8Array>>;
}

/** The server's consistency token (read replicas, docs/postgres.md): sent back, so a pull after a push sees it. */
const CONSISTENCY_TOKEN = 'blogcore-consistency-token';

export function createRemote(options: RemoteOptions): Remote {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  let token: string | undefined;

  async function call<T>(method: string, path: string, o: WriteOptions = {}): Promise<T> {
    const url = new URL(base + path);
    for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const extra = typeof options.headers === 'function' ? await options.headers() : (options.headers ?? {});
    const headers: Record<string, string> = { ...extra };
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    if (o.bytes) {
      headers['content-type'] = o.bytes.type;
      headers['content-disposition'] = `attachment; filename*=UTF-8''${encodeURIComponent(o.bytes.filename)}`;
    }
    if (o.ifMatch !== undefined) headers['if-match'] = o.ifMatch;
    if (o.idempotencyKey !== undefined) headers['idempotency-key'] = o.idempotencyKey;
    if (token !== undefined) headers[CONSISTENCY_TOKEN] = token;
    let res: Response;
    try {
      res = await doFetch(url, {
        method,
        headers,
        body: o.bytes?.body ?? (o.body === undefined ? undefined : JSON.stringify(o.body)),
        signal: o.signal,
      });
    } catch (error) {
      if (o.signal?.aborted) throw error;
      throw new RemoteError(0, 'offline', `Could not reach ${url.origin}`);
    }
    token = res.headers.get(CONSISTENCY_TOKEN) ?? token;
    // 204 and non-JSON answers read as undefined.
    const json: unknown = await res.json().catch(() => undefined);
    if (!res.ok) {
      const err = (json as { error?: { message?: string; errors?: Array<{ reason?: string }> } } | undefined)?.error;
      throw new RemoteError(
        res.status,
        err?.errors?.[0]?.reason ?? 'unknown',
        err?.message ?? `HTTP ${res.status}`,
        json,
      );
    }
    return json as T;
  }

  return {
    pull: (blogId, o = {}) =>
      call<ChangeList>('GET', `/blogs/${blogId}/changes`, {
        query: { since: o.since, pageToken: o.pageToken, maxResults: o.maxResults, wait: o.wait },
        signal: o.signal,
      }),
    call,
    // Served to anyone, so asked for without headers: a plain GET, which another origin may make without a preflight.
    async picture(blogId, mediaId, filename, signal) {
      const url = `${base.replace(/\/[^/]*$/, '')}/media/${blogId}/${mediaId}/${encodeURIComponent(filename)}`;
      let res: Response;
      try {
        res = await doFetch(url, { signal });
      } catch (error) {
        if (signal?.aborted) throw error;
        throw new RemoteError(0, 'offline', `Could not reach ${new URL(url).origin}`);
      }
      if (!res.ok || !res.body) {
        await res.body?.cancel();
        throw new RemoteError(res.status, 'notFound', `HTTP ${res.status} for the picture ${mediaId}`);
      }
      return res.body;
    },
  };
}

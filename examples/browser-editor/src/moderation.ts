/**
 * Moderation by the batch (docs/comments.md "Moderation at scale"): one action on every comment that matches a
 * filter. Signed in to a server, it runs there — the server knows where each comment came from (a replica keeps
 * no client addresses) and handles 500 a call, where the replica would send each comment on its own — and the
 * replica then pulls the outcome. A local-only blog runs it in this browser's store.
 */
import type { Comment, CommentsModerateParams } from 'blogcore';
import type { App } from './app.js';

type Filter = CommentsModerateParams['filter'];
type Action = CommentsModerateParams['action'];

/** A server's refusal, as errors.ts words it. */
function remoteError(message: string, status: number): Error {
  return Object.assign(new Error(message), { name: 'RemoteError', status });
}

/** Applies `action` to every comment `filter` matches, page after page; answers how many it changed. */
export async function moderateAll(app: App, filter: Filter, action: Action): Promise<number> {
  let handled = 0;
  let pageToken: string | undefined;
  const c = app.connection;
  do {
    let page: { handled: number; nextPageToken?: string };
    if (!c) {
      page = await app.owner.comments.moderate({
        blogId: app.blog.id,
        filter,
        action,
        ...(pageToken ? { pageToken } : {}),
      });
    } else {
      let res: Response;
      try {
        res = await fetch(`${c.api}/blogs/${encodeURIComponent(c.blogId)}/comments/moderate`, {
          method: 'POST',
          headers: { authorization: `Bearer ${c.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ filter, action, ...(pageToken ? { pageToken } : {}) }),
        });
      } catch {
        throw remoteError(
          `No answer from ${new URL(c.api).origin}: moderating many comments at once needs the server.`,
          0,
        );
      }
      const json = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
      if (!res.ok) throw remoteError(json?.error?.message ?? `The server answered ${res.status}.`, res.status);
      page = json as typeof page;
    }
    handled += page.handled;
    pageToken = page.nextPageToken;
  } while (pageToken);
  await app.syncNow();
  return handled;
}

/**
 * Where each shown comment came from (anonymous ones only), as the blog's ADMIN sees it: the server's answer when
 * there is one (a comment it cannot answer for just shows none), else the local store's.
 */
export async function addressesOf(app: App, comments: readonly Comment[]): Promise<Map<string, string>> {
  const c = app.connection;
  const found = await Promise.all(
    comments.map(async (comment): Promise<[string, string | undefined]> => {
      if (!c) return [comment.id, comment.clientAddress];
      const path = `/blogs/${encodeURIComponent(c.blogId)}/posts/${encodeURIComponent(comment.post.id)}/comments/${encodeURIComponent(comment.id)}`;
      const res = await fetch(`${c.api}${path}?view=ADMIN`, {
        headers: { authorization: `Bearer ${c.token}` },
      }).catch(() => undefined);
      const wire = res?.ok ? ((await res.json()) as Comment) : undefined;
      return [comment.id, wire?.clientAddress];
    }),
  );
  return new Map(found.filter((f): f is [string, string] => f[1] !== undefined));
}

/**
 * The server this editor replicates with, if any: its API root, the bearer token and the blog, kept in localStorage (this example's choice: the token lives in this browser profile, like a saved
 * password). No connection means the editor is local-only, as it always was.
 */
export interface Connection {
  /** The API root, e.g. `http://127.0.0.1:8080/v3`. */
  api: string;
  token: string;
  blogId: string;
  blogName: string;
}

const KEY = 'blogcore-editor:connection';

export function savedConnection(): Connection | null {
  try {
    const c = JSON.parse(localStorage.getItem(KEY) ?? 'null') as Partial<Connection> | null;
    return c && typeof c.api === 'string' && typeof c.token === 'string' && typeof c.blogId === 'string'
      ? (c as Connection)
      : null;
  } catch {
    return null;
  }
}

export const saveConnection = (c: Connection) => localStorage.setItem(KEY, JSON.stringify(c));
export const forgetConnection = () => localStorage.removeItem(KEY);

/** One IndexedDB database per server and blog, apart from the local-only editor's. */
export const replicaDatabase = (c: Connection) => `blogcore-replica:${new URL(c.api).host}:${c.blogId}`;

/** `http://host:8080`, `…/v3` or `…/v3/` → `http://host:8080/v3`. */
export function apiRoot(address: string): string {
  let url: URL;
  try {
    url = new URL(address.trim());
  } catch {
    throw signInError(`“${address}” is not a web address such as http://127.0.0.1:8080.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw signInError('The server address starts with http:// or https://.');
  }
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${path.endsWith('/v3') ? path : `${path}/v3`}`;
}

/** A sign-in that did not work, said in words (errors.ts titles it). */
function signInError(message: string): Error {
  const error = new Error(message);
  error.name = 'SignInError';
  return error;
}

export interface Account {
  blogs: Array<{ id: string; name: string }>;
}

/** Asks the server which blogs the token's user has (a token it does not know is refused here). */
export async function signIn(api: string, token: string): Promise<Account> {
  const get = async (path: string) => {
    let res: Response;
    try {
      res = await fetch(`${api}${path}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
    } catch {
      throw signInError(
        `No answer from ${new URL(api).origin}. Is the server running, and does it let this page in (blogcore serve --cors ${location.origin})?`,
      );
    }
    const json = (await res.json().catch(() => null)) as Record<string, unknown> | null;
    if (!res.ok) {
      const e = (json?.error ?? {}) as { message?: string; errors?: Array<{ reason?: string }> };
      const why =
        res.status === 401
          ? 'The server does not know this token.'
          : `The server answered ${res.status} ${e.errors?.[0]?.reason ?? ''}.`;
      throw signInError(`${why} ${e.message ?? ''}`.trim());
    }
    return json ?? {};
  };
  const list = (await get('/users/self/blogs')) as { items?: Array<{ id: string; name: string }> };
  return { blogs: (list.items ?? []).map(({ id, name }) => ({ id, name })) };
}

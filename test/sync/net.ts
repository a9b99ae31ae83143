/**
 * A real fetch with switches: while `offline`, requests fail the way a browser's do without a network;
 * `target` sends them to another origin (a restarted server on a new port); `lose` drops the answer of a
 * request after the server handled it (the connection died on the way back).
 */
export interface Net {
  offline: boolean;
  target?: string;
  /** Called with `METHOD path?query` once the server answered; true: the answer is lost. */
  lose?: (request: string) => boolean | Promise<boolean>;
  /** Requests that reached the server, as `METHOD path?query` (path after /v3). */
  log: string[];
  fetch: typeof fetch;
}

export function net(): Net {
  const n: Net = {
    offline: false,
    log: [],
    fetch: async (input, init) => {
      if (n.offline) throw new TypeError('Failed to fetch');
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (n.target) {
        const to = new URL(n.target);
        url.host = to.host;
      }
      const line = `${init?.method ?? 'GET'} ${url.pathname.replace(/^\/v3/, '')}${url.search}`;
      n.log.push(line);
      const res = await fetch(url, init);
      if (await n.lose?.(line)) {
        await res.body?.cancel();
        throw new TypeError('Failed to fetch');
      }
      return res;
    },
  };
  return n;
}

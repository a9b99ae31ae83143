/** A real fetch with a switch: while `offline`, requests fail the way a browser's do without a network. */
export interface Net {
  offline: boolean;
  /** Requests that reached the server, as `METHOD path`. */
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
      n.log.push(`${init?.method ?? 'GET'} ${url.pathname.replace(/^\/v3/, '')}`);
      return fetch(input, init);
    },
  };
  return n;
}

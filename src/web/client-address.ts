/**
 * Who is asking (docs/design.md §25): the address of the client behind a request, from the connection (the Node
 * adapter's socket, or a Fetch host's `clientAddress(request)`) and, behind trusted proxies only, from
 * `X-Forwarded-For`. The comment limits count by it; nothing of it is answered to anyone but a blog's ADMINs.
 */
import type { IncomingLike } from './dispatch.js';
import type { RequestHead } from './head.js';
import { addressBytes, normalizeAddress, rangeMatcher } from '../util/addresses.js';

/**
 * The proxies in front of the server, whose `X-Forwarded-For` is believed: how many hops (1: one proxy, e.g.
 * a load balancer), or the proxies' own addresses and CIDR ranges (`['10.0.0.0/8', '::1']`). Default none:
 * the header is ignored, as anyone can write it.
 */
export type TrustProxy = number | readonly string[];

/** The options of `createHttpHandler` and `createSite` that say who is asking. */
export interface ClientAddressOptions {
  /** Proxies whose `X-Forwarded-For` is believed (see `TrustProxy`). Default none. */
  trustProxy?: TrustProxy;
  /**
   * The address of the connection, for Fetch hosts (the Node adapter reads the socket itself): e.g. Bun's
   * `(req) => server.requestIP(req)?.address`. Answering nothing leaves the request without an address (only
   * user-based comment limits apply to it).
   */
  clientAddress?: (request: RequestHead) => string | null | undefined;
}

/**
 * The resolver of a handler's options: from the connection's address and the request's `X-Forwarded-For`, the
 * client's address (normalized), or undefined when none is known. Options are checked here, once.
 */
export function clientAddressResolver(options: ClientAddressOptions): (incoming: IncomingLike) => string | undefined {
  const { trustProxy, clientAddress } = options;
  if (clientAddress !== undefined && typeof clientAddress !== 'function')
    throw new TypeError('clientAddress must be a function of the request');
  let trusted: (address: string, hop: number) => boolean = () => false;
  if (typeof trustProxy === 'number') {
    if (!Number.isInteger(trustProxy) || trustProxy < 0) throw new TypeError('trustProxy hops must be an integer ≥ 0');
    trusted = (_address, hop) => hop < trustProxy;
  } else if (trustProxy !== undefined) {
    if (!Array.isArray(trustProxy)) throw new TypeError('trustProxy is a hop count or a list of addresses and CIDRs');
    const inList = rangeMatcher(trustProxy);
    trusted = (address) => inList(address);
  }
  return (incoming) => {
    const peer = clientAddress ? (clientAddress(incoming.head()) ?? undefined) : incoming.peer;
    if (peer === undefined || peer === '') return undefined;
    let address = normalizeAddress(peer);
    if (trustProxy === undefined) return address;
    // From the nearest hop outwards: each trusted proxy vouches for the address it says it served.
    const forwarded = (incoming.header('x-forwarded-for') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    for (let hop = 0; trusted(address, hop); hop++) {
      const next = forwarded.pop();
      if (next === undefined || addressBytes(next) === undefined) break;
      address = normalizeAddress(next);
    }
    return address;
  };
}

/** Who sent a request, as comments.insert takes it: its address, `User-Agent` and `Referer`, where known. */
export function clientOf(incoming: IncomingLike, addressOf: (incoming: IncomingLike) => string | undefined) {
  const address = addressOf(incoming);
  const userAgent = incoming.header('user-agent');
  const referrer = incoming.header('referer');
  return {
    ...(address !== undefined ? { clientAddress: address } : {}),
    ...(userAgent !== null ? { userAgent: userAgent.slice(0, 2000) } : {}),
    ...(referrer !== null ? { referrer: referrer.slice(0, 2000) } : {}),
  };
}

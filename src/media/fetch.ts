/**
 * Downloads a picture for an import (docs/design.md §19): http(s) only, at most MAX_REDIRECTS redirects (each hop
 * checked again), a timeout for the answer and for every pause in the bytes, and never an address of
 * addresses.ts unless the host is allowed. On Node the check is made on the address each connection really
 * goes to (a DNS answer that changes between a check and the connection cannot slip through); elsewhere
 * (browsers, whose fetch follows redirects itself) only on the url's own host. The body is handed on as a
 * stream: the caller's checks decide.
 */
import { isPrivateAddress } from './addresses.js';

export interface FetchPolicy {
  /** Allow every host (`true`), or these host names, even where they lead to private addresses. */
  allowPrivateHosts?: boolean | readonly string[] | undefined;
  /** For the answer, and for every pause in the bytes (ms). */
  timeoutMs: number;
}

export interface Fetched {
  contentType: string | undefined;
  /** The declared length, when there is one. */
  length: number | undefined;
  body: AsyncIterable<Uint8Array>;
  /** Drops the connection (when the body is not read to its end). */
  abort(): void;
}

/** Why a download failed, said for the import's `skipped` list. */
export class FetchFailure extends Error {
  override readonly name = 'FetchFailure';
}

const MAX_REDIRECTS = 5;

const allowed = (host: string, policy: FetchPolicy) =>
  policy.allowPrivateHosts === true ||
  (Array.isArray(policy.allowPrivateHosts) && policy.allowPrivateHosts.includes(host.toLowerCase()));

function checkUrl(url: URL, policy: FetchPolicy): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new FetchFailure(`not an http(s) url (${url.protocol})`);
  if (url.username || url.password) throw new FetchFailure('a url with user info');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (allowed(host, policy)) return;
  if (/^[\d.]+$|:/.test(host) ? isPrivateAddress(host) : host === 'localhost' || host.endsWith('.localhost')) {
    throw new FetchFailure(
      `${host} is a private, loopback or link-local address (allowPrivateHosts lets an import reach it)`,
    );
  }
}

type NodeModules = {
  http: typeof import('node:http');
  https: typeof import('node:https');
  dns: typeof import('node:dns');
};
const builtin = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
const node: NodeModules | undefined = builtin
  ? {
      http: builtin('node:http') as NodeModules['http'],
      https: builtin('node:https') as NodeModules['https'],
      dns: builtin('node:dns') as NodeModules['dns'],
    }
  : undefined;

/** Starts a download; resolves once the answer's head is in (the bytes follow through `body`). */
export async function fetchPicture(href: string, policy: FetchPolicy): Promise<Fetched> {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    throw new FetchFailure('not a url');
  }
  for (let hop = 0; ; hop++) {
    checkUrl(url, policy);
    const answer = node ? await nodeGet(node, url, policy) : await webGet(url, policy);
    if (answer.status >= 300 && answer.status < 400 && answer.location !== undefined) {
      answer.abort();
      if (hop >= MAX_REDIRECTS) throw new FetchFailure(`more than ${MAX_REDIRECTS} redirects`);
      try {
        url = new URL(answer.location, url);
      } catch {
        throw new FetchFailure('a redirect to something that is not a url');
      }
      continue;
    }
    if (answer.status !== 200) {
      answer.abort();
      throw new FetchFailure(`HTTP ${answer.status}`);
    }
    return answer;
  }
}

type Answer = Fetched & { status: number; location: string | undefined };

function nodeGet(m: NodeModules, url: URL, policy: FetchPolicy): Promise<Answer> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const free = allowed(host, policy);
  // Every address a connection to this host may use is checked as it is looked up.
  const lookup = (hostname: string, options: object, callback: (...args: unknown[]) => void) => {
    m.dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error);
      const bad = free ? undefined : addresses.find((a) => isPrivateAddress(a.address));
      if (bad)
        return callback(
          new FetchFailure(`${hostname} leads to ${bad.address}, a private, loopback or link-local address`),
        );
      if ((options as { all?: boolean }).all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
  const lib = url.protocol === 'https:' ? m.https : m.http;
  return new Promise((resolve, reject) => {
    const req = lib.get(
      url,
      { lookup: lookup as never, headers: { accept: 'image/*', 'user-agent': 'blogcore-import' } },
      (res) => {
        res.setTimeout(policy.timeoutMs, () => res.destroy(new FetchFailure(`no bytes for ${policy.timeoutMs} ms`)));
        const length = Number(res.headers['content-length']);
        resolve({
          status: res.statusCode ?? 0,
          location: res.headers.location,
          contentType: res.headers['content-type'],
          length: Number.isSafeInteger(length) ? length : undefined,
          body: res,
          abort: () => res.destroy(),
        });
      },
    );
    req.setTimeout(policy.timeoutMs, () => req.destroy(new FetchFailure(`no answer in ${policy.timeoutMs} ms`)));
    req.on('error', (e) =>
      reject(e instanceof FetchFailure ? e : new FetchFailure((e as NodeJS.ErrnoException).code ?? e.message)),
    );
  });
}

async function webGet(url: URL, policy: FetchPolicy): Promise<Answer> {
  const controller = new AbortController();
  let timer = setTimeout(() => controller.abort(), policy.timeoutMs);
  let res: Response;
  try {
    res = await fetch(url, { signal: controller.signal, headers: { accept: 'image/*' } });
  } catch (e) {
    clearTimeout(timer);
    throw new FetchFailure(
      controller.signal.aborted ? `no answer in ${policy.timeoutMs} ms` : String((e as Error).message),
    );
  }
  clearTimeout(timer);
  async function* body(): AsyncGenerator<Uint8Array> {
    const reader = res.body!.getReader();
    try {
      for (;;) {
        timer = setTimeout(() => controller.abort(), policy.timeoutMs);
        const { done, value } = await reader.read();
        clearTimeout(timer);
        if (done) return;
        yield value;
      }
    } finally {
      clearTimeout(timer);
      reader.releaseLock();
    }
  }
  const length = Number(res.headers.get('content-length'));
  return {
    status: res.status,
    location: res.headers.get('location') ?? undefined,
    contentType: res.headers.get('content-type') ?? undefined,
    length: Number.isSafeInteger(length) && res.headers.has('content-length') ? length : undefined,
    body: res.body ? body() : (async function* () {})(),
    abort: () => controller.abort(),
  };
}

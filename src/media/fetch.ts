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
  /** For the whole download, answer, redirects and bytes (ms): a server that drips bytes is cut off. */
  deadlineMs?: number | undefined;
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

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** A connection's failure as a reason someone can act on (the system's code kept at the end). */
function reasonOf(error: NodeJS.ErrnoException, host: string): string {
  const code = error.code ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME')
    return `could not resolve ${host}: no network, or no such host (${code})`;
  if (code === 'ECONNREFUSED') return `${host} refused the connection (${code})`;
  if (code === 'ECONNRESET' || code === 'EPIPE') return `${host} closed the connection (${code})`;
  if (code === 'ETIMEDOUT' || code === 'ENETUNREACH' || code === 'EHOSTUNREACH')
    return `${host} cannot be reached: no network, or a firewall (${code})`;
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(code))
    return `${host}'s certificate is not valid or not trusted (${code})`;
  return code ? `${error.message} (${code})` : error.message;
}

/** Starts a download; resolves once the answer's head is in (the bytes follow through `body`). */
export async function fetchPicture(href: string, policy: FetchPolicy): Promise<Fetched> {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    throw new FetchFailure('not a url');
  }
  const deadline = Date.now() + (policy.deadlineMs ?? Number.POSITIVE_INFINITY);
  for (let hop = 0; ; hop++) {
    checkUrl(url, policy);
    const answer = node ? await nodeGet(node, url, policy, deadline) : await webGet(url, policy);
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

function nodeGet(m: NodeModules, url: URL, policy: FetchPolicy, deadline: number): Promise<Answer> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const started = Date.now();
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
    // Said only when it happened, with the time it took: the timers fire only then.
    const cut = (target: { destroy(e: Error): void }, why: string) => target.destroy(new FetchFailure(why));
    let whole: ReturnType<typeof setTimeout> | undefined;
    const req = lib.get(
      url,
      { lookup: lookup as never, headers: { accept: 'image/*', 'user-agent': 'blogcore-import' } },
      (res) => {
        req.off('timeout', noAnswer); // the answer came: from here on only the pauses in its bytes count
        // (The socket's idle timer fires only after that long without a byte.)
        res.setTimeout(policy.timeoutMs, () => cut(res, `${host} sent nothing for ${seconds(policy.timeoutMs)}`));
        if (whole) clearTimeout(whole);
        if (deadline !== Number.POSITIVE_INFINITY) {
          const t = setTimeout(
            () => cut(res, `${host} did not finish in ${seconds(Date.now() - started)} (the limit of a download)`),
            Math.max(0, deadline - Date.now()),
          );
          res.once('close', () => clearTimeout(t));
        }
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
    const noAnswer = () => cut(req, `no answer from ${host} in ${seconds(Date.now() - started)}`);
    req.setTimeout(policy.timeoutMs, noAnswer);
    if (deadline !== Number.POSITIVE_INFINITY) {
      whole = setTimeout(
        () => cut(req, `no answer from ${host} in ${seconds(Date.now() - started)} (the limit of a download)`),
        Math.max(0, deadline - Date.now()),
      );
    }
    req.on('error', (e) => {
      if (whole) clearTimeout(whole);
      reject(e instanceof FetchFailure ? e : new FetchFailure(reasonOf(e, host)));
    });
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

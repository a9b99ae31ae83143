/**
 * What `authenticate` and `onError` receive: the method, URL and headers of a request. On the Fetch path
 * that is the `Request` itself; the Node adapter passes a `NodeRequestHead`, which reads the Node request's
 * headers in place instead of copying them into a Fetch `Request` per call (that copy cost more than routing).
 */

/** The method, URL and headers of a request (a Fetch `Request` is one). */
export interface RequestHead {
  /** Upper-case method. */
  readonly method: string;
  /** The absolute URL the client asked for (no user info). */
  readonly url: string;
  /** The request headers, read-only. */
  readonly headers: Headers;
}

type RawHeaders = Record<string, string | string[] | undefined>;

function readOnly(): never {
  throw new TypeError('Request headers are read-only');
}

/** A read-only `Headers` over a Node request's header object (names lower-case, repeats joined with ", "). */
export class NodeHeaders implements Headers {
  constructor(private readonly raw: RawHeaders) {}

  get(name: string): string | null {
    const key = name.toLowerCase();
    const v = Object.hasOwn(this.raw, key) ? this.raw[key] : undefined;
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  getSetCookie(): string[] {
    const v = this.raw['set-cookie'];
    return v === undefined ? [] : Array.isArray(v) ? [...v] : [v];
  }

  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const [k, v] of this.list()) callback.call(thisArg, v, k, this);
  }

  entries(): HeadersIterator<[string, string]> {
    return this.list()[Symbol.iterator]() as unknown as HeadersIterator<[string, string]>;
  }

  keys(): HeadersIterator<string> {
    return this.list()
      .map(([k]) => k)
      [Symbol.iterator]() as unknown as HeadersIterator<string>;
  }

  values(): HeadersIterator<string> {
    return this.list()
      .map(([, v]) => v)
      [Symbol.iterator]() as unknown as HeadersIterator<string>;
  }

  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.entries();
  }

  append(_name: string, _value: string): void {
    readOnly();
  }

  set(_name: string, _value: string): void {
    readOnly();
  }

  delete(_name: string): void {
    readOnly();
  }

  /** Sorted by name, as a Fetch `Headers` iterates. */
  private list(): Array<[string, string]> {
    const out: Array<[string, string]> = [];
    for (const k of Object.keys(this.raw).sort()) {
      if (k.startsWith(':')) continue; // HTTP/2 pseudo-headers
      const v = this.get(k);
      if (v !== null) out.push([k, v]);
    }
    return out;
  }
}

/** HTTP status -> the canonical status name Google puts beside the code in its error bodies. */
const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'ABORTED',
  412: 'FAILED_PRECONDITION',
  413: 'OUT_OF_RANGE',
  415: 'INVALID_ARGUMENT',
  416: 'OUT_OF_RANGE',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/** Stable machine-readable reasons, as in Google's `errors[].reason`. */
export type ErrorReason =
  | 'required'
  | 'invalid'
  | 'parseError'
  | 'authError'
  | 'forbidden'
  | 'notFound'
  | 'methodNotAllowed'
  | 'conflict'
  | 'conditionNotMet'
  | 'notModified'
  | 'requestTooLarge'
  | 'unsupportedMediaType'
  | 'backendError'
  | 'resyncRequired'
  | 'requestedRangeNotSatisfiable'
  | 'rateLimitExceeded';

export interface BlogErrorInit {
  code: number;
  reason: ErrorReason;
  message: string;
  /** The parameter, body field or header at fault. */
  location?: string;
  locationType?: 'parameter' | 'header' | 'body';
  /** A 429's wait: seconds until the caller may try again (HTTP `Retry-After`). */
  retryAfter?: number;
}

/** Google's JSON error body. */
export interface GoogleErrorBody {
  error: {
    code: number;
    message: string;
    status: string;
    errors: Array<{ domain: 'global'; reason: string; message: string; location?: string; locationType?: string }>;
  };
}

const BRAND = Symbol.for('blogcore.BlogError');

/** Every failure the service reports on purpose. `code` is the HTTP status it maps to. */
export class BlogError extends Error {
  override readonly name = 'BlogError';
  readonly code: number;
  readonly reason: ErrorReason;
  readonly location?: string;
  readonly locationType?: 'parameter' | 'header' | 'body';
  /** A 429's wait: seconds until the caller may try again (sent as `Retry-After`). */
  readonly retryAfter?: number;
  readonly [BRAND] = true;

  constructor(init: BlogErrorInit) {
    super(init.message);
    this.code = init.code;
    this.reason = init.reason;
    // (Both are own properties either way: class fields are defined even when undefined.)
    this.location = init.location;
    this.locationType = init.locationType;
    if (init.retryAfter !== undefined) this.retryAfter = init.retryAfter;
  }

  /** True for a BlogError from any copy of this package (where `instanceof` would fail). */
  static is(value: unknown): value is BlogError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  toJSON(): GoogleErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        status: STATUS_NAMES[this.code] ?? 'UNKNOWN',
        errors: [
          {
            domain: 'global',
            reason: this.reason,
            message: this.message,
            ...(this.location !== undefined
              ? { location: this.location, locationType: this.locationType ?? 'parameter' }
              : {}),
          },
        ],
      },
    };
  }
}

export const notFound = (what: string) =>
  new BlogError({ code: 404, reason: 'notFound', message: `${what} not found` });
export const forbidden = (message = "You don't have permission to do this") =>
  new BlogError({ code: 403, reason: 'forbidden', message });
export const invalid = (location: string, message: string) =>
  new BlogError({ code: 400, reason: 'invalid', message, location, locationType: 'parameter' });
export const required = (location: string) =>
  new BlogError({
    code: 400,
    reason: 'required',
    message: `Required parameter: ${location}`,
    location,
    locationType: 'parameter',
  });
export const conflict = (message: string) => new BlogError({ code: 409, reason: 'conflict', message });
export const conditionNotMet = () =>
  new BlogError({
    code: 412,
    reason: 'conditionNotMet',
    message: 'Precondition Failed: the resource changed since the given etag',
    location: 'If-Match',
    locationType: 'header',
  });

/**
 * A request a server refused (or could not be reached: `status` 0): what blogcore/sync's client of a blogcore
 * server throws (`status` and Google's `reason` from the server's error body). Here beside BlogError so the
 * replica's parts loaded on first use (its pictures) share it without a chunk of their own (docs/design.md §26).
 */
export class RemoteError extends Error {
  override readonly name = 'RemoteError';
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    /** The server's JSON answer, when there was one. */
    readonly body?: unknown,
  ) {
    super(message);
  }
}

/** Query strings as the wire sends them → the typed params of the in-process methods. */
import { BlogError } from '../util/errors.js';
import { isUnspecified } from './override.js';
import type { ParamKind } from './routes.js';

/** Google's global ("system") parameters: accepted on every route. */
export interface GlobalParams {
  /** `prettyPrint` (Google's default: true). */
  pretty: boolean;
  /** `fields`, the partial-response selector, unparsed. */
  fields?: string;
}

const GLOBAL = new Set([
  'key',
  'alt',
  'prettyPrint',
  'quotaUser',
  'fields',
  'access_token',
  'oauth_token',
  '$.xgafv',
  'callback',
  'uploadType',
  'upload_protocol',
]);

const badParam = (location: string, message: string) =>
  new BlogError({ code: 400, reason: 'invalid', message, location, locationType: 'parameter' });

export function parseBool(name: string, value: string): boolean {
  const v = value.toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw badParam(name, `Invalid value for ${name}: "${value}" (expected true or false)`);
}

export function parseUint(name: string, value: string): number {
  // uint32 on the wire; ranges (e.g. maxResults 1..500) are the service's to check.
  if (!/^\d{1,10}$/.test(value))
    throw badParam(name, `Invalid value for ${name}: "${value}" (expected a non-negative integer)`);
  const n = Number(value);
  if (n > 0xffffffff) throw badParam(name, `Invalid value for ${name}: "${value}" (expected a non-negative integer)`);
  return n;
}

/**
 * Converts `search` for one route. Unknown parameters are rejected (a misspelt `stauts=DRAFT` must not
 * quietly list LIVE posts), a single-valued parameter given twice is rejected, empty values count as absent.
 */
export function parseQuery(
  search: URLSearchParams,
  spec: Readonly<Record<string, ParamKind>>,
): { params: Record<string, unknown>; global: GlobalParams } {
  const params: Record<string, unknown> = {};
  const global: GlobalParams = { pretty: true };
  const seen = new Set<string>();
  for (const name of search.keys()) {
    if (seen.has(name)) continue;
    seen.add(name);
    const values = search.getAll(name);
    if (GLOBAL.has(name)) {
      readGlobal(name, values, global);
      continue;
    }
    // Own keys only: `__proto__`, `constructor` or `toString` are unknown like any misspelt name.
    const kind = Object.hasOwn(spec, name) ? spec[name] : undefined;
    if (kind === undefined) throw badParam(name, `Unknown parameter: ${name}`);
    if (kind === 'list') {
      const items = values
        .flatMap((v) => v.split(','))
        .map((v) => v.trim())
        .filter((v) => v !== '' && !isUnspecified(name, v));
      if (items.length > 0) params[name] = items;
      continue;
    }
    if (kind === 'csv') {
      const joined = values.filter((v) => v !== '').join(',');
      if (joined !== '') params[name] = joined;
      continue;
    }
    if (values.length > 1) throw badParam(name, `Parameter ${name} given more than once`);
    const value = values[0]!;
    if (kind === 'ignore') continue;
    if (kind === 'bool') {
      params[name] = parseBool(name, value);
      continue;
    }
    if (value === '' || isUnspecified(name, value)) continue;
    params[name] = kind === 'int' ? parseUint(name, value) : value;
  }
  return { params, global };
}

function readGlobal(name: string, values: string[], global: GlobalParams): void {
  const value = values[values.length - 1]!;
  switch (name) {
    case 'alt':
      if (value.toLowerCase() !== 'json' && value !== '')
        throw badParam('alt', `Unsupported alt: "${value}" (only json)`);
      return;
    case 'prettyPrint':
      if (value !== '') global.pretty = parseBool('prettyPrint', value);
      return;
    case 'fields':
      if (values.length > 1) throw badParam('fields', 'Parameter fields given more than once');
      if (value !== '') global.fields = value;
      return;
    case 'quotaUser':
      if (value.length > 40) throw badParam('quotaUser', 'quotaUser is at most 40 characters');
      return;
    default:
      // key, access_token, oauth_token (the host's authenticate may read them), $.xgafv, callback, uploads.
      return;
  }
}

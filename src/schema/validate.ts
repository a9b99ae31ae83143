/**
 * A small validator kit for the parameters and bodies the service accepts (used by src/schema/schemas.ts). A schema
 * checks a value and returns what the service works with (trimmed, upper-cased, deduplicated); the first
 * problem is thrown as a 400 BlogError naming the parameter or body field at fault. Hand-written because a
 * general validation library was over half of the browser bundle; the public parameter types live in
 * src/schema/params.ts and test/types/ proves they accept exactly what these schemas accept.
 */
import { BlogError } from '../util/errors.js';

type Path = readonly string[];

export interface Schema<I, O = I> {
  /** Checks `value`, found at `path`, and returns it parsed; throws a BlogError on the first problem. */
  parse(value: unknown, path: Path): O;
  /** An object may leave this key out. */
  readonly optional?: true;
  /** Type only: what a caller may pass. */
  readonly input?: I;
}

export type In<S> = S extends Schema<infer I, unknown> ? I : never;
export type Out<S> = S extends { parse(value: unknown, path: Path): infer O } ? O : never;

const where = (path: Path) => path.join('.') || 'request';

/** The 400 `invalid` for the value at `path`. */
export function fail(path: Path, message: string): never {
  const location = where(path);
  throw new BlogError({ code: 400, reason: 'invalid', message: `Invalid value for ${location}: ${message}`, location, locationType: 'parameter' });
}

const typeName = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' && !Number.isFinite(v) ? String(v) : typeof v);
const expected = (type: string, value: unknown, path: Path): never => fail(path, `Invalid input: expected ${type}, received ${typeName(value)}`);

/** Checks the whole parameter object; what the service methods call first. */
export function parse<S extends Schema<unknown, unknown>>(schema: S, input: unknown): Out<S> {
  if (input === null || typeof input !== 'object') {
    throw new BlogError({ code: 400, reason: 'invalid', message: 'Parameters must be an object', location: 'request', locationType: 'parameter' });
  }
  return schema.parse(input, []) as Out<S>;
}

export const unknown: Schema<unknown> = { parse: (v) => v };

export const bool: Schema<boolean> = { parse: (v, path) => (typeof v === 'boolean' ? v : expected('boolean', v, path)) };

/** A string of `min`..`max` characters; `tooLong` replaces the generic message for the upper bound. */
export function string(min: number, max: number, tooLong = `Too big: expected string to have <=${max} characters`): Schema<string> {
  return {
    parse(v, path) {
      if (typeof v !== 'string') return expected('string', v, path);
      if (v.length < min) fail(path, `Too small: expected string to have >=${min} characters`);
      if (v.length > max) fail(path, tooLong);
      return v;
    },
  };
}

/** A whole number in `min`..`max`. */
export function integer(min: number, max: number): Schema<number> {
  return {
    parse(v, path) {
      if (typeof v !== 'number' || !Number.isFinite(v)) return expected('number', v, path);
      if (!Number.isInteger(v)) fail(path, 'Invalid input: expected int, received number');
      if (v < min) fail(path, `Too small: expected number to be >=${min}`);
      if (v > max) fail(path, `Too big: expected number to be <=${max}`);
      return v;
    },
  };
}

export const number: Schema<number> = { parse: (v, path) => (typeof v === 'number' && Number.isFinite(v) ? v : expected('number', v, path)) };

/** Also accepts `undefined` (and an object may leave the key out). */
export function optional<I, O>(schema: Schema<I, O>): Schema<I | undefined, O | undefined> & { optional: true } {
  return { parse: (v, path) => (v === undefined ? undefined : schema.parse(v, path)), optional: true };
}

/** `schema`, then `ok` must hold for its result. */
export function refine<I, O>(schema: Schema<I, O>, ok: (value: O) => boolean, message: string): Schema<I, O> {
  return {
    parse(v, path) {
      const out = schema.parse(v, path);
      return ok(out) ? out : fail(path, message);
    },
  };
}

/** `schema`, then `fn` turns its result into what the service keeps (it may call `fail`). */
export function map<I, O, R>(schema: Schema<I, O>, fn: (value: O, path: Path) => R): Schema<I, R> {
  return { parse: (v, path) => fn(schema.parse(v, path), path) };
}

/** An enum matched case-insensitively, returned as `values` spells it (upper-case but for pageViews' `all`). */
export function upperEnum<T extends string>(values: readonly T[]): Schema<T> {
  return {
    parse(v, path) {
      if (typeof v !== 'string') return expected('string', v, path);
      const up = v.toUpperCase();
      return values.find((x) => x.toUpperCase() === up) ?? fail(path, `must be one of ${values.join(', ')}`);
    },
  };
}

/** Extra JSON Schema words for the OpenAPI document (e.g. a date-time format); no change to the check. */
export const describe = <S>(schema: S, _json: Record<string, unknown>): S => schema;

/** An array (read-only ones too) of at most `max` items; an item's problem is reported at the array's path. */
export function array<I, O>(item: Schema<I, O>, max: number, tooMany: string): Schema<readonly I[], O[]> {
  return {
    parse(v, path) {
      if (!Array.isArray(v)) return expected('array', v, path);
      const out = v.map((x) => item.parse(x, path));
      return out.length > max ? fail(path, tooMany) : out;
    },
  };
}

/** One value, a comma-joined list, or an array of them: the trimmed non-empty items, deduplicated. */
export function list<T extends string>(item: Schema<T, T>, tooFew: string | undefined, max: number, tooMany: string): Schema<T | readonly T[], T[]> {
  return {
    parse(v, path) {
      if (typeof v !== 'string' && !(Array.isArray(v) && v.every((s) => typeof s === 'string'))) fail(path, 'Invalid input');
      const parts = ([] as string[])
        .concat(v as string | string[])
        .flatMap((s) => s.split(','))
        .map((s) => s.trim())
        .filter(Boolean);
      if (tooFew !== undefined && parts.length === 0) fail(path, tooFew);
      const out = [...new Set(parts.map((s) => item.parse(s, path)))];
      return out.length > max ? fail(path, tooMany) : out;
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: a shape holds schemas of any input and output types
type Shape = Record<string, Schema<any, any>>;
type OptionalKeys<S extends Shape> = { [K in keyof S]: S[K] extends { optional: true } ? K : never }[keyof S];
type Flat<T> = { [K in keyof T]: T[K] } & {};
type ObjectOf<S extends Shape, F extends 'in' | 'out'> = Flat<
  { [K in Exclude<keyof S, OptionalKeys<S>>]: F extends 'in' ? In<S[K]> : Out<S[K]> } & {
    [K in OptionalKeys<S>]?: F extends 'in' ? In<S[K]> : Out<S[K]>;
  }
>;

/**
 * An object with the keys of `shape`. A missing key whose schema is not optional is 400 `required`. Keys
 * not in `shape` are refused when `strict` (a misspelt parameter must not be quietly ignored), else dropped.
 */
export function object<S extends Shape>(shape: S, strict = true): Schema<ObjectOf<S, 'in'>, ObjectOf<S, 'out'>> {
  const entries = Object.entries(shape);
  return {
    parse(v, path) {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return expected('object', v, path);
      const input = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [key, schema] of entries) {
        const value = Object.hasOwn(input, key) ? input[key] : undefined;
        const at = [...path, key];
        if (value === undefined && !schema.optional) {
          throw new BlogError({ code: 400, reason: 'required', message: `Required: ${where(at)}`, location: where(at), locationType: 'parameter' });
        }
        if (Object.hasOwn(input, key)) out[key] = schema.parse(value, at);
      }
      const unknownKeys = strict ? Object.keys(input).filter((k) => !Object.hasOwn(shape, k)) : [];
      if (unknownKeys.length) {
        const inside = path.length ? ` in ${path.join('.')}` : '';
        const message = `Unknown field${unknownKeys.length > 1 ? 's' : ''}${inside}: ${unknownKeys.join(', ')}`;
        throw new BlogError({ code: 400, reason: 'invalid', message, location: [...path, unknownKeys[0]].join('.'), locationType: 'parameter' });
      }
      return out as ObjectOf<S, 'out'>;
    },
  };
}

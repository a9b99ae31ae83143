/**
 * The zod/mini building blocks of src/schema/schemas.ts. Each carries blogcore's own message (zod/mini loads no
 * locale, and blogcore loads none: the messages are part of the wire), counts string lengths in UTF-16 units as
 * every limit of blogcore does (zod's `maxLength` counts code points), and takes what the HTTP wire sends: enum
 * values in any case, comma-joined lists. The JSON Schema words a check cannot show (`maxLength`, `format`) are
 * the schema's metadata, so `z.toJSONSchema` writes them (src/http/openapi.ts).
 */
import * as z from 'zod/mini';

type Issue = { readonly input?: unknown };

const typeName = (v: unknown) =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'array'
      : typeof v === 'number' && !Number.isFinite(v)
        ? String(v)
        : typeof v;

/** "Invalid input: expected string, received number" (a key left out is `required`: src/schema/parse.ts says so). */
const expectedMessage = (type: string, input: unknown) =>
  `Invalid input: expected ${type}, received ${typeName(input)}`;
const expected = (type: string) => (issue: Issue) => expectedMessage(type, issue.input);

/** A value of the wrong type, raised by a transform that checks it itself. */
function wrongType(ctx: z.core.ParsePayload, type: string, input: unknown): never {
  ctx.issues.push({ code: 'invalid_type', expected: type as 'string', input, message: expectedMessage(type, input) });
  return z.NEVER;
}

/** `ok` must hold, else `message`: a plain check (z.refine runs a whole schema for each value, at twice the cost). */
const rule = <T>(ok: (value: T) => boolean, message: string) =>
  z.check<T>((payload) => {
    if (!ok(payload.value)) payload.issues.push({ code: 'custom', message, input: payload.value });
  });

export const unknown = z.unknown();
export const optional = z.optional;

/**
 * Each field of `shape` optional and, `clearable`, `null` too (an update or patch body): Google's APIs read `null`
 * in a patch as "clear this field" (its Go client sends it for `NullFields`), so it clears the field as an update
 * without the field would (docs/design.md §24).
 */
export function optionalEach<S extends Record<string, z.ZodMiniType>>(
  shape: S,
): { [K in keyof S]: z.ZodMiniOptional<S[K]> };
export function optionalEach<S extends Record<string, z.ZodMiniType>>(
  shape: S,
  clearable: true,
): { [K in keyof S]: z.ZodMiniOptional<z.ZodMiniNullable<S[K]>> };
export function optionalEach(shape: Record<string, z.ZodMiniType>, clearable?: true) {
  return Object.fromEntries(Object.entries(shape).map(([k, s]) => [k, z.optional(clearable ? z.nullable(s) : s)]));
}

export const bool = z.boolean({ error: expected('boolean') });
export const number = z.number({ error: expected('number') });

/** A string of `min`..`max` characters (UTF-16 units); `tooLong` replaces the generic message for the upper bound. */
export function string(min: number, max: number, tooLong = `Too big: expected string to have <=${max} characters`) {
  const checks: z.core.$ZodCheck<string>[] = [];
  if (min > 0) checks.push(z.minLength(min, `Too small: expected string to have >=${min} characters`));
  if (Number.isFinite(max))
    checks.push(
      rule((s: string) => s.length <= max, tooLong),
      z.meta({ maxLength: max }),
    );
  return z.string({ error: expected('string') }).check(...checks);
}

/** A whole number in `min`..`max` (zod's own `int()` would add its 2^53 bound and ~0.4 KB gzip to the browser bundle). */
export function integer(min: number, max: number) {
  return number.check(
    rule(Number.isInteger, 'Invalid input: expected int, received number'),
    z.gte(min, `Too small: expected number to be >=${min}`),
    z.lte(max, `Too big: expected number to be <=${max}`),
    z.meta({ type: 'integer' }),
  );
}

/** `schema`, then `ok` must hold for its result. */
export const refine = <S extends z.ZodMiniType>(schema: S, ok: (value: z.output<S>) => boolean, message: string): S =>
  schema.check(rule(ok, message));

/** An enum matched case-insensitively, returned as `values` spells it (upper-case but for pageViews' `all`). */
export function upperEnum<const T extends readonly [string, ...string[]]>(values: T) {
  const byUpper = new Map(values.map((x) => [x.toUpperCase(), x]));
  const canonical = (v: T[number], ctx: z.core.ParsePayload): string =>
    typeof v === 'string' ? (byUpper.get(v.toUpperCase()) ?? v) : wrongType(ctx, 'string', v);
  return z.pipe(z.transform(canonical), z.enum(values, `must be one of ${values.join(', ')}`));
}

/** An array (read-only ones too) of at most `max` items; an item's problem is reported at the array's path. */
export const array = <S extends z.ZodMiniType>(item: S, max: number, tooMany: string) =>
  // Typed by hand only to take read-only arrays (zod infers a mutable one): the check is zod's.
  z.array(item, { error: expected('array') }).check(z.maxLength(max, tooMany)) as unknown as z.ZodMiniType<
    z.output<S>[],
    readonly z.input<S>[]
  >;

/** One value, a comma-joined list, or an array of them: the trimmed non-empty items, deduplicated. */
export function list<S extends z.ZodMiniType<string, string>>(
  item: S,
  tooFew: string | undefined,
  max: number,
  tooMany: string,
) {
  const split = (v: z.input<S> | readonly z.input<S>[], ctx: z.core.ParsePayload): string[] => {
    if (typeof v !== 'string' && !(Array.isArray(v) && v.every((s) => typeof s === 'string'))) {
      ctx.issues.push({ code: 'custom', message: 'Invalid input', input: v });
      return z.NEVER;
    }
    return ([] as string[])
      .concat(v)
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter(Boolean);
  };
  const items = z.array(item).check(
    ...(tooFew === undefined ? [] : [z.minLength(1, tooFew)]),
    z.overwrite((parsed) => [...new Set(parsed)]),
    rule((distinct: unknown[]) => distinct.length <= max, tooMany),
  );
  return z.pipe(z.transform(split), items);
}

/** `schema`, then `fn` turns its result into what the service keeps. */
export const map = <S extends z.ZodMiniType, R>(schema: S, fn: (value: z.output<S>, ctx: z.core.ParsePayload) => R) =>
  z.pipe(schema, z.transform(fn));

/** A refusal raised inside `map`'s function, with its message. */
export function fail(ctx: z.core.ParsePayload, input: unknown, message: string): never {
  ctx.issues.push({ code: 'custom', message, input });
  return z.NEVER;
}

/** Extra JSON Schema words for the OpenAPI document (e.g. a date-time format); no change to the check. */
export const describe = <S extends z.ZodMiniType>(schema: S, json: Record<string, unknown>): S =>
  schema.check(z.meta(json));

const objectError = (issue: z.core.$ZodRawIssue) =>
  issue.code === 'unrecognized_keys'
    ? `Unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`
    : expectedMessage('object', issue.input);

/**
 * An object with the keys of `shape`. A missing key whose schema is not optional is refused. Keys not in
 * `shape` are refused when `strict` (a misspelt parameter must not be quietly ignored), else dropped.
 */
export function object<S extends z.core.$ZodLooseShape>(shape: S): z.ZodMiniObject<S, z.core.$strict>;
export function object<S extends z.core.$ZodLooseShape>(shape: S, strict: false): z.ZodMiniObject<S, z.core.$strip>;
export function object<S extends z.core.$ZodLooseShape>(shape: S, strict = true) {
  return strict ? z.strictObject(shape, { error: objectError }) : z.object(shape, { error: objectError });
}

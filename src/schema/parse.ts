/**
 * Runs a schema of src/schema/schemas.ts over a method's parameters: the parsed value, or the first problem as a
 * 400 BlogError naming the parameter or body field at fault (Google's error shape: `reason` and `location`).
 */
import { safeParse, type core, type output, type ZodMiniType } from 'zod/mini';
import { BlogError } from '../util/errors.js';

/**
 * Checks `input` with `schema` as the service does (every method calls this first): the parsed value, or a 400
 * BlogError naming the field at fault. `parse(postBody, fields)` checks an editor's form by the rules of a write.
 */
export function parse<S extends ZodMiniType>(schema: S, input: unknown): output<S> {
  if (input === null || typeof input !== 'object') {
    throw new BlogError({
      code: 400,
      reason: 'invalid',
      message: 'Parameters must be an object',
      location: 'request',
      locationType: 'parameter',
    });
  }
  // Not `reportInput`: asking zod to keep inputs makes every parse, even a good one, several times slower.
  const result = safeParse(schema, input);
  if (result.success) return result.data;
  throw blogError(result.error.issues[0]!, input);
}

/** The value at `path` in `input`, through own properties only (undefined where there is none). */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/**
 * The BlogError of a zod issue. An array item's problem is reported at the array (its index left out); a key
 * left out (or undefined) is `required`; unknown keys are listed, the first one the location.
 */
function blogError(issue: core.$ZodIssue, input: unknown): BlogError {
  const path = issue.path.filter((p): p is string => typeof p === 'string');
  const location = path.join('.') || 'request';
  const error = (reason: 'invalid' | 'required', message: string, at = location) =>
    new BlogError({ code: 400, reason, message, location: at, locationType: 'parameter' });
  if (issue.code === 'unrecognized_keys') {
    const inside = path.length ? ` in ${path.join('.')}` : '';
    return error(
      'invalid',
      `Unknown field${issue.keys.length > 1 ? 's' : ''}${inside}: ${issue.keys.join(', ')}`,
      [...path, issue.keys[0]].join('.'),
    );
  }
  if (
    issue.code === 'invalid_type' &&
    typeof issue.path.at(-1) === 'string' &&
    valueAt(input, issue.path) === undefined
  ) {
    return error('required', `Required: ${location}`);
  }
  return error('invalid', `Invalid value for ${location}: ${issue.message}`);
}

/**
 * The validator kit of src/schema/validate.ts again, building JSON Schema instead of checks: src/schema/schemas.ts's
 * `defineParams` run with it gives each operation's parameters as JSON Schema for the OpenAPI document
 * (src/http/openapi.ts). It lives in the HTTP entry so the browser bundle carries none of it.
 */
import type { Kit } from '../schema/schemas.js';

/** The slice of JSON Schema the OpenAPI document uses. */
export type JsonSchema = { [key: string]: unknown };

/** A schema of this kit: only its JSON Schema (it never checks anything). */
interface Described {
  json: JsonSchema;
  optional?: true;
  parse(): never;
}

const unused = (): never => {
  throw new Error('a JSON Schema description does not check values');
};
const of = (json: JsonSchema, optional?: true): Described => ({ json, parse: unused, ...(optional ? { optional } : {}) });
const jsonOf = (s: unknown) => (s as Described).json;

const kit = {
  unknown: of({}),
  bool: of({ type: 'boolean' }),
  number: of({ type: 'number' }),
  string: (min: number, max: number) => of({ type: 'string', ...(min > 0 ? { minLength: min } : {}), ...(Number.isFinite(max) ? { maxLength: max } : {}) }),
  integer: (minimum: number, maximum: number) => of({ type: 'integer', minimum, maximum }),
  optional: (s: unknown) => of(jsonOf(s), true),
  refine: (s: unknown) => of(jsonOf(s)),
  map: (s: unknown) => of(jsonOf(s)),
  describe: (s: unknown, extra: JsonSchema) => of({ ...jsonOf(s), ...extra }),
  upperEnum: (values: readonly string[]) => of({ type: 'string', enum: [...values] }),
  array: (item: unknown, max: number) => of({ type: 'array', items: jsonOf(item), ...(Number.isFinite(max) ? { maxItems: max } : {}) }),
  // One value, a comma-joined list, or an array of them.
  list: (item: unknown) => of({ anyOf: [{ type: 'string' }, { type: 'array', items: jsonOf(item) }] }),
  object: (shape: Record<string, Described>, strict = true) => {
    const entries = Object.entries(shape);
    return of({
      type: 'object',
      properties: Object.fromEntries(entries.map(([k, s]) => [k, s.json])),
      required: entries.filter(([, s]) => !s.optional).map(([k]) => k),
      ...(strict ? { additionalProperties: false } : {}),
    });
  },
};

/** The JSON Schema kit, typed as the validator kit so `defineParams` accepts it. */
export const jsonKit = kit as unknown as Kit;

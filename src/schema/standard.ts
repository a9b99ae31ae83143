/**
 * A schema whose parsed value is `Out`, seen through Standard Schema (which zod implements). The core's own
 * declarations name this rather than a zod type, so the `.d.ts` of `blogcore` needs no zod.
 */
export interface Schema<Out = unknown> {
  readonly '~standard': { readonly types?: { readonly output: Out } | undefined };
}
/** What `schema` parses to. */
export type Output<S extends Schema> = NonNullable<S['~standard']['types']>['output'];

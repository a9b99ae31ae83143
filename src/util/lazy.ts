/**
 * Calls browsers rarely make are loaded on first use: each method `import()`s its module when called, so an
 * app's bundler puts that code in a chunk of its own, fetched only then, and the first download stays small
 * (docs/design.md §13). The loaded method does all the work, its parameter checks and errors included.
 */
// biome-ignore lint/suspicious/noExplicitAny: any method's parameters
type Method = (...args: any[]) => Promise<unknown>;

/** `names` when it lists every method of `T`; otherwise a type that says which are missing. */
type EveryMethod<T, Names extends readonly (keyof T)[]> = [Exclude<keyof T, Names[number]>] extends [never]
  ? Names
  : { missing: Exclude<keyof T, Names[number]> };

/**
 * An API of `T`'s methods whose calls run `load()`'s (`methods` names them all, checked by the compiler).
 * `load` runs on the first call and is kept once it succeeded (a failed load, e.g. a chunk that could not be
 * fetched, is tried again on the next call), so a hot lazy call such as `pageViews.record` costs no import.
 */
export function lazy<T extends { [K in keyof T]: Method }, const Names extends readonly (keyof T)[]>(
  load: () => Promise<T>,
  methods: Names & EveryMethod<T, Names>,
): T {
  let loaded: Promise<T> | undefined;
  const get = () =>
    (loaded ??= load().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    }));
  const api: Partial<Record<keyof T, Method>> = {};
  for (const name of methods) api[name] = async (...args) => (await get())[name](...args);
  return api as T;
}

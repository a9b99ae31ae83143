/**
 * The package's public entry points, one line each: subpath → source file. tsup builds one dist/<name> per line
 * and `npm run exports` writes the matching `exports` and `typesVersions` into package.json (CI checks they agree).
 */
export const ENTRIES = {
  '.': 'src/index.ts',
  memory: 'drivers/memory/index.ts',
  sqlite: 'drivers/sqlite/index.ts',
  idb: 'drivers/idb/index.ts',
  postgres: 'drivers/postgres/index.ts',
  http: 'src/http/index.ts',
  io: 'src/io/index.ts',
  sync: 'src/sync/index.ts',
  blobs: 'src/media/blobs/index.ts',
  schema: 'src/schema/index.ts',
  site: 'src/site/index.ts',
  collab: 'src/collab/index.ts',
} as const satisfies Record<string, string>;

/** The dist/ file name of a subpath ('.' is dist/index). */
export const distName = (subpath: string): string => (subpath === '.' ? 'index' : subpath);

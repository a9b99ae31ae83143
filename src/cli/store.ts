/**
 * `--db` → a storage driver. Every store kind the command can open is one entry of STORES: a PostgreSQL
 * `postgres://…` URL, else a SQLite file. A SQLite file is checked before anything is written
 * to it: it must be this program's (or new), and every failure names the file and the cause.
 */
import { accessSync, constants, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { STORE_SCHEMA, type BlogService, type StorageDriver } from 'blogcore';
import { SQLITE_STORAGE_VERSION, sqliteDriver } from 'blogcore/sqlite';
import { CliError } from './errors.js';

export interface OpenOptions {
  /** Create the store when it does not exist (serve), or refuse (token). */
  create: boolean;
  /** Streaming replicas of a postgres:// store to read from. */
  replicas?: readonly string[];
}

interface StoreKind {
  matches(db: string): boolean;
  open(db: string, options: OpenOptions): Promise<StorageDriver>;
}

const STORES: readonly StoreKind[] = [
  { matches: (db) => /^postgres(ql)?:\/\//i.test(db), open: openPostgres },
  { matches: () => true, open: openSqliteFile },
];

/**
 * A `--db` value as every message, hint and log line shows it: a `postgres://` URL without its password (the
 * one in the user part, up to the last `@`, and a `password=` parameter), a file name as it is.
 */
export function shownDb(db: string): string {
  if (!/^postgres(ql)?:\/\//i.test(db)) return db;
  return db.replace(/^(postgres(?:ql)?:\/\/[^:/@]*):[^@]*@/i, '$1:***@').replace(/([?&]password=)[^&#]*/gi, '$1***');
}

/**
 * Any text the command prints (an error from a library, a stack) with the passwords of the `postgres://` URLs
 * it was given replaced by `***`: the last guard behind `shownDb`, for messages blogcore did not write.
 */
export function redactSecrets(text: string, args: readonly string[] = process.argv): string {
  const secrets = new Set<string>();
  for (const arg of args) {
    const url = /postgres(?:ql)?:\/\/\S+/i.exec(arg)?.[0];
    if (!url) continue;
    const inUser = /^postgres(?:ql)?:\/\/[^:/@]*:([^@]*)@/i.exec(url)?.[1];
    const inQuery = [...url.matchAll(/[?&]password=([^&#]*)/gi)].map((m) => m[1]!);
    for (const s of [inUser, ...inQuery]) {
      if (!s) continue;
      secrets.add(s);
      try {
        secrets.add(decodeURIComponent(s));
      } catch {
        // not percent-encoded: the raw form is enough
      }
    }
  }
  let out = text;
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(s).join('***');
  return out;
}

/**
 * `--db postgres://user:pass@host/db[?schema=name]`: the store in that schema (default `blogcore`), created by
 * `serve` when missing; `token` refuses a database without one.
 */
async function openPostgres(db: string, options: OpenOptions): Promise<StorageDriver> {
  const url = new URL(db);
  const schema = url.searchParams.get('schema') ?? 'blogcore';
  url.searchParams.delete('schema');
  const connectionString = url.toString();
  const { postgresDriver } = await import('blogcore/postgres');
  if (!options.create) {
    let pg: typeof import('pg')['default'];
    try {
      pg = (await import('pg')).default;
    } catch (error) {
      throw new CliError(`the PostgreSQL store needs pg beside blogcore: npm install pg (${(error as Error).message})`);
    }
    const client = new pg.Client({ connectionString });
    try {
      await client.connect();
      const found = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
      if (found.rowCount === 0)
        throw new CliError(
          `${shownDb(db)}: no blogcore store in schema ${schema} (\`blogcore serve --db …\` creates one)`,
        );
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw new CliError(`${shownDb(db)}: ${(error as Error).message}`);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  const replicas = (options.replicas ?? []).map((r) => {
    // A ?schema= on a replica's URL names the same store: node-postgres must not see it.
    const u = new URL(r);
    u.searchParams.delete('schema');
    return u.toString();
  });
  return postgresDriver({ connectionString, schema, ...(replicas.length ? { replicas } : {}) });
}

/** The SQLite file `--db` names when it does not exist yet (a command opening it creates it), else undefined. */
export function newStoreFile(db: string): string | undefined {
  return STORES[0]!.matches(db) || existsSync(resolve(db)) ? undefined : resolve(db);
}

/** Removes a store file this run created (`newStoreFile`) with SQLite's files beside it; never one found there. */
export function removeNewStore(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) rmSync(file, { force: true });
}

/** The driver for `--db <db>`; throws a CliError that names the store and the cause. */
export function openDriver(db: string, options: OpenOptions): Promise<StorageDriver> {
  return STORES.find((kind) => kind.matches(db))!.open(db, options);
}

/** A SQLite or file-system error as "<file>: <cause>". */
export function describeSqliteError(db: string, error: unknown): CliError {
  const file = shownDb(db);
  const e = error as { code?: string; message?: string };
  const message = e?.message ?? String(error);
  switch (e?.code) {
    case 'SQLITE_NOTADB':
      return new CliError(`${file}: file is not a database`);
    case 'SQLITE_CANTOPEN':
      return new CliError(
        `${file}: unable to open database file (does its folder exist, and may this user write there?)`,
      );
    case 'SQLITE_READONLY':
    case 'SQLITE_READONLY_DIRECTORY':
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new CliError(`${file}: read-only (${message}); blogcore needs to write the file and its folder`);
    case 'ENOTDIR':
      return new CliError(`${file}: a folder on its path is a regular file`);
    default:
      return new CliError(`${file}: ${message}`);
  }
}

async function openSqliteFile(file: string, options: OpenOptions): Promise<StorageDriver> {
  const path = resolve(file);
  // A path under a regular file (`blog.db/x.db`): say which part is the file.
  let existing = path;
  while (!existsSync(existing)) existing = dirname(existing);
  if (existing !== path && !statSync(existing).isDirectory())
    throw new CliError(`${file}: ${existing} is a regular file, not a folder`);

  if (existing !== path) {
    if (!options.create) throw new CliError(`${file}: no such database (\`blogcore serve --db ${file}\` creates one)`);
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (error) {
      throw describeSqliteError(file, error);
    }
  } else {
    if (statSync(path).isDirectory()) throw new CliError(`${file}: is a folder, not a database file`);
    await checkOwner(file, path);
  }
  try {
    accessSync(dirname(path), constants.W_OK); // SQLite writes its -wal and -shm files beside the database
    if (existsSync(path)) accessSync(path, constants.R_OK | constants.W_OK);
  } catch (error) {
    throw describeSqliteError(file, error);
  }
  return sqliteDriver({ filename: path });
}

/** better-sqlite3, loaded when first needed so that `--version` and `--help` work without it. */
async function betterSqlite3(): Promise<typeof Database> {
  try {
    return (await import('better-sqlite3')).default;
  } catch (error) {
    throw new CliError(
      `the SQLite store needs better-sqlite3 beside blogcore: npm install better-sqlite3 (${(error as Error).message})`,
    );
  }
}

/** Refuses a file another application made (foreign tables or user_version), before blogcore adds anything. */
async function checkOwner(file: string, path: string): Promise<void> {
  const Sqlite = await betterSqlite3();
  let tables: string[];
  let version: number;
  try {
    const db = new Sqlite(path, { readonly: true, fileMustExist: true });
    try {
      version = Number(db.pragma('user_version', { simple: true }));
      tables = tableNames(db);
    } finally {
      db.close();
    }
  } catch (error) {
    throw describeSqliteError(file, error);
  }
  if (tables.length === 0 && version === 0) return; // empty: a new database
  if (version > SQLITE_STORAGE_VERSION && tables.includes('docs')) {
    throw new CliError(
      `${file}: written by a newer blogcore (storage version ${version}; this one knows up to ${SQLITE_STORAGE_VERSION})`,
    );
  }
  const ours = new Set(await ownTables());
  const foreign = tables.filter((t) => !ours.has(t));
  if (foreign.length > 0 || version < 1 || version > SQLITE_STORAGE_VERSION) {
    const why =
      foreign.length > 0
        ? `tables blogcore does not own: ${foreign.slice(0, 5).join(', ')}${foreign.length > 5 ? ', …' : ''}`
        : `user_version ${version}`;
    throw new CliError(
      `${file}: belongs to another application (${why}); blogcore leaves it alone — choose another --db file`,
    );
  }
}

const tableNames = (db: Database.Database): string[] =>
  db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )
    .pluck()
    .all() as string[];

/** The tables this build's SQLite driver makes, found by letting it set up an in-memory database. */
async function ownTables(): Promise<string[]> {
  const db = new (await betterSqlite3())(':memory:');
  const driver = sqliteDriver({ database: db });
  try {
    await driver.open(STORE_SCHEMA);
    return tableNames(db);
  } finally {
    await driver.close();
    db.close();
  }
}

/** The id of the blog `--blog` names: its id, or its url (http… or https…). */
export async function blogIdOf(service: BlogService, blog: string): Promise<string> {
  return /^https?:\/\//i.test(blog)
    ? (await service.blogs.getByUrl({ url: blog })).id
    : (await service.blogs.get({ blogId: blog })).id;
}

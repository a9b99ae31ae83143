/**
 * Opening the database through idb, and the open connection every read and write starts from. idb's `openDB`
 * always asks the global `indexedDB`; the driver takes its factory from the options (tests give each store a
 * fresh one), so it wraps that factory's open request with idb's `wrap` and wires openDB's callbacks itself:
 * `upgrade` (schema.ts), `blocked` (another tab keeps an older version open: give up after a while instead
 * of hanging), `blocking` (another tab wants a newer version: let it) and `terminated` (the browser dropped
 * the connection).
 */
import { unwrap, wrap, type IDBPDatabase, type IDBPTransaction } from 'idb';
import type { CollectionDef, StoreSchema } from '../../src/store/driver.js';
import type { Index3 } from './native.js';
import { BLOBS, idbVersion, missingLayout, schemaVersion } from './schema.js';

/** `open` could not upgrade the database because another connection keeps an older version open. */
export class IdbBlockedError extends Error {
  override readonly name = 'IdbBlockedError';
}

export interface IdbDriverOptions {
  /** The IndexedDB database name. Default `blogcore`. */
  name?: string;
  /**
   * The IDBFactory to use. Default: the global `indexedDB`. IndexedDB's classes must be globals either way (idb
   * checks results against them): in Node, `import 'fake-indexeddb/auto'` first, then pass a fresh
   * `new IDBFactory()` from 'fake-indexeddb' here to give a store a database world of its own.
   */
  indexedDB?: IDBFactory;
  /** The IDBKeyRange class belonging to that factory. Default: the global `IDBKeyRange`. */
  IDBKeyRange?: typeof IDBKeyRange;
  /**
   * How long `open` waits when another connection (usually another tab on an older version of the app)
   * holds the database open and does not close it for the upgrade. Then `open` fails with
   * `IdbBlockedError` instead of hanging. Default 3000 ms.
   */
  blockedTimeoutMs?: number;
}

/** The options with their defaults, or a clear error where there is no IndexedDB. */
export function settings(options: IdbDriverOptions): Omit<OpenOptions, 'lost'> & { KeyRange: typeof IDBKeyRange } {
  const g = globalThis as { indexedDB?: IDBFactory; IDBKeyRange?: typeof IDBKeyRange; IDBRequest?: unknown };
  const factory = options.indexedDB ?? g.indexedDB;
  const KeyRange = options.IDBKeyRange ?? g.IDBKeyRange;
  if (!factory || !KeyRange || !g.IDBRequest) {
    throw new Error(
      "idbDriver: no IndexedDB here. In Node, add import 'fake-indexeddb/auto' (npm install -D fake-indexeddb) before creating the driver (docs/browser.md).",
    );
  }
  return { factory, KeyRange, name: options.name ?? 'blogcore', blockedTimeoutMs: options.blockedTimeoutMs ?? 3000 };
}

export interface OpenOptions {
  factory: IDBFactory;
  name: string;
  blockedTimeoutMs: number;
  /** Told why the connection is gone: upgraded or deleted by another tab, or dropped by the browser. */
  lost(reason: string): void;
}

/** The upgrade code (upgrade.ts), loaded when an open needs an upgrade: most page loads open a current database. */
let upgrading: typeof import('./upgrade.js') | undefined;

/** An open stopped its upgrade, changing nothing, for want of code: upgrade.ts, and with `builders` an older layout's. */
class CodeNeeded {
  constructor(readonly builders: boolean) {}
}

/** Opens (and if needed upgrades) the database; never waits forever on another tab. */
export async function openDatabase(o: OpenOptions, schema: StoreSchema): Promise<IDBPDatabase> {
  try {
    return await openOnce(o, schema);
  } catch (e) {
    // The upgrade stopped, changing nothing, for want of its code: load, open again.
    if (!(e instanceof CodeNeeded)) throw e;
    upgrading ??= await import('./upgrade.js');
    if (e.builders) await upgrading.loadBuilders();
    return openOnce(o, schema);
  }
}

function openOnce(o: OpenOptions, schema: StoreSchema): Promise<IDBPDatabase> {
  const database = `IndexedDB database "${o.name}"`;
  return new Promise<IDBPDatabase>((resolve, reject) => {
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    /** Settles once: later outcomes (a late success after we gave up, a late error) are ignored. */
    const settle = () => {
      clearTimeout(timer);
      return !settled && (settled = true);
    };
    const fail = (error: Error) => settle() && reject(error);
    // (If open throws, so does this executor: the promise rejects with its error.)
    const request = o.factory.open(o.name, idbVersion(schema.version));
    request.addEventListener('upgradeneeded', (event) => {
      // No longer blocked (Chromium may have said so while a closed connection's last transaction finished): an
      // upgrade of a big store takes longer than the wait for other tabs.
      clearTimeout(timer);
      try {
        const tx = request.transaction!;
        const code = upgrading?.upgrade(wrap(request.result), schema, tx, wrap);
        // (An older layout's builders: those of layouts before this one, or what the loaded upgrade asked for.)
        if (!code)
          throw new CodeNeeded(!!upgrading || (event.oldVersion > 0 && event.oldVersion % 1000 < idbVersion(0)));
      } catch (e) {
        request.transaction?.abort();
        if (e instanceof CodeNeeded) return void fail(e as unknown as Error);
        fail(
          new Error(
            `idb driver: upgrading ${o.name} to schema version ${schema.version} failed: ${(e as Error).message}`,
          ),
        );
      }
    });
    request.addEventListener('blocked', (event) => {
      timer ??= setTimeout(
        () =>
          fail(
            new IdbBlockedError(
              `${database} is open at schema version ${schemaVersion(event.oldVersion)} in another tab or window ` +
                `that does not close it, so it cannot be upgraded to ${schema.version}. Close or reload the other tabs of this app and try again.`,
            ),
          ),
        o.blockedTimeoutMs,
      );
    });
    request.addEventListener('error', (event) => event.preventDefault());
    wrap(request).then(
      (db) => {
        // If we already gave up (blocked) and the other tab closed later, do not keep a connection nobody uses.
        if (!settle()) return db!.close();
        db!.addEventListener('versionchange', (event) => {
          db!.close();
          o.lost(
            event.newVersion === null
              ? `${database} was deleted by another tab or window`
              : `${database} was upgraded by another tab or window (to schema version ${schemaVersion(event.newVersion)}); reload this page`,
          );
        });
        db!.addEventListener('close', () =>
          o.lost(`${database} was closed by the browser (storage cleared or failed)`),
        );
        resolve(db!);
      },
      (e: DOMException | null) =>
        fail(
          new Error(
            e?.name === 'VersionError'
              ? `${database} was written by a newer version of this app (this one has schema version ${schema.version}); update or reload the app`
              : `idb driver: cannot open ${database}: ${e?.name ?? 'Error'}: ${e?.message ?? 'unknown error'}`,
          ),
        ),
    );
  }).then((db) => {
    const missing = missingLayout(db, schema);
    if (missing.length === 0) return db;
    db.close();
    throw new Error(
      `idb driver: database "${o.name}" lacks ${missing.join(', ')} at schema version ${schema.version}; bump the schema version when changing collections`,
    );
  });
}

const ignore = () => undefined;

export type ReadTx = IDBPTransaction<unknown, string[], 'readonly'>;

/** What a request on a transaction that no longer takes requests throws. */
const closed = (e: unknown) =>
  e instanceof Error && (e.name === 'TransactionInactiveError' || e.name === 'InvalidStateError');

/** An open database and the collections its schema declares. */
export class Connection {
  /** Whether indexes have `getAllRecords`; found out on the first index read that could use it. */
  #getAllRecords: boolean | undefined;
  /** The read transaction reads may still join (see `read`), and the stores it spans. */
  #shared: ReadTx | undefined;
  readonly #scope: string[];

  constructor(
    readonly db: IDBPDatabase,
    private readonly defs: ReadonlyMap<string, CollectionDef>,
    readonly factory: IDBFactory,
    readonly KeyRange: typeof IDBKeyRange,
  ) {
    // Media bytes are read on their own (blobs.ts): a read of records never holds them.
    this.#scope = [...db.objectStoreNames].filter((name) => name !== BLOBS);
  }

  /**
   * Runs `issue`, which must place its first request at once, in a read-only transaction over every store:
   * the one reads begun in the same turn of the event loop opened (a call's cache check, search and page
   * reads go together: one transaction instead of three), else a new one. A transaction is joined only until
   * its first request is answered, so reads that follow one another (a loop of calls) never keep one
   * transaction, and the writes waiting behind it, going.
   */
  read<T>(issue: (tx: ReadTx) => T): T {
    const shared = this.#shared;
    if (shared) {
      try {
        return issue(shared);
      } catch (e) {
        // It stopped taking requests (the turn it was opened in is over, or it finished): open another.
        if (!closed(e)) throw e;
      }
    }
    const tx = this.transaction(this.#scope);
    this.#shared = tx;
    const leave = () => {
      if (this.#shared === tx) this.#shared = undefined;
    };
    // (Request events reach their transaction's capture listeners first.)
    for (const type of ['success', 'error']) unwrap(tx).addEventListener(type, leave, { capture: true, once: true });
    tx.done.then(leave, leave);
    return issue(tx);
  }

  collection(name: string): CollectionDef {
    const def = this.defs.get(name);
    if (!def) throw new Error(`unknown collection ${name}`);
    return def;
  }

  /**
   * A transaction over `stores`. Whoever needs its outcome awaits `done`; an abort no one awaits (a commit
   * refused on purpose, a connection closing under a read) is reported by the failed request instead.
   */
  transaction<Mode extends IDBTransactionMode = 'readonly'>(
    stores: string[],
    mode?: Mode,
  ): IDBPTransaction<unknown, string[], Mode> {
    const tx = this.db.transaction(stores, mode);
    tx.done.catch(ignore);
    return tx;
  }

  /** Runs `issue` on a collection's store in a read transaction (`read`). */
  readStore<T>(collection: string, issue: (store: ReturnType<ReadTx['objectStore']>) => T): T {
    this.collection(collection);
    return this.read((tx) => issue(tx.objectStore(collection)));
  }

  /** Whether the browser has `getAllRecords` (IndexedDB 3.0), asked of the first index the driver reads. */
  hasGetAllRecords(index: Index3): boolean {
    return (this.#getAllRecords ??= typeof index.getAllRecords === 'function');
  }
}

/**
 * Replicas for the tests: a local service on the memory driver or on IndexedDB (fake-indexeddb in Node),
 * a replica of the sync server's blog (on SQLite or PostgreSQL) as one of its users (or anonymous), and a switchable
 * network (net.ts).
 */
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { idbDriver } from '../../drivers/idb/index.js';
import { memoryDriver } from '../../drivers/memory/index.js';
import { createBlogService, type BlogService } from '../../src/index.js';
import { createReplica, type Replica, type ReplicaOptions } from '../../src/sync/index.js';
import { afterAll, afterEach } from 'vitest';
import { dropOwnSchemas } from '../drivers/postgres/env.js';
import { net, type Net } from './net.js';
import { startSyncServer, type Store, type SyncServer, type SyncServerOptions, type Who } from './server.js';

export const LOCALS = ['memory', 'idb'] as const;
export type LocalKind = (typeof LOCALS)[number];

/**
 * Where the replica suites run: each local store against a SQLite server, and the memory store against a
 * PostgreSQL server (the protocol is the server's; the local side is the same whatever serves it).
 */
export const SETUPS: ReadonlyArray<{ local: LocalKind; store: Store }> = [
  { local: 'memory', store: 'sqlite' },
  { local: 'idb', store: 'sqlite' },
  { local: 'memory', store: 'postgres' },
];

/** The sync server of one setup (PostgreSQL schemas are dropped by `dropOwnSchemas` after the file). */
export const serverFor = (store: Store, options: Omit<SyncServerOptions, 'store'> = {}): Promise<SyncServer> =>
  startSyncServer({ ...options, store });

/** A local store that can be opened again (a tab reload): the same IndexedDB database, or the same memory service. */
export function localStore(kind: LocalKind, options: { apiBaseUrl?: string } = {}): { open(): BlogService } {
  if (kind === 'memory') {
    const service = createBlogService({ driver: memoryDriver(), ...options });
    return { open: () => service };
  }
  const indexedDB = new IDBFactory();
  return { open: () => createBlogService({ driver: idbDriver({ name: 'replica', indexedDB }), ...options }) };
}

export interface TestReplica {
  replica: Replica;
  local: BlogService;
  net: Net;
}

export function replicaOf(
  s: SyncServer,
  who: Who,
  local: BlogService,
  n: Net = net(),
  extra: Partial<ReplicaOptions> = {},
): TestReplica {
  const headers: Record<string, string> = who === 'anonymous' ? {} : { authorization: `Bearer ${who}` };
  const replica = createReplica({
    local,
    remote: { baseUrl: s.api, headers, fetch: n.fetch },
    blogId: s.blogId,
    ...extra,
  });
  return { replica, local, net: n };
}

export const caught = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

/**
 * The list a test file puts the replicas it opens in: after each test they are closed with their local services,
 * then the server the test started; after all, the file's PostgreSQL schemas are dropped.
 */
export function closedAfterEach(server: () => SyncServer): TestReplica[] {
  const opened: TestReplica[] = [];
  afterEach(async () => {
    for (const { replica, local } of opened.splice(0)) {
      await replica.close();
      await local.close();
    }
    await server().close();
  });
  afterAll(() => dropOwnSchemas());
  return opened;
}

/** Opens a replica as `who` on a fresh local store of `kind`, put in `opened` (see closedAfterEach). */
export const opener =
  (opened: TestReplica[], server: () => SyncServer, kind: LocalKind) =>
  (who: 'admin' | 'author' | 'reader'): TestReplica => {
    const r = replicaOf(server(), who, localStore(kind).open());
    opened.push(r);
    return r;
  };

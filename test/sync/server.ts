/**
 * A blogcore server for the sync protocol tests: a SQLite file in a temp directory, the HTTP helper on
 * node:http at 127.0.0.1 (port 0), a clock the test moves, and bearer tokens for an admin, an author and a
 * reader of one blog. `pull` follows a whole pull over HTTP the way a replica does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { postgresDriver } from '../../drivers/postgres/index.js';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { freshSchema, pgUrl } from '../drivers/postgres/env.js';
import { BlogError, createBlogService, type BlogService } from '../../src/index.js';
import { createHttpHandler, toNodeHandler } from '../../src/http/index.js';

export const DAY = 86_400_000;
export type Who = 'admin' | 'author' | 'reader' | 'anonymous';
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

export interface SyncServer {
  api: string;
  /** The SQLite file, or the PostgreSQL schema. */
  file: string;
  store: Store;
  service: BlogService;
  blogId: string;
  users: Record<'admin' | 'author' | 'reader', string>;
  clock: { ms: number; advance(ms: number): void };
  as(who: Exclude<Who, 'anonymous'>): BlogService;
  /** One HTTP request; the JSON answer (or null) with its status. */
  request(
    who: Who,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; json: Json | null }>;
  /** A whole pull (every page), with an optional hook between pages. */
  pull(
    who: Who,
    since?: string,
    opts?: { maxResults?: number; between?: (page: number) => Promise<void> },
  ): Promise<{ items: Json[]; checkpoint: string; pages: number }>;
  /** Stops the server; `keepFile` leaves the SQLite file for a restart. */
  close(keepFile?: boolean): Promise<void>;
}

/** The server drivers the protocol tests run on. */
export const STORES = ['sqlite', 'postgres'] as const;
export type Store = (typeof STORES)[number];

export interface SyncServerOptions {
  /** Default 'sqlite'. */
  store?: Store;
  retentionDays?: number;
  /** Serve this SQLite file of an earlier server (a restart) instead of a new one. */
  restart?: SyncServer;
  /** The largest picture the server takes (the service's default otherwise). */
  maxMediaBytes?: number;
}

export async function startSyncServer(options: SyncServerOptions = {}): Promise<SyncServer> {
  const store = options.restart?.store ?? options.store ?? 'sqlite';
  const dir = options.restart || store !== 'sqlite' ? undefined : mkdtempSync(join(tmpdir(), 'blogcore-sync-'));
  const file = options.restart?.file ?? (store === 'sqlite' ? join(dir!, 'blog.db') : freshSchema('sync'));
  const clock = {
    ms: options.restart?.clock.ms ?? Date.parse('2026-05-01T08:00:00.000Z'),
    advance: (ms: number) => void (clock.ms += ms),
  };
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const service = createBlogService({
    driver:
      store === 'sqlite'
        ? sqliteDriver({ filename: file })
        : postgresDriver({ connectionString: pgUrl(), schema: file, max: 4 }),
    apiBaseUrl: base,
    now: () => new Date((clock.ms += 1)),
    ...(options.retentionDays !== undefined ? { changeRetention: { days: options.retentionDays } } : {}),
    ...(options.maxMediaBytes !== undefined ? { maxMediaBytes: options.maxMediaBytes } : {}),
  });
  let blogId: string;
  let users: SyncServer['users'];
  if (options.restart) {
    ({ blogId, users } = options.restart);
  } else {
    const admin = (await service.users.insert({ body: { displayName: 'Ada Admin' } })).id!;
    const author = (await service.users.insert({ body: { displayName: 'Otto Author' } })).id!;
    const reader = (await service.users.insert({ body: { displayName: 'Rita Reader' } })).id!;
    blogId = (await service.blogs.insert({ body: { name: 'Sync', url: 'https://sync.example/' }, ownerId: admin })).id!;
    await service.members.set({ blogId, userId: author, role: 'AUTHOR' });
    await service.members.set({ blogId, userId: reader, role: 'READER' });
    users = { admin, author, reader };
  }
  const handler = createHttpHandler(service, {
    authenticate: (req) => {
      const token = req.headers.get('authorization')?.replace(/^Bearer /, '');
      if (!token) return null;
      const userId = users[token as keyof typeof users];
      if (!userId) throw new BlogError({ code: 401, reason: 'authError', message: 'Invalid Credentials' });
      return { userId };
    },
  });
  server.on('request', toNodeHandler(handler));

  const request: SyncServer['request'] = async (who, method, path, body, headers = {}) => {
    const res = await fetch(`${base}/v3${path}`, {
      method,
      headers: {
        ...(who === 'anonymous' ? {} : { authorization: `Bearer ${who}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, json: text ? (JSON.parse(text) as Json) : null };
  };

  return {
    api: `${base}/v3`,
    file,
    store,
    service,
    blogId,
    users,
    clock,
    as: (who) => service.as({ userId: users[who] }),
    request,
    async pull(who, since, opts = {}) {
      const items: Json[] = [];
      let pageToken: string | undefined;
      let checkpoint = '';
      let pages = 0;
      for (;;) {
        const q = new URLSearchParams({ maxResults: String(opts.maxResults ?? 100) });
        if (since !== undefined) q.set('since', since);
        if (pageToken !== undefined) q.set('pageToken', pageToken);
        const { status, json } = await request(who, 'GET', `/blogs/${blogId}/changes?${q}`);
        if (status !== 200)
          throw Object.assign(new Error(`pull answered ${status}: ${JSON.stringify(json)}`), { status, json });
        expect(json!.kind).toBe('blogcore#changeList');
        items.push(...json!.items);
        checkpoint = json!.checkpoint;
        pages++;
        pageToken = json!.nextPageToken;
        if (pageToken === undefined) return { items, checkpoint, pages };
        await opts.between?.(pages);
      }
    },
    close: (keepFile = false) =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(
          () =>
            void service.close().then(() => {
              if (!keepFile && store === 'sqlite') rmSync(join(file, '..'), { recursive: true, force: true });
              r();
            }),
        );
      }),
  };
}

/** Applies pulled items to a replica's map of `kind:id` → resource, as a replica does. */
export function apply(replica: Map<string, Json>, items: readonly Json[]): Map<string, Json> {
  for (const item of items) {
    const key = `${item.kind}:${item.id}`;
    if (item.deleted) replica.delete(key);
    else replica.set(key, item.resource);
  }
  return replica;
}

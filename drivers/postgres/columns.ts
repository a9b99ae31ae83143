/**
 * blogcore's own collections as PostgreSQL tables a person can read (docs/postgres.md): each index's key parts as
 * named columns (`fields`) and how many entries a record has in it (`entries`), and the text fields shown as
 * columns. The store's schema (src/store/schema.ts) leaves them out, so a browser's first download does not carry
 * them; `withColumns` adds them to the schema this driver is opened with (a schema that declares its own wins).
 */
import type { CollectionDef, IndexEntries, StoreSchema } from '../../src/store/driver.js';

interface Columns {
  indexes?: Record<string, { fields: readonly string[]; entries: IndexEntries }>;
  columns?: readonly string[];
}

export const STORE_COLUMNS: Record<string, Columns> = {
  users: { columns: ['displayName'] },
  blogs: { indexes: { url: { fields: ['url'], entries: 'many' } }, columns: ['name'] },
  members: {
    indexes: {
      blog: { fields: ['blogId', 'userId'], entries: 'one' },
      user: { fields: ['userId', 'blogId'], entries: 'one' },
    },
  },
  posts: {
    indexes: {
      published: { fields: ['blogId', 'status', 'published', 'id'], entries: 'one' },
      updated: { fields: ['blogId', 'status', 'updated', 'id'], entries: 'one' },
      labelPublished: { fields: ['blogId', 'label', 'status', 'published', 'id'], entries: 'many' },
      labelUpdated: { fields: ['blogId', 'label', 'status', 'updated', 'id'], entries: 'many' },
      path: { fields: ['blogId', 'path'], entries: 'optional' },
      due: { fields: ['published', 'id'], entries: 'optional' },
      moving: { fields: ['id'], entries: 'optional' },
      media: { fields: ['blogId', 'sha256', 'id'], entries: 'many' },
    },
    columns: ['title'],
  },
  pages: {
    indexes: {
      published: { fields: ['blogId', 'status', 'published', 'id'], entries: 'one' },
      path: { fields: ['blogId', 'path'], entries: 'optional' },
      media: { fields: ['blogId', 'sha256', 'id'], entries: 'many' },
    },
    columns: ['title'],
  },
  comments: {
    indexes: {
      post: { fields: ['blogId', 'postId', 'status', 'published', 'id'], entries: 'one' },
      blog: { fields: ['blogId', 'vis', 'status', 'published', 'id'], entries: 'one' },
      move: { fields: ['postId', 'vis', 'id'], entries: 'one' },
    },
  },
  pageviews: {
    indexes: {
      blog: { fields: ['blogId', 'day', 'id'], entries: 'optional' },
      owner: { fields: ['blogId', 'id'], entries: 'one' },
    },
  },
  labels: {
    indexes: {
      blog: { fields: ['blogId', 'label', 'id'], entries: 'one' },
      live: { fields: ['blogId', 'label', 'id'], entries: 'one' },
    },
  },
  revisions: { indexes: { item: { fields: ['itemId', 'replaced', 'id'], entries: 'one' } } },
  events: { indexes: { time: { fields: ['time', 'id'], entries: 'one' } } },
  idempotency: { indexes: { created: { fields: ['created', 'id'], entries: 'one' } } },
  media: {
    indexes: {
      blog: { fields: ['blogId', 'published', 'id'], entries: 'one' },
      source: { fields: ['blogId', 'source', 'id'], entries: 'optional' },
    },
    columns: ['filename'],
  },
  collabDocs: { indexes: { blog: { fields: ['blogId', 'id'], entries: 'one' } }, columns: ['title'] },
  collabUpdates: { indexes: { doc: { fields: ['docId', 'id'], entries: 'one' } } },
  limits: { indexes: { expires: { fields: ['expires', 'id'], entries: 'one' } } },
  redirects: { indexes: { blog: { fields: ['blogId', 'from', 'id'], entries: 'one' } } },
};

/** `schema` with the named columns of every collection and index it shares with the store's own (those it declares stay). */
export function withColumns(schema: StoreSchema): StoreSchema {
  const collections = schema.collections.map((c): CollectionDef => {
    const named = STORE_COLUMNS[c.name];
    if (!named) return c;
    return {
      ...(named.columns ? { columns: named.columns } : {}),
      ...c,
      indexes: c.indexes.map((i) => (i.fields || !named.indexes?.[i.name] ? i : { ...named.indexes[i.name], ...i })),
    };
  });
  return { ...schema, collections };
}

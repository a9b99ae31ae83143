/**
 * The search postings code (segments.ts, postings.ts: some 3 KB gzip), loaded on the first write to a
 * searchable collection, the first search or the upgrade that builds segments: a page that only reads never
 * downloads it. Once loaded it is handed out synchronously, so commits keep the order they were called in.
 */
export type Postings = typeof import('./segments.js');

let loaded: Postings | undefined;

export const loadedPostings = (): Postings | undefined => loaded;
export const loadPostings = async (): Promise<Postings> => (loaded ??= await import('./segments.js'));

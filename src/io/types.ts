/** The public shapes of `blogcore/io`. */
export type ImportFormat = 'blogcore-json' | 'wxr' | 'blogger-atom' | 'ghost-json';
export type ExportFormat = 'blogcore-json' | 'blogger-atom' | 'wxr';

export interface ImportProgress {
  /** Posts, pages and comments read so far (created, unchanged or skipped). */
  readonly items: number;
  /** Bytes (or characters, for string sources) of the source read so far. */
  readonly bytes: number;
  /** Pictures stored (or found stored) so far, with `media: true`. */
  readonly media: number;
}

export interface ImportOptions {
  /** Detected from the first bytes when not given. */
  format?: ImportFormat;
  /** The blog's address. Default: the source's own (a Ghost export has none: then this is required). */
  blogUrl?: string;
  /** The user who becomes the blog's ADMIN. Default: the file's first declared author. Must exist. */
  ownerId?: string;
  /** Called every few records while the import runs. */
  onProgress?: (progress: ImportProgress) => void;
  /**
   * Also download the pictures the blog uses (every `<img src>` of its posts and pages, WordPress attachments)
   * and store them as its media, rewriting the content to their new urls. Default false.
   */
  media?: boolean;
  /**
   * Downloads may reach loopback, private and link-local addresses: all of them (`true`), or those of these
   * host names only. Default: never (an import file must not make the server probe its own network).
   */
  allowPrivateHosts?: boolean | readonly string[];
  /** How long a download may wait for an answer, or for its next bytes (ms). Default 30 000. */
  mediaTimeoutMs?: number;
  /** How long one download may take in all, answer and bytes (ms). Default 120 000. */
  mediaDeadlineMs?: number;
}

export interface ImportReport {
  blogId: string;
  format: ImportFormat;
  created: { posts: number; pages: number; comments: number; users: number; media: number };
  /** Records already imported by an earlier run of the same file: left as they are. */
  unchanged: { posts: number; pages: number; comments: number; media: number };
  /** What could not be imported, and why (`source` names the record in the file). */
  skipped: Array<{ source: string; reason: string }>;
  /**
   * Posts and pages the source keeps from the public (a WordPress password or private status, a Ghost
   * members-only post, …), imported as DRAFT rather than LIVE, and why.
   */
  drafted: Array<{ source: string; reason: string }>;
  /** Old permalinks and the blogcore urls that replace them. */
  redirects: Array<{ from: string; to: string }>;
}

export interface ExportOptions {
  format: ExportFormat;
  /** `blogcore-json` only: carry the pictures' bytes too (base64), so the file restores them into any store. */
  media?: boolean;
}

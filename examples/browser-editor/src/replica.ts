/**
 * The one place the editor meets `blogcore/sync`. TEMPORARY until the replica branch lands: the pinned
 * shape of createReplica (replaced by `export … from 'blogcore/sync'` then).
 */
import type { BlogService } from 'blogcore';

export interface Version {
  title: string;
  content: string;
  labels: string[];
  status: string;
}

export interface Conflict {
  id: string;
  collection: 'posts' | 'pages' | 'comments';
  reason: 'changed' | 'deleted' | 'rejected';
  message?: string;
  mine: Version | null;
  theirs: Version | null;
}

export interface Pending {
  id: string;
  collection: 'posts' | 'pages' | 'comments';
}

export interface Replica {
  sync(): Promise<{ pulled: number; pushed: number; conflicts: number }>;
  live(): () => void;
  pending(): Promise<readonly Pending[]>;
  conflicts(): Promise<readonly Conflict[]>;
  resolve(id: string, choice: 'mine' | 'theirs'): Promise<void>;
  close(): Promise<void>;
}

export function createReplica(_options: {
  local: BlogService;
  remote: { baseUrl: string; headers?: Record<string, string>; fetch?: typeof fetch };
  blogId: string;
}): Replica {
  throw new Error('blogcore/sync is not merged into this branch yet');
}

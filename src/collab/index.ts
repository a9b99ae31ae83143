/**
 * `blogcore/collab`: what an editor shares with the server when a post is written together (docs/collab.md): the
 * rich text schema (TipTap extensions), the HTML codec that reads a post into it and writes it back, and
 * `joinCollab`, which keeps a Yjs document in step with a service's or a server's shared document (its code, and
 * Yjs, load when it is first called).
 */
export {
  extensions,
  richExtensions,
  richSchema,
  Picture,
  Figure,
  RawHtml,
  type FigureAlign,
  BARE,
  BLOCKS,
  type Kept,
} from './schema.js';
export { readHtml, writeHtml, canonical, pieces } from './html.js';
export {
  httpChannel,
  serviceChannel,
  CollabRefused,
  type CollabChannel,
  type CollabRemote,
} from './channel.js';
export type { CollabSession, CollabStatus, JoinOptions } from './client.js';
import type { CollabChannel } from './channel.js';
import type { CollabSession, JoinOptions } from './client.js';

/**
 * Joins the shared document behind `channel` and keeps `options.doc` in step with it (edits pushed as they are
 * made, the others' pulled by long poll, presence both ways, everything retried while offline). Loads Yjs.
 */
export async function joinCollab(channel: CollabChannel, options: JoinOptions = {}): Promise<CollabSession> {
  return (await import('./client.js')).startSession(channel, options);
}

/**
 * `blogcore/collab`: what an editor shares with the server when a post is written together (docs/collab.md): the
 * rich text schema (TipTap extensions), the HTML codec that reads a post into it and writes it back, and
 * `joinCollab`, which keeps a Yjs document in step with a service's or a server's shared document (its code, and
 * Yjs, load when it is first called).
 */
export { extensions, richSchema, Picture, RawHtml, BARE, BLOCKS, type Kept } from './schema.js';
export { readHtml, writeHtml, canonical, pieces } from './html.js';

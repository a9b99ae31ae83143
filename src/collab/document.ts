/**
 * The shared document's rules (docs/design.md §20): a post's title and content as one Yjs document, made from the
 * stored HTML, written back as HTML, and told of a change made elsewhere. The content is the ProseMirror document
 * of the editor's own schema (schema.ts) in the `Y.XmlFragment` named `content`, converted by TipTap's Yjs binding
 * (`@tiptap/y-tiptap`, what its collaboration extension uses), so the HTML written here is the HTML of what the
 * editor shows. HTML is read and written by ProseMirror's own DOMParser and DOMSerializer with the schema's rules
 * (html.ts): in a browser over its DOM, elsewhere over linkedom, a DOM made of a light HTML parser.
 */
import { Node as PMNode, type Schema } from '@tiptap/pm/model';
import { prosemirrorToYXmlFragment, updateYFragment, yXmlFragmentToProseMirrorRootNode } from '@tiptap/y-tiptap';
import * as Y from 'yjs';
import { readHtml, writeHtml } from './html.js';
import { richSchema } from './schema.js';

/** The names the design pins (docs/design.md §20): what an editor binds to. */
export const CONTENT = 'content';
export const TITLE = 'title';

let dom: Promise<Document> | undefined;
/** A DOM to read and write HTML with: the page's own in a browser, else linkedom's (loaded once, on first use). */
export function htmlDocument(): Promise<Document> {
  return (dom ??= (async () => {
    const own = (globalThis as { document?: Document }).document;
    if (own?.createElement) return own;
    const { parseHTML } = await import('linkedom');
    return parseHTML('<!doctype html><html><head></head><body></body></html>').document as unknown as Document;
  })());
}

/** The editor document read from HTML, without the source each block remembers (the editor's own business). */
async function contentNode(schema: Schema, html: string): Promise<PMNode> {
  const json = readHtml(schema, html, await htmlDocument()).toJSON() as Json;
  return PMNode.fromJSON(schema, dropKept(json));
}

type Json = { attrs?: Record<string, unknown>; content?: Json[] };
function dropKept(node: Json): Json {
  if (node.attrs && 'kept' in node.attrs) node.attrs = { ...node.attrs, kept: null };
  node.content?.forEach(dropKept);
  return node;
}

/** A new document holding `title` and the content read from `html`, as one update. */
export async function documentFromHtml(title: string, html: string): Promise<Uint8Array> {
  const doc = new Y.Doc();
  const node = await contentNode(richSchema(), html);
  doc.transact(() => {
    doc.getText(TITLE).insert(0, title);
    prosemirrorToYXmlFragment(node, doc.getXmlFragment(CONTENT));
  });
  const update = Y.encodeStateAsUpdate(doc);
  doc.destroy();
  return update;
}

/** A document from its state and the updates after it. */
export function loadDocument(updates: readonly Uint8Array[]): Y.Doc {
  const doc = new Y.Doc();
  doc.transact(() => {
    for (const u of updates) Y.applyUpdate(doc, u);
  });
  return doc;
}

/** The title and the HTML of a document, written as the editor writes them. */
export async function renderDocument(doc: Y.Doc): Promise<{ title: string; content: string }> {
  const schema = richSchema();
  const node = yXmlFragmentToProseMirrorRootNode(doc.getXmlFragment(CONTENT), schema);
  return { title: doc.getText(TITLE).toString(), content: writeHtml(schema, node, await htmlDocument()) };
}

/**
 * Takes a change made elsewhere (an API client's PATCH, an import, a revert) into the document: the title and the
 * content become `title` and `html`, block by block, leaving what did not change untouched (so the editors' cursors
 * stay). Answers the update that does it (empty: nothing to do).
 */
export async function absorbChange(doc: Y.Doc, title: string, html: string): Promise<Uint8Array> {
  const node = await contentNode(richSchema(), html);
  const before = Y.encodeStateVector(doc);
  doc.transact(() => {
    const t = doc.getText(TITLE);
    const was = t.toString();
    if (was !== title) {
      // Only the middle that differs is replaced, so an edit elsewhere in the title survives.
      let start = 0;
      while (start < was.length && start < title.length && was[start] === title[start]) start++;
      let end = 0;
      while (end < was.length - start && end < title.length - start && was.at(-1 - end) === title.at(-1 - end)) end++;
      t.delete(start, was.length - start - end);
      t.insert(start, title.slice(start, title.length - end));
    }
    updateYFragment(doc, doc.getXmlFragment(CONTENT), node, { mapping: new Map(), isOMark: new Map() });
  });
  return Y.encodeStateAsUpdate(doc, before);
}

/** The document's whole state as one update, deleted content collected (what compaction stores). */
export function compactState(doc: Y.Doc): Uint8Array {
  return Y.encodeStateAsUpdate(doc);
}

/** Several updates as one (no document built): what a pull answers. */
export const mergeUpdates = (updates: readonly Uint8Array[]): Uint8Array =>
  updates.length === 1 ? updates[0]! : Y.mergeUpdates([...updates]);

/** Whether an update changes nothing (Yjs's empty update: no structs, no deletions). */
export const isEmptyUpdate = (update: Uint8Array): boolean =>
  update.byteLength === 0 || (update.byteLength === 2 && update[0] === 0 && update[1] === 0);

/** Whether `update` parses as a Yjs update (a push is checked before it is stored). */
export function isUpdate(update: Uint8Array): boolean {
  try {
    Y.decodeUpdate(update);
    return true;
  } catch {
    return false;
  }
}

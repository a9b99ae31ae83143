/**
 * A post's HTML in and out of the rich text editor, so that what the editor cannot represent is kept and what
 * nobody touched comes back byte for byte.
 *
 * In: the HTML is cut into its top-level blocks at their source positions (parse5 gives them): each block
 * element, each run of inline content between blocks, each comment, with the whitespace around it. A block
 * becomes editable when the editor reads it and writes back the same HTML (the same elements, attributes and
 * text, up to whitespace the browser does not show); otherwise it becomes a `rawHtml` block holding its text.
 * Every block remembers its source and how the editor wrote it then (`kept`).
 *
 * Out: a block the editor still writes as it did on the way in goes back as its source, unchanged; an edited
 * or new block is written by the editor (with the whitespace that followed it); a raw block is its text.
 */
import { DOMParser as PMParser, DOMSerializer, Fragment, type Node as PMNode, type Schema } from '@tiptap/pm/model';
import { parseFragment } from 'parse5';
import { BARE, type Kept } from './schema.js';

/** Elements that flow inside a paragraph; any other element is a block of its own. */
const INLINE = new Set(
  'a abbr b bdi bdo big br cite code data del dfn em font i img ins kbd mark q s samp small span strike strong sub sup time tt u var wbr'.split(
    ' ',
  ),
);
const BLOCK_TAG = /^(?:p|h[1-6]|ul|ol|li|blockquote|pre|hr|div|br|figure|figcaption)$/;
const SPACE = /^[ \t\n\r\f]*$/;

interface Piece {
  lead: string;
  body: string;
  tail: string;
  /** Inline content standing without a block (read as a bare paragraph). */
  inline: boolean;
  /** Kept as it is whatever it holds (a comment, or source parse5 reordered). */
  raw: boolean;
}

interface P5Node {
  nodeName: string;
  tagName?: string;
  value?: string;
  sourceCodeLocation?: { startOffset: number } | null;
}

/** The top-level pieces of `html`, with every character of it in exactly one of them. */
export function pieces(html: string): Piece[] {
  const nodes = (parseFragment(html, { sourceCodeLocationInfo: true }) as unknown as { childNodes: P5Node[] })
    .childNodes;
  const starts = nodes.map((n) => n.sourceCodeLocation?.startOffset ?? -1);
  // Misnested markup the parser moved around has no clean cut: the whole text stays as it is.
  if (starts.some((s, i) => s < 0 || (i > 0 && s <= starts[i - 1]!)))
    return html ? [{ lead: '', body: html, tail: '', inline: false, raw: true }] : [];
  const out: Piece[] = [];
  let lead = html.slice(0, starts[0] ?? html.length);
  let run: Piece | undefined;
  const push = (p: Piece) => {
    const tail = /[ \t\n\r\f]*$/.exec(p.body)![0];
    out.push({ ...p, lead, body: p.body.slice(0, p.body.length - tail.length), tail });
    lead = '';
  };
  const close = () => {
    if (run) push(run);
    run = undefined;
  };
  nodes.forEach((node, i) => {
    const text = html.slice(starts[i]!, starts[i + 1] ?? html.length);
    const inline = node.nodeName === '#text' || INLINE.has(node.tagName ?? '');
    if (node.nodeName === '#text' && SPACE.test(text) && !run) {
      // Between blocks: the whitespace that follows the last one (or leads the first).
      if (out.length) out[out.length - 1]!.tail += text;
      else lead += text;
    } else if (inline) {
      run ??= { lead: '', body: '', tail: '', inline: true, raw: false };
      run.body += text;
    } else {
      close();
      push({
        lead: '',
        body: text,
        tail: '',
        inline: false,
        raw: node.nodeName === '#comment' || node.nodeName === '#documentType',
      });
    }
  });
  close();
  // Only whitespace: kept as it is.
  if (!out.length && lead) out.push({ lead: '', body: lead, tail: '', inline: false, raw: true });
  return out;
}

/** DOM node types (numbers, so no global `Node` is needed: the server passes a DOM of its own). */
const TEXT = 3;
const ELEMENT = 1;
const COMMENT = 8;

/** A template's content: parsed, but inert (no picture loads, nothing runs). */
function inert(html: string, document: Document): DocumentFragment {
  const t = document.createElement('template');
  t.innerHTML = html;
  return t.content;
}

/** Inline runs inside list items and quotes become bare paragraphs (the schema wants blocks there). */
function markBare(root: DocumentFragment, document: Document): void {
  for (const box of root.querySelectorAll('li, blockquote')) {
    let run: ChildNode[] = [];
    const flush = () => {
      if (run.some((n) => n.nodeType !== TEXT || !SPACE.test(n.textContent ?? ''))) {
        const p = document.createElement('p');
        p.setAttribute(BARE, '');
        run[0]!.before(p);
        p.append(...run);
      }
      run = [];
    };
    for (const child of [...box.childNodes]) {
      if (child.nodeType === TEXT || (child.nodeType === ELEMENT && INLINE.has(child.nodeName.toLowerCase())))
        run.push(child);
      else flush();
    }
    flush();
  }
}

/** Escapes text the way the DOM serializes it. */
const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * A form of HTML that two renderings of the same content share: attributes sorted, entities decoded, runs of
 * whitespace outside `<pre>` as one space, and none next to block tags or line breaks (the browser shows none there).
 */
export function canonical(html: string, document: Document): string {
  const walk = (node: ChildNode, pre: boolean): string => {
    if (node.nodeType === TEXT) {
      const text = node.textContent ?? '';
      return escapeText(pre ? text : text.replace(/[ \t\n\r\f]+/g, ' '));
    }
    if (node.nodeType === COMMENT) return `<!--${(node as Comment).data}-->`;
    if (node.nodeType !== ELEMENT) return '';
    const el = node as Element;
    const tag = el.nodeName.toLowerCase();
    const attrs = [...el.attributes]
      .map((a) => `${a.name}="${escapeText(a.value).replace(/"/g, '&quot;')}"`)
      .sort()
      .join(' ');
    const inner = [...el.childNodes].map((c) => walk(c, pre || tag === 'pre')).join('');
    return `<${tag}${attrs ? ` ${attrs}` : ''}>${inner}</${tag}>`;
  };
  return [...inert(html, document).childNodes]
    .map((n) => walk(n, false))
    .join('')
    .replace(/ ?(<\/?([a-z0-9]+)\b[^>]*>) ?/g, (all, tag: string, name: string) => (BLOCK_TAG.test(name) ? tag : all))
    .trim();
}

const written = new WeakMap<PMNode, string>();

/** How the editor writes one block (bare paragraphs without their `<p>`), remembered per node. */
export function writeNode(schema: Schema, node: PMNode, document: Document): string {
  let html = written.get(node);
  if (html === undefined) {
    const dom = DOMSerializer.fromSchema(schema).serializeFragment(Fragment.from(node), { document });
    for (const p of dom.querySelectorAll(`p[${BARE}]`)) p.replaceWith(...p.childNodes);
    const t = document.createElement('template');
    t.content.append(dom);
    html = t.innerHTML;
    // linkedom's template serializes only children of its own, not its content: the same nodes moved there.
    if (html === '' && t.content.firstChild) {
      t.append(...t.content.childNodes);
      html = t.innerHTML;
    }
    written.set(node, html);
  }
  return html;
}

/** One piece as an editor block: editable when the editor writes it back the same, else kept raw. */
function block(schema: Schema, piece: Piece, document: Document): PMNode {
  const kept = (written: string): Kept => ({ lead: piece.lead, body: piece.body, tail: piece.tail, written });
  const raw = () => schema.nodes.rawHtml!.create({ html: piece.body, kept: kept(piece.body) });
  if (piece.raw) return raw();
  const dom = inert(piece.inline ? `<p ${BARE}>${piece.body}</p>` : piece.body, document);
  markBare(dom, document);
  const doc = PMParser.fromSchema(schema).parse(dom);
  if (doc.childCount !== 1) return raw();
  const node = doc.child(0);
  const html = writeNode(schema, node, document);
  if (canonical(html, document) !== canonical(piece.body, document)) return raw();
  return node.type.create({ ...node.attrs, kept: kept(html) }, node.content, node.marks);
}

/** A post's HTML as an editor document (JSON for TipTap's `setContent`). */
export function readHtml(schema: Schema, html: string, document: Document): PMNode {
  const blocks = pieces(html).map((p) => block(schema, p, document));
  return schema.nodes.doc!.create(null, blocks.length ? blocks : [schema.nodes.paragraph!.create()]);
}

/** The editor's document as the post's HTML. */
export function writeHtml(schema: Schema, doc: PMNode, document: Document): string {
  const nodes: PMNode[] = [];
  doc.forEach((n) => void nodes.push(n));
  // An empty paragraph at the end (where the cursor sits after a last block) is not content.
  while (
    nodes.length &&
    nodes.at(-1)!.type.name === 'paragraph' &&
    nodes.at(-1)!.childCount === 0 &&
    !nodes.at(-1)!.attrs.kept
  )
    nodes.pop();
  return nodes
    .map((node, i) => {
      const kept = node.attrs.kept as Kept | null;
      if (node.type.name === 'rawHtml') return `${kept?.lead ?? ''}${node.attrs.html as string}${kept?.tail ?? ''}`;
      const html = writeNode(schema, node, document);
      if (kept && html === kept.written) return kept.lead + kept.body + kept.tail;
      return `${kept?.lead ?? ''}${html}${kept?.tail ?? (i < nodes.length - 1 ? '\n' : '')}`;
    })
    .join('');
}

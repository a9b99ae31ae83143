/**
 * What the rich text editor can hold: TipTap's starter kit (paragraphs, headings, lists, quotes, code, links,
 * bold, italic…), pictures (inline, or as figures with a caption and alignment), and one node for the HTML it cannot represent (`rawHtml`, kept byte for byte).
 * A few extensions remember the exact tag they were read from (`<b>` or `<strong>`, `<i>` or `<em>`, `<pre>`
 * with or without `<code>`), and a paragraph can be *bare*: inline content that stood without a `<p>` (at the
 * top of a Blogger post, inside an `<li>` or a `<blockquote>`) is written back without one. html.ts reads and
 * writes posts with this schema.
 */
import { Extension, getSchema, mergeAttributes, Node, type AnyExtension } from '@tiptap/core';
import { Bold } from '@tiptap/extension-bold';
import { CodeBlock } from '@tiptap/extension-code-block';
import { Image } from '@tiptap/extension-image';
import { Italic } from '@tiptap/extension-italic';
import { Paragraph } from '@tiptap/extension-paragraph';
import { Strike } from '@tiptap/extension-strike';
import type { Schema } from '@tiptap/pm/model';
import { StarterKit } from '@tiptap/starter-kit';

/** The attribute a paragraph carries (in the editor's own DOM only) when it had no `<p>` of its own. */
export const BARE = 'data-bc-bare';

/** The top-level nodes html.ts may keep the source text of. */
export const BLOCKS = [
  'paragraph',
  'heading',
  'bulletList',
  'orderedList',
  'blockquote',
  'codeBlock',
  'horizontalRule',
  'figure',
  'rawHtml',
];

/**
 * The source a top-level block was read from: its text with the whitespace around it, and how the editor
 * wrote it then. While the editor still writes it the same way, the source goes back out unchanged.
 */
export interface Kept {
  lead: string;
  body: string;
  tail: string;
  written: string;
}

/** A mark written with the tag it was read from (the first is the default for new text). */
const tagKeeping = (tags: readonly string[]) => ({
  tag: {
    default: tags[0],
    rendered: false,
    parseHTML: (el: HTMLElement) => {
      const tag = el.nodeName.toLowerCase();
      return tags.includes(tag) ? tag : tags[0];
    },
  },
});

const KeptBold = Bold.extend({
  addAttributes: () => tagKeeping(['strong', 'b']),
  renderHTML({ mark, HTMLAttributes }) {
    return [mark.attrs.tag as string, mergeAttributes(this.options.HTMLAttributes, HTMLAttributes), 0];
  },
});
const KeptItalic = Italic.extend({
  addAttributes: () => tagKeeping(['em', 'i']),
  renderHTML({ mark, HTMLAttributes }) {
    return [mark.attrs.tag as string, mergeAttributes(this.options.HTMLAttributes, HTMLAttributes), 0];
  },
});
const KeptStrike = Strike.extend({
  addAttributes: () => tagKeeping(['s', 'del', 'strike']),
  renderHTML({ mark, HTMLAttributes }) {
    return [mark.attrs.tag as string, mergeAttributes(this.options.HTMLAttributes, HTMLAttributes), 0];
  },
});

/** `<pre>` alone or `<pre><code class="language-x">`, as it was. */
const KeptCodeBlock = CodeBlock.extend({
  addAttributes() {
    return {
      ...this.parent?.(),
      code: {
        default: true,
        rendered: false,
        parseHTML: (el: HTMLElement) => el.firstElementChild?.nodeName === 'CODE',
      },
    };
  },
  renderHTML({ node, HTMLAttributes }) {
    const pre = mergeAttributes(this.options.HTMLAttributes, HTMLAttributes);
    if (!node.attrs.code) return ['pre', pre, 0];
    return [
      'pre',
      pre,
      ['code', { class: node.attrs.language ? `${this.options.languageClassPrefix}${node.attrs.language}` : null }, 0],
    ];
  },
});

const BareParagraph = Paragraph.extend({
  addAttributes() {
    return {
      bare: {
        default: false,
        keepOnSplit: false,
        parseHTML: (el: HTMLElement) => el.hasAttribute(BARE),
        renderHTML: (attrs: Record<string, unknown>) => (attrs.bare ? { [BARE]: '' } : {}),
      },
    };
  },
});

/**
 * HTML the editor cannot represent (a `<div>` with styles, a table, an embed, a comment): one block that
 * keeps its text exactly. Shown as a preview that can be opened as HTML (editor.ts gives it its view).
 */
export const RawHtml = Node.create({
  name: 'rawHtml',
  group: 'block',
  atom: true,
  selectable: true,
  draggable: true,
  addAttributes: () => ({ html: { default: '', rendered: false } }),
  // Copied and pasted inside the editor it stays what it is.
  parseHTML: () => [
    { tag: 'div[data-bc-raw]', getAttrs: (el) => ({ html: (el as HTMLElement).getAttribute('data-bc-raw') ?? '' }) },
  ],
  renderHTML: ({ node }) => ['div', { 'data-bc-raw': node.attrs.html as string }],
});

/** `data-featured` on an `<img>`: the post's featured picture (docs/design.md §23; the first picture when none is). */
const featured = {
  featured: {
    default: false,
    parseHTML: (el: HTMLElement) => el.hasAttribute('data-featured'),
    renderHTML: (attrs: Record<string, unknown>) => (attrs.featured ? { 'data-featured': '' } : {}),
  },
};

/** A picture (`<img>`), inline; editor.ts shows it from the local store when it is there. */
export const Picture = Image.extend({
  addAttributes() {
    return { ...this.parent?.(), ...featured };
  },
}).configure({ inline: true, allowBase64: false });

/** The first child element of `el` named `name` (no `:scope` selectors: the server's DOM has none). */
const child = (el: Element, name: string) => [...el.children].find((c) => c.nodeName.toUpperCase() === name) ?? null;

/** How a figure stands in the column (the default theme styles `data-align`); null: as the column has it. */
export type FigureAlign = 'left' | 'center' | 'wide';
const ALIGNS: readonly string[] = ['left', 'center', 'wide'];

/**
 * A picture with an optional caption and alignment: `<figure data-align><img src alt data-featured><figcaption>`.
 * The caption is the node's text; the `<figcaption>` is written only when there is one. A figure holding more
 * (other attributes, two pictures, a link around the picture) does not write back the same and stays raw HTML.
 */
export const Figure = Node.create({
  name: 'figure',
  group: 'block',
  content: 'inline*',
  draggable: true,
  selectable: true,
  isolating: true,
  addAttributes: () => ({
    src: { default: null, rendered: false },
    alt: { default: null, rendered: false },
    title: { default: null, rendered: false },
    featured: { default: false, rendered: false },
    align: {
      default: null,
      parseHTML: (el: HTMLElement) => {
        const a = el.getAttribute('data-align');
        return a && ALIGNS.includes(a) ? a : null;
      },
      renderHTML: (attrs: Record<string, unknown>) => (attrs.align ? { 'data-align': attrs.align } : {}),
    },
  }),
  parseHTML: () => [
    {
      tag: 'figure',
      // Without a <figcaption> the caption is empty (not the picture read as text).
      contentElement: (el: HTMLElement) =>
        (child(el, 'FIGCAPTION') as HTMLElement | null) ?? el.ownerDocument.createElement('figcaption'),
      getAttrs: (el: HTMLElement) => {
        const img = child(el, 'IMG');
        if (!img) return false;
        return {
          src: img.getAttribute('src'),
          alt: img.getAttribute('alt'),
          title: img.getAttribute('title'),
          featured: img.hasAttribute('data-featured'),
        };
      },
    },
  ],
  renderHTML({ node, HTMLAttributes }) {
    const { src, alt, title } = node.attrs as { src: string | null; alt: string | null; title: string | null };
    const img = ['img', { src, alt, title, ...(node.attrs.featured ? { 'data-featured': '' } : {}) }] as const;
    // No hole without a caption: nothing is written for it.
    if (node.childCount === 0) return ['figure', HTMLAttributes, img];
    return ['figure', HTMLAttributes, img, ['figcaption', 0]];
  },
});

/** The source of each top-level block (never written into the HTML itself). */
const KeepSource = Extension.create({
  name: 'keepSource',
  addGlobalAttributes: () => [
    { types: BLOCKS, attributes: { kept: { default: null, rendered: false, keepOnSplit: false } } },
  ],
});

/**
 * The editor's extensions. Writing together, the Yjs document keeps the undo history (TipTap's collaboration
 * extension brings its own): `undoRedo: false` leaves TipTap's out. The schema is the same either way.
 */
export const richExtensions = (options: { undoRedo?: boolean } = {}): AnyExtension[] => [
  StarterKit.configure({
    ...(options.undoRedo === false ? { undoRedo: false as const } : {}),
    bold: false,
    italic: false,
    strike: false,
    codeBlock: false,
    paragraph: false,
    // A post ends where its author ended it: no empty paragraph added after a last list or picture.
    trailingNode: false,
    heading: { levels: [1, 2, 3, 4, 5, 6] },
    link: { openOnClick: false, autolink: false, HTMLAttributes: { target: null, rel: null } },
  }),
  KeptBold,
  KeptItalic,
  KeptStrike,
  KeptCodeBlock,
  BareParagraph,
  Picture,
  Figure,
  RawHtml,
  KeepSource,
];

/** `richExtensions()` with its defaults (TipTap's own undo history included): an editor that does not write together. */
export const extensions: AnyExtension[] = richExtensions();

let schema: Schema | undefined;
/** The schema of `extensions` (the editor builds the same one). */
export const richSchema = (): Schema => (schema ??= getSchema(extensions));

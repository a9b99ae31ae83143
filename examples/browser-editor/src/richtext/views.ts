/**
 * How the editors show what is not plain text (the single-author editor and the one for writing together, so a
 * post looks the same in both): pictures from their local copy (offline too), figures with their caption typed in
 * place and their alignment as readers get it, a badge on the featured picture, raw HTML as a preview that opens as
 * text to edit.
 */
import type { AnyExtension } from '@tiptap/core';
import type { Node as PMNode } from '@tiptap/pm/model';
import type { EditorState } from '@tiptap/pm/state';
import { Decoration, DecorationSet } from '@tiptap/pm/view';
import { Figure, Picture, RawHtml } from 'blogcore/collab';
import { h, htmlFrame, mount } from '../dom.js';

export interface Pictures {
  /** Stores a picture (locally first when offline) and answers the url the post names it by. */
  add(file: File): Promise<{ url: string }>;
  /** The address to show a picture of the post from (its local copy), or null to show its url as it is. */
  show(src: string): Promise<string | null>;
}

export const PICTURES = new Set(['image', 'figure']);

/** A raw block: a preview of its HTML, which opens as text to edit. */
const RawHtmlView = RawHtml.extend({
  addNodeView() {
    return ({ node, getPos, editor }) => {
      let current = node;
      const preview = h('div', { class: 'rt-raw-preview' });
      const source = h('textarea', {
        class: 'rt-raw-source',
        rows: 6,
        spellcheck: false,
        'aria-label': 'HTML kept as it is',
        hidden: true,
      });
      const toggle = h('button', { type: 'button', class: 'link' }, 'Edit HTML');
      const dom = h(
        'div',
        { class: 'rt-raw', contentEditable: 'false' },
        h('p', { class: 'rt-raw-head' }, h('span', null, 'HTML kept as it is'), toggle),
        preview,
        source,
      );
      const show = () => mount(preview, htmlFrame(current.attrs.html as string, 'HTML kept as it is'));
      toggle.addEventListener('click', () => {
        source.hidden = !source.hidden;
        toggle.textContent = source.hidden ? 'Edit HTML' : 'Done';
        if (!source.hidden) {
          source.value = current.attrs.html as string;
          source.focus();
        } else show();
      });
      source.addEventListener('input', () => {
        const pos = typeof getPos === 'function' ? getPos() : undefined;
        if (pos === undefined) return;
        editor.view.dispatch(editor.state.tr.setNodeMarkup(pos, undefined, { ...current.attrs, html: source.value }));
      });
      show();
      return {
        dom,
        update(next) {
          if (next.type !== current.type) return false;
          const changed = next.attrs.html !== current.attrs.html;
          current = next;
          if (changed && source.hidden) show();
          return true;
        },
        stopEvent: (event) => event.target instanceof HTMLTextAreaElement || event.target instanceof HTMLButtonElement,
        ignoreMutation: () => true,
      };
    };
  },
});

/**
 * Shows a picture node's `src` in `img` from where `pictures` says (its local copy, offline too); the `src` in
 * the post stays the url. The shown address is set once known, so an offline editor never asks the network first.
 */
function showPicture(img: HTMLImageElement, attrs: Record<string, unknown>, pictures?: Pictures): void {
  const src = attrs.src as string;
  img.alt = (attrs.alt as string | null) ?? '';
  img.title = (attrs.title as string | null) ?? '';
  if (img.dataset.src === src) return;
  img.dataset.src = src;
  if (!pictures) img.src = src;
  else
    void pictures.show(src).then((local) => {
      if (img.dataset.src === src) img.src = local ?? src;
    });
}

const pictureView = (pictures: Pictures) =>
  Picture.extend({
    addNodeView() {
      return ({ node }) => {
        let current = node;
        const img = h('img', { class: 'rt-picture' });
        showPicture(img, current.attrs, pictures);
        return {
          dom: img,
          update(next) {
            if (next.type !== current.type) return false;
            current = next;
            showPicture(img, current.attrs, pictures);
            return true;
          },
        };
      };
    },
  });

/** A figure: its picture (shown as above), aligned as readers will see it, and its caption typed in place. */
const figureView = (pictures?: Pictures) =>
  Figure.extend({
    addNodeView() {
      return ({ node }) => {
        let current = node;
        const img = h('img', { class: 'rt-picture', contentEditable: 'false' });
        const caption = h('figcaption', { class: 'rt-caption', 'data-placeholder': 'Caption (optional)' });
        const dom = h('figure', { class: 'rt-figure' }, img, caption);
        const show = () => {
          showPicture(img, current.attrs, pictures);
          if (current.attrs.align) dom.dataset.align = current.attrs.align as string;
          else delete dom.dataset.align;
          caption.classList.toggle('rt-empty', current.childCount === 0);
        };
        show();
        return {
          dom,
          contentDOM: caption,
          update(next) {
            if (next.type !== current.type) return false;
            current = next;
            show();
            return true;
          },
          // The picture's own changes (its shown address) are not the text's.
          ignoreMutation: (m) => m.type !== 'selection' && !caption.contains(m.target),
        };
      };
    },
  });

/**
 * The post's featured picture (docs/design.md §23): the one marked `featured`, else the first. Marking one
 * takes the mark from the others; the first needs none.
 */
export function featuredPicture(doc: PMNode): { pos: number; node: PMNode } | null {
  let first: { pos: number; node: PMNode } | null = null;
  let marked: { pos: number; node: PMNode } | null = null;
  doc.descendants((node, pos) => {
    if (marked) return false;
    if (!PICTURES.has(node.type.name)) return true;
    first ??= { pos, node };
    if (node.attrs.featured) marked = { pos, node };
    return false;
  });
  return marked ?? first;
}

/** `list` with this editor's views of raw HTML, pictures (when `pictures` shows them) and figures. */
export const withViews = (list: readonly AnyExtension[], pictures?: Pictures): AnyExtension[] =>
  list.map((e) =>
    e === RawHtml
      ? RawHtmlView
      : e === Figure
        ? figureView(pictures)
        : e === Picture && pictures
          ? pictureView(pictures)
          : e,
  );

/** The featured picture wears a badge, so the author sees which one the feeds and og:image use. */
export const featuredBadge = (state: EditorState): DecorationSet => {
  const f = featuredPicture(state.doc);
  return f
    ? DecorationSet.create(state.doc, [Decoration.node(f.pos, f.pos + f.node.nodeSize, { class: 'rt-featured' })])
    : DecorationSet.empty;
};

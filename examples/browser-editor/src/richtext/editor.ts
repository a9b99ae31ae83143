/**
 * The content field of the post and page editor: rich text (TipTap on ProseMirror) with a toolbar, or the
 * HTML itself. What it stores is always the post's HTML (html.ts keeps what the editor cannot represent).
 * Pictures come in by the toolbar's file picker, by paste and by drag and drop; each is handed to
 * `pictures.add`, which stores it and answers its url, and is then shown at once with a field for its alt text.
 */
import { Editor } from '@tiptap/core';
import type { Node as PMNode } from '@tiptap/pm/model';
import { type EditorState, NodeSelection } from '@tiptap/pm/state';
import type { EditorView } from '@tiptap/pm/view';
import { h } from '../dom.js';
import { featuredBadge, featuredPicture, PICTURES, type Pictures, withViews } from './views.js';
import { extensions, type FigureAlign, readHtml, richSchema, writeHtml } from 'blogcore/collab';

export type { Pictures } from './views.js';

export interface RichTextOptions {
  html: string;
  /** Called on every change of the content (typing, formatting, a picture). */
  onChange(): void;
  /** Where pictures go; without it the editor takes none. */
  pictures?: Pictures;
  /** Reports a picture that could not be added. */
  onError(error: unknown): void;
}

export interface RichText {
  readonly element: HTMLElement;
  /** The content as HTML. */
  html(): string;
  setHtml(html: string): void;
  setReadOnly(readOnly: boolean): void;
  destroy(): void;
}

const isPicture = (f: File) => /^image\//.test(f.type);

/** The picture the selection is on (selected, or the cursor in its caption), with its position. */
function selectedPicture(state: EditorState): { pos: number; node: PMNode } | null {
  const { selection } = state;
  if (selection instanceof NodeSelection && PICTURES.has(selection.node.type.name))
    return { pos: selection.from, node: selection.node };
  const { $from } = selection;
  return $from.parent.type.name === 'figure' ? { pos: $from.before(), node: $from.parent } : null;
}

export function richText(options: RichTextOptions): RichText {
  const schema = richSchema();
  const surface = h('div', { class: 'rt-surface' });
  const source = h('textarea', {
    id: 'content',
    name: 'content',
    rows: 16,
    spellcheck: true,
    class: 'rt-html',
    hidden: true,
  });
  let mode: 'rich' | 'html' = 'rich';

  const editor = new Editor({
    element: surface,
    extensions: withViews(extensions, options.pictures),
    content: readHtml(schema, options.html, document).toJSON(),
    editorProps: {
      attributes: { 'aria-label': 'Content', 'aria-multiline': 'true', role: 'textbox', class: 'rt-doc' },
      decorations: featuredBadge,
      handlePaste: (view, event) => takePictures(view, [...(event.clipboardData?.files ?? [])]),
      handleDrop: (view, event, _slice, moved) => {
        if (moved) return false;
        const at = view.posAtCoords({ left: event.clientX, top: event.clientY })?.pos;
        return takePictures(view, [...(event.dataTransfer?.files ?? [])], at);
      },
    },
    onUpdate: () => options.onChange(),
    onTransaction: () => refresh(),
  });

  /**
   * Stores each picture, then puts it in the text as a figure (at `at`, else at the cursor) and asks for its
   * alt text.
   */
  function takePictures(_view: EditorView, files: File[], at?: number): boolean {
    const pictures = files.filter(isPicture);
    if (!pictures.length || !options.pictures) return false;
    void (async () => {
      for (const file of pictures) {
        try {
          const { url } = await options.pictures!.add(file);
          let pos = at ?? editor.state.selection.to;
          // In a caption: after its figure (a figure holds one picture).
          const $pos = editor.state.doc.resolve(pos);
          if ($pos.parent.type.name === 'figure') pos = $pos.after();
          editor
            .chain()
            .focus()
            .insertContentAt(pos, { type: 'figure', attrs: { src: url, alt: '' } })
            .run();
          // Select it (the new figure with this url nearest to where it went in), so the alt text field shows.
          let where = -1;
          editor.state.doc.descendants((node, p) => {
            if (
              node.type.name === 'figure' &&
              node.attrs.src === url &&
              (where < 0 || Math.abs(p - pos) < Math.abs(where - pos))
            )
              where = p;
            return node.type.name !== 'figure';
          });
          if (where >= 0)
            editor.view.dispatch(editor.state.tr.setSelection(NodeSelection.create(editor.state.doc, where)));
          at = undefined;
        } catch (error) {
          options.onError(error);
        }
      }
      altInput.focus();
    })();
    return true;
  }

  // --- the toolbar
  const button = (label: string, text: string, run: () => void, active?: () => boolean) => {
    // A press does not take the focus (or the selection) from the text.
    const b = h(
      'button',
      {
        type: 'button',
        class: 'rt-button',
        title: label,
        'aria-label': label,
        onmousedown: (e: Event) => e.preventDefault(),
        onclick: () => run(),
      },
      text,
    );
    if (active) b.setAttribute('aria-pressed', 'false');
    return { b, active };
  };
  const chain = () => editor.chain().focus();
  const blockType = h(
    'select',
    { class: 'rt-block', 'aria-label': 'Text style' },
    h('option', { value: 'p' }, 'Paragraph'),
    ...[2, 3, 4].map((n) => h('option', { value: `h${n}` }, `Heading ${n}`)),
  );
  blockType.addEventListener('change', () => {
    const v = blockType.value;
    if (v === 'p') chain().setParagraph().run();
    else
      chain()
        .setHeading({ level: Number(v.slice(1)) as 2 | 3 | 4 })
        .run();
  });
  const picker = h('input', {
    type: 'file',
    accept: 'image/jpeg,image/png,image/gif,image/webp,image/avif',
    multiple: true,
    hidden: true,
  });
  picker.addEventListener('change', () => {
    takePictures(editor.view, [...(picker.files ?? [])]);
    picker.value = '';
  });
  const buttons = [
    button(
      'Bold',
      'B',
      () => chain().toggleBold().run(),
      () => editor.isActive('bold'),
    ),
    button(
      'Italic',
      'I',
      () => chain().toggleItalic().run(),
      () => editor.isActive('italic'),
    ),
    button(
      'Link',
      'Link',
      () => openLink(),
      () => editor.isActive('link'),
    ),
    button(
      'Bulleted list',
      '• List',
      () => chain().toggleBulletList().run(),
      () => editor.isActive('bulletList'),
    ),
    button(
      'Numbered list',
      '1. List',
      () => chain().toggleOrderedList().run(),
      () => editor.isActive('orderedList'),
    ),
    button(
      'Quote',
      'Quote',
      () => chain().toggleBlockquote().run(),
      () => editor.isActive('blockquote'),
    ),
    button(
      'Code',
      '</>',
      () => chain().toggleCode().run(),
      () => editor.isActive('code'),
    ),
    button(
      'Code block',
      '{ }',
      () => chain().toggleCodeBlock().run(),
      () => editor.isActive('codeBlock'),
    ),
    ...(options.pictures ? [button('Add a picture', 'Picture', () => picker.click())] : []),
    button('Undo', 'Undo', () => chain().undo().run()),
    button('Redo', 'Redo', () => chain().redo().run()),
  ];
  const toolbar = h(
    'div',
    { class: 'rt-toolbar', role: 'toolbar', 'aria-label': 'Formatting' },
    blockType,
    ...buttons.map((x) => x.b),
    picker,
  );

  // --- the line under the toolbar: a link's address, a picture's alt text
  const hrefInput = h('input', {
    type: 'url',
    class: 'rt-href',
    'aria-label': 'Link address',
    placeholder: 'https://…',
  });
  const linkBar = h(
    'div',
    { class: 'rt-context', hidden: true },
    h('label', null, 'Link address ', hrefInput),
    h('button', { type: 'button', onclick: () => applyLink() }, 'Apply'),
    h(
      'button',
      { type: 'button', class: 'quiet', onclick: () => chain().extendMarkRange('link').unsetLink().run() },
      'Remove link',
    ),
  );
  hrefInput.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      applyLink();
    }
  });
  const altInput = h('input', {
    class: 'rt-alt',
    'aria-label': 'Alt text',
    placeholder: 'What the picture shows, for people who cannot see it',
  });
  /** Sets attributes of the selected picture. */
  const setPicture = (attrs: Record<string, unknown>) => {
    const picture = selectedPicture(editor.state);
    if (picture)
      editor.view.dispatch(editor.state.tr.setNodeMarkup(picture.pos, undefined, { ...picture.node.attrs, ...attrs }));
  };
  altInput.addEventListener('input', () => setPicture({ alt: altInput.value }));
  const alignSelect = h(
    'select',
    { class: 'rt-align', 'aria-label': 'Alignment' },
    h('option', { value: '' }, 'In the column'),
    h('option', { value: 'left' }, 'Left, text beside it'),
    h('option', { value: 'center' }, 'Centred'),
    h('option', { value: 'wide' }, 'Wide'),
  );
  alignSelect.addEventListener('change', () =>
    setPicture({ align: (alignSelect.value || null) as FigureAlign | null }),
  );
  const alignLabel = h('label', { class: 'rt-align-label' }, 'Alignment ', alignSelect);
  const featuredBox = h('input', { type: 'checkbox', class: 'rt-featured-box' });
  featuredBox.addEventListener('change', () => {
    const picture = selectedPicture(editor.state);
    if (!picture) return;
    // One featured picture per post: the mark goes on this one (none when it is the first) and off the others.
    const tr = editor.state.tr;
    let first = true;
    editor.state.doc.descendants((node, pos) => {
      if (!PICTURES.has(node.type.name)) return true;
      const featured = featuredBox.checked && pos === picture.pos && !first;
      if (Boolean(node.attrs.featured) !== featured) tr.setNodeMarkup(pos, undefined, { ...node.attrs, featured });
      first = false;
      return false;
    });
    editor.view.dispatch(tr);
  });
  const featuredLabel = h('label', { class: 'rt-featured-label' }, featuredBox, ' Featured picture');
  const altBar = h(
    'div',
    { class: 'rt-context', hidden: true },
    h('label', null, 'Alt text ', altInput),
    alignLabel,
    featuredLabel,
  );
  let linking = false;

  function openLink() {
    linking = true;
    hrefInput.value = (editor.getAttributes('link').href as string | undefined) ?? '';
    refresh();
    hrefInput.focus();
  }
  function applyLink() {
    const href = hrefInput.value.trim();
    linking = false;
    if (!href) chain().extendMarkRange('link').unsetLink().run();
    else chain().extendMarkRange('link').setLink({ href }).run();
  }

  function refresh() {
    for (const { b, active } of buttons) if (active) b.setAttribute('aria-pressed', String(active()));
    const level = [2, 3, 4, 1, 5, 6].find((n) => editor.isActive('heading', { level: n }));
    blockType.value = level && level >= 2 && level <= 4 ? `h${level}` : 'p';
    const selected = selectedPicture(editor.state);
    const picture = selected?.node;
    altBar.hidden = !picture;
    if (picture && document.activeElement !== altInput) altInput.value = (picture.attrs.alt as string | null) ?? '';
    alignLabel.hidden = picture?.type.name !== 'figure';
    alignSelect.value = (picture?.attrs.align as string | null) ?? '';
    if (selected) {
      const featured = featuredPicture(editor.state.doc);
      featuredBox.checked = featured?.pos === selected.pos;
      // The first picture is featured unless another is marked: taking it off means marking another.
      featuredBox.disabled = featuredBox.checked && !picture!.attrs.featured;
      featuredLabel.title = featuredBox.disabled ? 'The first picture is featured unless you mark another' : '';
    }
    linkBar.hidden = !(linking || editor.isActive('link'));
    if (!linking && editor.isActive('link') && document.activeElement !== hrefInput)
      hrefInput.value = (editor.getAttributes('link').href as string) ?? '';
  }

  // --- rich text or HTML
  const tab = (label: string, which: 'rich' | 'html') =>
    h(
      'button',
      {
        type: 'button',
        role: 'tab',
        class: 'rt-tab',
        'aria-selected': String(which === mode),
        onclick: () => setMode(which),
      },
      label,
    );
  const richTab = tab('Rich text', 'rich');
  const htmlTab = tab('HTML', 'html');
  const htmlLabel = h('label', { for: 'content', class: 'visually-hidden' }, 'Content (HTML)');
  source.addEventListener('input', () => options.onChange());

  function setMode(next: 'rich' | 'html') {
    if (next === mode) return;
    if (next === 'html') source.value = writeHtml(schema, editor.state.doc, document);
    else editor.commands.setContent(readHtml(schema, source.value, document).toJSON(), { emitUpdate: false });
    mode = next;
    richTab.setAttribute('aria-selected', String(mode === 'rich'));
    htmlTab.setAttribute('aria-selected', String(mode === 'html'));
    toolbar.hidden = surface.hidden = mode === 'html';
    source.hidden = mode === 'rich';
    if (mode === 'html') {
      altBar.hidden = linkBar.hidden = true;
      source.focus();
    } else editor.commands.focus();
  }

  const element = h(
    'div',
    { class: 'richtext' },
    h('div', { class: 'rt-tabs', role: 'tablist', 'aria-label': 'Edit as' }, richTab, htmlTab),
    toolbar,
    linkBar,
    altBar,
    surface,
    htmlLabel,
    source,
  );
  refresh();

  return {
    element,
    html: () => (mode === 'html' ? source.value : writeHtml(schema, editor.state.doc, document)),
    setHtml(html) {
      if (mode === 'html') source.value = html;
      else editor.commands.setContent(readHtml(schema, html, document).toJSON(), { emitUpdate: false });
    },
    setReadOnly(readOnly) {
      editor.setEditable(!readOnly);
      source.readOnly = readOnly;
      toolbar.toggleAttribute('inert', readOnly);
    },
    destroy: () => editor.destroy(),
  };
}

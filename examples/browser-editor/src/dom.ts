/** A tiny DOM builder: enough to write views as plain functions without a UI library. */

type Child = Node | string | number | null | undefined | false;
type Props = Record<string, unknown> & { class?: string; dataset?: Record<string, string> };

/** `h('button', { class: 'primary', onclick }, 'Save')`: attributes, `on*` listeners and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props | null = null,
  ...children: Array<Child | Child[]>
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function')
      el.addEventListener(key.slice(2), value as EventListener);
    else if (key in el && key !== 'list' && key !== 'form') (el as unknown as Record<string, unknown>)[key] = value;
    else el.setAttribute(key === 'class' ? 'class' : key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

export function append(el: Element, children: Array<Child | Child[]>): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'number' ? String(child) : child);
  }
}

/** Replaces everything inside `el`. */
export function mount(el: Element, ...children: Array<Child | Child[]>): void {
  el.replaceChildren();
  append(el, children);
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** An RFC 3339 time as a <time> element in the reader's locale. */
export function when(iso: string | undefined): HTMLElement | string {
  if (!iso) return '';
  return h('time', { dateTime: iso }, dateFormat.format(new Date(iso)));
}

/** Escapes text for use as HTML (comments are typed as plain text and sent as HTML). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Shows author HTML in a sandboxed frame: no scripts run, nothing can reach this page, and the frame
 * grows to fit its content.
 */
export function htmlFrame(
  html: string,
  title: string,
  pictures?: { show(src: string): Promise<string | null> },
): HTMLIFrameElement {
  const frame = h('iframe', { class: 'content-frame', title, sandbox: 'allow-same-origin' });
  frame.srcdoc = `<!doctype html><meta charset="utf-8"><base target="_blank"><style>
    body{font:17px/1.65 Georgia,"Times New Roman",serif;color:#1f2328;margin:0;padding:1px 0}
    img{max-width:100%;height:auto} pre{overflow:auto} a{color:#0b57d0}
  </style>${html}`;
  const fitHeight = () => {
    const doc = frame.contentDocument;
    // The <html> element's own box is as tall as the content (scrollHeight would be at least the frame's).
    if (doc)
      frame.style.height = `${Math.ceil(Math.max(40, doc.documentElement.getBoundingClientRect().height)) + 2}px`;
  };
  frame.addEventListener('load', () => {
    fitHeight();
    // Pictures of the blog are shown from the local store (offline too); each one that loads refits the frame.
    for (const img of frame.contentDocument?.images ?? []) {
      img.addEventListener('load', fitHeight);
      void pictures?.show(img.getAttribute('src') ?? '').then((local) => {
        if (local) img.src = local;
      });
    }
  });
  return frame;
}

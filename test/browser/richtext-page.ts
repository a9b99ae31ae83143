/**
 * The page behind test/editor/richtext.e2e.test.ts: the editor's rich text field (examples/browser-editor)
 * in a real Chromium page, with hooks to load HTML into it, read its HTML back, and type into it.
 */
import { richText, type RichText } from '../../examples/browser-editor/src/richtext/editor.js';

let field: RichText | undefined;

/** Mounts a fresh field on `html`; answers its top-level blocks: the tag of each rich one, `raw` for each kept as HTML. */
function load(html: string): string[] {
  field?.destroy();
  field = richText({ html, onChange: () => undefined, onError: (e) => console.error(e) });
  document.body.replaceChildren(field.element);
  return [...field.element.querySelectorAll('.rt-doc > *')].map((b) =>
    b.classList.contains('rt-raw') ? 'raw' : b.nodeName.toLowerCase(),
  );
}

const hooks = { load, html: () => field!.html() };
(globalThis as unknown as { richtext: typeof hooks }).richtext = hooks;

/**
 * Figures through the rich text editor's HTML reader and writer (src/collab/html.ts with the server's DOM, the
 * same code the editor runs in the browser): a picture with a caption, an alignment and the featured mark comes
 * back byte for byte; an edit writes exactly the HTML the site reads; what the figure node cannot hold stays raw.
 */
import { describe, expect, it } from 'vitest';
import { htmlDocument } from '../../src/collab/document.js';
import { readHtml, richSchema, writeHtml } from '../../src/collab/index.js';
import { canonical } from '../../src/collab/html.js';

const src = 'https://blog.example/media/b1/0123/harbour.jpg';

async function read(html: string) {
  const document = await htmlDocument();
  const doc = readHtml(richSchema(), html, document);
  return { doc, document, kinds: doc.content.content.map((n) => n.type.name) };
}

describe('figures in the editor’s HTML', () => {
  it.each([
    `<figure><img src="${src}" alt="The harbour"></figure>`,
    `<figure data-align="wide"><img src="${src}" alt="The harbour" data-featured=""><figcaption>Boats at <em>dawn</em></figcaption></figure>`,
    `<p>Before.</p>\n<figure data-align="left"><img src="${src}" alt=""><figcaption>Left of the text</figcaption></figure>\n<p>After.</p>`,
    `<p><img src="${src}" alt="Inline" data-featured></p>`,
  ])('reads %s as editable blocks and writes it back unchanged', async (html) => {
    const { doc, document, kinds } = await read(html);
    expect(kinds).not.toContain('rawHtml');
    expect(writeHtml(richSchema(), doc, document)).toBe(html);
  });

  it('an edited figure is written as the site reads it: alignment on the figure, the mark on its picture', async () => {
    const { doc, document } = await read(`<figure><img src="${src}" alt="The harbour"></figure>`);
    const schema = richSchema();
    const figure = doc.child(0);
    const edited = schema.nodes.doc!.create(null, [
      schema.nodes.figure!.create({ ...figure.attrs, align: 'center', featured: true }, schema.text('At dawn')),
    ]);
    // (The server's DOM writes attributes in its own order; the browser's keeps src, alt, data-featured.)
    expect(canonical(writeHtml(schema, edited, document), document)).toBe(
      `<figure data-align="center"><img alt="The harbour" data-featured="" src="${src}"></img><figcaption>At dawn</figcaption></figure>`,
    );
    // The caption taken away: no empty <figcaption> is left behind.
    const bare = schema.nodes.doc!.create(null, [schema.nodes.figure!.create({ ...figure.attrs })]);
    expect(canonical(writeHtml(schema, bare, document), document)).toBe(
      `<figure><img alt="The harbour" src="${src}"></img></figure>`,
    );
  });

  it.each([
    `<figure class="photo"><img src="${src}" alt=""></figure>`,
    `<figure data-align="diagonal"><img src="${src}" alt=""></figure>`,
    `<figure><img src="${src}" alt=""><img src="${src}" alt=""></figure>`,
    `<figure><a href="/big"><img src="${src}" alt=""></a></figure>`,
    `<figure><blockquote>Words</blockquote></figure>`,
  ])('keeps %s as HTML, byte for byte', async (html) => {
    const { doc, document, kinds } = await read(html);
    expect(kinds).toEqual(['rawHtml']);
    expect(writeHtml(richSchema(), doc, document)).toBe(html);
  });
});

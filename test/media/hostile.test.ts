/**
 * Hostile files (docs/design.md §19): a PNG header on a script, an SVG with script, a picture claiming 60,000×60,000
 * pixels in a few bytes, a truncated JPEG and an empty body are refused and leave nothing; a polyglot that is
 * a whole picture is kept but served so that nothing in it can run (its own image type, nosniff, CSP).
 */
import { memoryDriver } from '../../drivers/memory/index.js';
import { describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../src/http/index.js';
import { expectError, world } from '../service/helpers.js';
import { concatBytes, ihdr, makePng, PICTURES, PNG_SIGNATURE } from './pictures.js';

const text = (s: string) => new TextEncoder().encode(s);

/** The GIF fixture with an HTML comment block inside it: still a whole GIF, also an HTML page to a sniffer. */
function gifPolyglot(): Uint8Array {
  const gif = PICTURES.gif;
  const packed = gif[10]!;
  const at = 13 + (packed & 0x80 ? 3 * 2 ** ((packed & 7) + 1) : 0);
  const html = text('<html><script>alert(document.cookie)</script></html>');
  const comment = concatBytes(Uint8Array.of(0x21, 0xfe, html.byteLength), html, Uint8Array.of(0));
  return concatBytes(gif.subarray(0, at), comment, gif.subarray(at));
}

/** The start of a HEIF file: its `ftyp` box with a major brand and compatible ones, then an empty `meta` box. */
function heif(major: string, ...compatible: string[]): Uint8Array {
  const brands = [major, '\0\0\0\0', ...compatible].join('');
  const ftyp = new Uint8Array(8 + brands.length);
  new DataView(ftyp.buffer).setUint32(0, ftyp.byteLength);
  ftyp.set(text(`ftyp${brands}`), 4);
  return concatBytes(ftyp, Uint8Array.of(0, 0, 0, 12), text('meta'), new Uint8Array(4), new Uint8Array(40));
}

describe('hostile files', () => {
  it('refuses what is not a whole picture, and keeps nothing of it', async () => {
    const w = await world(memoryDriver());
    const blogId = w.blogId;
    const oneByOne = makePng(1, 1, 5);
    const claims = concatBytes(PNG_SIGNATURE, ihdr(60_000, 60_000), oneByOne.subarray(33)); // the 1×1 picture's data under a lying header
    const cases: Array<[string, Uint8Array, RegExp]> = [
      [
        'a PNG header on a script',
        concatBytes(PNG_SIGNATURE, text('<script>alert(1)</script>\n'.repeat(20))),
        /cut short|width and height/,
      ],
      [
        'an SVG with script',
        text('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>'),
        /not a JPEG, PNG, GIF, WebP or AVIF/,
      ],
      ['60,000 × 60,000 claimed by a 1×1 picture', claims, /60000×60000: larger than 100 megapixels/],
      ['a truncated JPEG', PICTURES.jpg.subarray(0, PICTURES.jpg.byteLength - 2), /cut short/],
      ['a zero-byte body', new Uint8Array(0), /empty/],
      ['HTML', text('<!doctype html><script>alert(1)</script>'), /not a JPEG/],
      // An iPhone's HEIC (major brand heic; or mif1 listing heic): named, with how to convert it.
      ['a HEIC photo', heif('heic', 'mif1', 'heic'), /HEIC picture .*convert it to JPEG/],
      ['a HEIF photo coded in HEVC', heif('mif1', 'mif1', 'heic'), /HEIC picture .*convert it to JPEG/],
      ['a GIF with a script after its end', concatBytes(PICTURES.gif, text('<script>alert(1)</script>')), /cut short/],
    ];
    for (const [what, body] of cases) {
      const e = await expectError(w.author.media.upload({ blogId, body }), 400, 'invalid');
      expect(e.message, what).toMatch(cases.find((c) => c[0] === what)![2]);
    }
    expect((await w.admin.media.list({ blogId })).items).toEqual([]);
    expect((await w.driver.changesSince(0, 100_000)).filter((c) => c.collection === 'media')).toEqual([]);
  });

  it('serves a picture that is also HTML only as the picture: its own type, never sniffed, no script may run', async () => {
    const w = await world(memoryDriver());
    const polyglot = gifPolyglot();
    const m = await w.author.media.upload({ blogId: w.blogId, body: polyglot, filename: 'page.html' });
    expect(m).toMatchObject({ contentType: 'image/gif', filename: 'page.html.gif', width: 40, height: 30 });
    const handler = createHttpHandler(w.service);
    const res = await handler(new Request(m.url.replace(/^https?:\/\/[^/]+/, 'http://x.test')));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/gif');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'");
    const served = new Uint8Array(await res.arrayBuffer());
    expect(served.byteLength).toBe(m.bytes);
    // The HTML sat in a GIF comment, which an upload's cleaning drops (docs/media.md); the headers guard the rest.
    expect(Buffer.from(polyglot).toString('latin1')).toContain('<script');
    expect(Buffer.from(served).toString('latin1')).not.toContain('<script');
  });
});

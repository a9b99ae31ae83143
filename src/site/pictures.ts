/**
 * The blog's pictures as readers get them (docs/design.md §23): each `<img>` naming a picture of the blog's media becomes
 * a `<picture>` with AVIF and WebP sources and an `<img>` with `srcset` (w descriptors over the variants of
 * src/media/variants.ts and the original), `sizes` (the theme's column), its intrinsic `width`/`height`,
 * `decoding="async"`, and `loading="lazy"` except the page's first picture (`fetchpriority="high"`). Where sharp
 * is not there, no variants are named: the `<img>` keeps the original with its size and loading.
 */
import { EXTENSIONS } from '../media/images.js';
import { mediaPathOf, type PictureFacts, variantUrl } from '../web/pictures.js';

export type { PictureFacts } from '../web/pictures.js';

/** The default theme's column: 44rem less 1rem of padding each side (672 px), the screen less that on phones. */
export const COLUMN_SIZES = '(max-width: 44rem) calc(100vw - 2rem), 42rem';

const attr = (tag: string, name: string) => {
  const m = new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)'|([^\\s"'=<>\`]+))`, 'i').exec(tag);
  return m ? (m[2] ?? m[3] ?? m[4] ?? '') : undefined;
};

/** `html` with each `<img>` of the blog's pictures made responsive; `first` says whether none came before. */
export function responsivePictures(
  html: string,
  blogId: string,
  pictures: ReadonlyMap<string, PictureFacts>,
  sizes: string,
  state = { first: true },
): string {
  if (!pictures.size) return html;
  const sha = mediaPathOf(blogId);
  return html.replace(/<img\b[^>]*>/gi, (tag) => {
    const src = attr(tag, 'src');
    const m = src === undefined ? null : sha.exec(src);
    const p = m ? pictures.get(m[1]!) : undefined;
    if (!src || !m || !p) return tag;
    const variant = (w: number, ext: string) => variantUrl(src, m, p, w, ext);
    const set = (ext: string) => [...p.widths.map((w) => `${variant(w, ext)} ${w}w`), `${src} ${p.width}w`].join(', ');
    const own = EXTENSIONS[p.contentType][0]!;
    const added = [
      attr(tag, 'width') === undefined && attr(tag, 'height') === undefined
        ? ` width="${p.width}" height="${p.height}"`
        : '',
      attr(tag, 'decoding') === undefined ? ' decoding="async"' : '',
      attr(tag, 'loading') === undefined ? (state.first ? ' fetchpriority="high"' : ' loading="lazy"') : '',
      p.widths.length && attr(tag, 'srcset') === undefined ? ` srcset="${set(own)}" sizes="${sizes}"` : '',
    ].join('');
    state.first = false;
    const img = tag.replace(/\s*\/?>$/, `${added}>`);
    if (!p.widths.length || attr(tag, 'srcset') !== undefined) return img;
    const source = (type: string, ext: string) =>
      `<source type="${type}" srcset="${p.widths.map((w) => `${variant(w, ext)} ${w}w`).join(', ')}" sizes="${sizes}">`;
    return `<picture>${source('image/avif', 'avif')}${source('image/webp', 'webp')}${img}</picture>`;
  });
}

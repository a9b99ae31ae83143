/**
 * The blog's pictures as readers get them (docs/design.md §23): each `<img>` naming a picture of the blog's media becomes
 * a `<picture>` with AVIF and WebP sources and an `<img>` with `srcset` (w descriptors over the variants of
 * src/media/variants.ts and the original), `sizes` (the theme's column), its intrinsic `width`/`height`,
 * `decoding="async"`, and `loading="lazy"` except the page's first picture (`fetchpriority="high"`). Where sharp
 * is not there, no variants are named: the `<img>` keeps the original with its size and loading.
 */
import { mediaUses } from '../rules/media-refs.js';
import { mediaId, type Core, type MediaRecord } from '../service/store.js';
import { loadSharp, variantWidths } from '../media/variants.js';
import { EXTENSIONS } from '../media/images.js';

/** The default theme's column: 44rem less 1rem of padding each side (672 px), the screen less that on phones. */
export const COLUMN_SIZES = '(max-width: 44rem) calc(100vw - 2rem), 42rem';

export interface PictureFacts {
  width: number;
  height: number;
  contentType: MediaRecord['contentType'];
  filename: string;
  /** The widths its variants are offered at (none without sharp). */
  widths: readonly number[];
}

/** The facts of the blog's pictures `html` names (one read of their records; at most MAX_MEDIA_REFS). */
export async function picturesOf(core: Core, blogId: string, html: string): Promise<Map<string, PictureFacts>> {
  const shas = [...mediaUses(blogId, html).keys()];
  const out = new Map<string, PictureFacts>();
  if (!shas.length) return out;
  const sharp = await loadSharp();
  const docs = await core.driver.getMany(
    'media',
    shas.map((sha) => mediaId(blogId, sha)),
  );
  for (const d of docs) {
    if (!d) continue;
    const r = d.doc as unknown as MediaRecord;
    out.set(r.sha256, {
      width: r.width,
      height: r.height,
      contentType: r.contentType,
      filename: r.filename,
      widths: sharp ? variantWidths(core, r) : [],
    });
  }
  return out;
}

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
  const sha = new RegExp(`/media/${blogId.replace(/[^\w-]/g, '\\$&')}/([0-9a-f]{64})/`);
  return html.replace(/<img\b[^>]*>/gi, (tag) => {
    const src = attr(tag, 'src');
    const m = src === undefined ? null : sha.exec(src);
    const p = m ? pictures.get(m[1]!) : undefined;
    if (!src || !m || !p) return tag;
    const at = src.indexOf(m[0]) + m[0].length;
    const stem = encodeURIComponent(p.filename.replace(/\.[^.]*$/, '') || 'image');
    const variant = (w: number, ext: string) => `${src.slice(0, at)}w${w}/${stem}.${ext}`;
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

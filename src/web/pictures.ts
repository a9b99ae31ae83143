/**
 * What the site and the feeds know of a blog's pictures (docs/design.md §23): each picture's size and the widths
 * its variants are offered at (src/media/variants.ts), and the picture of a given size a page's `og:image` or a
 * feed's `<media:thumbnail>` names.
 */
import { featuredSrc, mediaUses } from '../rules/media-refs.js';
import { mediaId, type Core, type MediaRecord } from '../service/store.js';
import { loadSharp, variantWidths } from '../media/variants.js';
import { EXTENSIONS } from '../media/images.js';

export interface PictureFacts {
  width: number;
  height: number;
  contentType: MediaRecord['contentType'];
  filename: string;
  /** The widths its variants are offered at (none without sharp). */
  widths: readonly number[];
}

/** The facts of the blog's pictures `shas` names (one read of their records). */
export async function pictureFacts(core: Core, blogId: string, shas: readonly string[]) {
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

/** The facts of the blog's pictures `html` names (at most MAX_MEDIA_REFS). */
export const picturesOf = (core: Core, blogId: string, html: string) =>
  pictureFacts(core, blogId, [...mediaUses(blogId, html).keys()]);

/** `/media/{blogId}/{sha}/` in a url: where a variant's `w{N}/{name}` goes, and the picture's id. */
export const mediaPathOf = (blogId: string) =>
  new RegExp(`/media/${blogId.replace(/[^\w-]/g, '\\$&')}/([0-9a-f]{64})/`);

/** The url of the variant `width` wide of the picture at `src` (whose media path `m` matched), as `ext`. */
export function variantUrl(src: string, m: RegExpExecArray, p: PictureFacts, width: number, ext: string): string {
  const at = src.indexOf(m[0]) + m[0].length;
  const stem = encodeURIComponent(p.filename.replace(/\.[^.]*$/, '') || 'image');
  return `${src.slice(0, at)}w${width}/${stem}.${ext}`;
}

/** A variant's height: the picture's, scaled as sharp scales it (rounded, at least 1). */
export const variantHeight = (p: Pick<PictureFacts, 'width' | 'height'>, width: number) =>
  Math.max(1, Math.round((p.height * width) / p.width));

export interface SizedPicture {
  /** Absolute. */
  url: string;
  width?: number;
  height?: number;
}

/**
 * The featured picture of `html` (src/rules/media-refs.ts), absolute against `base`, at most `max` pixels wide
 * in its own type when it is one of the blog's pictures with a variant that small (else the picture itself, with
 * its size when it is the blog's). Undefined when the content shows no http(s) picture.
 */
export async function featuredPicture(
  core: Core | undefined,
  blogId: string,
  html: string,
  base: string,
  max: number,
  known?: ReadonlyMap<string, PictureFacts>,
): Promise<SizedPicture | undefined> {
  const src = featuredSrc(html);
  if (!src) return undefined;
  let url: URL;
  try {
    url = new URL(src.replace(/&amp;/g, '&'), base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  const m = mediaPathOf(blogId).exec(url.href);
  const p = m && (known?.get(m[1]!) ?? (core ? (await pictureFacts(core, blogId, [m[1]!])).get(m[1]!) : undefined));
  if (!m || !p) return { url: url.href };
  const width = p.width <= max ? undefined : p.widths.filter((w) => w <= max).at(-1);
  if (width === undefined) return { url: url.href, width: p.width, height: p.height };
  const ext = EXTENSIONS[p.contentType][0]!;
  return { url: variantUrl(url.href, m, p, width, ext), width, height: variantHeight(p, width) };
}

/**
 * A blog whose pictures were stored before metadata came out at upload (a service with `keepImageMetadata: true`,
 * on one SQLite file): two camera-like JPEGs carrying an owner's name, a serial and a GPS position, one clean PNG,
 * used by three posts (src and srcset) and a page. What `cleanMedia` tests start from.
 */
import sharp from 'sharp';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { createBlogService } from '../../src/index.js';

export const BASE = 'https://pictures.example';
export const SECRETS = ['Secretowner', 'SN-4455667788'];
export const latin1 = (b: Uint8Array) => Buffer.from(b).toString('latin1');

/** A camera-like JPEG carrying an owner's name, a serial and a GPS position. */
export const tagged = async (hue: number) =>
  new Uint8Array(
    await sharp({ create: { width: 1200, height: 900, channels: 3, background: { r: hue, g: 90, b: 160 } } })
      .withExifMerge({
        IFD0: { Artist: 'Ada Secretowner' },
        IFD2: { BodySerialNumber: 'SN-4455667788' },
        IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 1234/100' },
      })
      .jpeg()
      .toBuffer(),
  );

/** The blog on `file` (`posts` posts use the first picture). */
export async function storedBefore(file: string, posts = 3) {
  const old = createBlogService({
    driver: sqliteDriver({ filename: file }),
    apiBaseUrl: BASE,
    keepImageMetadata: true,
  });
  await old.users.insert({ body: { id: 'ada', displayName: 'Ada' } });
  const blogId = (await old.blogs.insert({ body: { name: 'Old', url: `${BASE}/` }, ownerId: 'ada' })).id;
  const clean = new Uint8Array(
    await sharp({ create: { width: 40, height: 30, channels: 3, background: '#123' } })
      .png()
      .toBuffer(),
  );
  const [a, b, c] = [
    await old.media.upload({ blogId, body: await tagged(10), filename: 'home.jpg' }),
    await old.media.upload({ blogId, body: await tagged(200), filename: 'garden.jpg' }),
    await old.media.upload({ blogId, body: clean, filename: 'dot.png' }),
  ];
  const variant = a.url.replace(/\/home\.jpg$/, '/w640/home.webp');
  const written = [];
  for (let i = 0; i < posts; i++)
    written.push(
      await old.posts.insert({
        blogId,
        body: {
          title: `Post ${i}`,
          content: `<p><img src="${a.url}" srcset="${variant} 640w"><img src="${c.url}"></p>`,
        },
      }),
    );
  const page = await old.pages.insert({ blogId, body: { title: 'About', content: `<img src="${b.url}" alt="">` } });
  await old.close();
  return { blogId, a, b, c, posts: written, page };
}

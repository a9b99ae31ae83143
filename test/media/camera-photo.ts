/** Pictures like a camera's for the tests and the bench (sharp; Node only). */
import sharp from 'sharp';

/**
 * A 4000×3000 camera-like JPEG: gradients, detail at several scales and per-channel grain, at a camera's quality
 * (95: about 5 MB; quality 100 with grain 48: about 12 MB, as a phone's full-quality photo), with EXIF.
 */
export async function cameraPhoto(seed: number, { quality = 95, grain = 25 } = {}): Promise<Uint8Array> {
  const [w, h] = [4000, 3000];
  const raw = Buffer.alloc(w * h * 3);
  let n = seed * 7919 + 1;
  for (let i = 0, y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      for (let c = 0; c < 3; c++, i++) {
        n = (n * 1103515245 + 12345) & 0x7fffffff;
        const base = c === 0 ? (x * 200) / w : c === 1 ? (y * 180) / h + 40 : ((x + y) * 120) / (w + h) + 90;
        // Detail at several scales (as leaves, water and stone have), then grain.
        const detail =
          30 * Math.sin(x / 37 + c) * Math.cos(y / 53) + 14 * Math.sin((x + 2 * y) / 7.3) + 8 * Math.sin(x * y * 1e-4);
        raw[i] = Math.max(0, Math.min(255, base + detail + ((n >> 16) % grain) - (grain >> 1)));
      }
  return new Uint8Array(
    await sharp(raw, { raw: { width: w, height: h, channels: 3 } })
      .withExifMerge({ IFD0: { Artist: 'Bench', Make: 'Camerafirm' }, IFD3: { GPSLatitudeRef: 'N' } })
      .jpeg({ quality })
      .toBuffer(),
  );
}

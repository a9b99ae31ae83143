/**
 * Small real pictures made with ImageMagick, cwebp and avifenc (40×30), for tests that run in Node and in Chromium.
 * Clean as an upload stores them (docs/design.md §23): the PNG's tIME and tEXt chunks were taken out.
 */
const b64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

export const PICTURES = {
  jpg: b64(
    '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAYEBQYFBAYGBQYHBwYIChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCUoKSj/2wBDAQcHBwoIChMKChMoGhYaKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCj/wAARCAAeACgDASIAAhEBAxEB/8QAFgABAQEAAAAAAAAAAAAAAAAAAAUH/8QAFxABAQEBAAAAAAAAAAAAAAAAABMBYf/EABYBAQEBAAAAAAAAAAAAAAAAAAAHAf/EABgRAAMBAQAAAAAAAAAAAAAAAAAVYQEC/9oADAMBAAIRAxEAPwDMrFk6xZqCFmdUo2LJ1iwggdUo2E6wIIHVJ1ulup1dK6tSPkkbnSjbpbqdXSuiPkOdKNuidXQR8hzp/9k=',
  ),
  png: b64(
    'iVBORw0KGgoAAAANSUhEUgAAACgAAAAeEAIAAACBLxfJAAAABGdBTUEAALGPC/xhBQAAACBjSFJNAAB6JgAAgIQAAPoAAACA6AAAdTAAAOpgAAA6mAAAF3CculE8AAAABmJLR0T///////8JWPfcAAAAc0lEQVRYw+2ZwQ3AIBDDjNQHzEK7/yBlF/qjW4CUxBPEOsmfK2thRZkd6jg9Yx/XvKFZCT/Q3tMzdgrbXdhN+LsTLWkMhVNpbfyEU2lxDIVTaW38hFNpcQyFU2lt/IRTaXEMhc0qXeqA2U/P2CgM4PRQ+wHBdDxl8XAutAAAAABJRU5ErkJggg==',
  ),
  gif: b64(
    'R0lGODlhKAAeAPQAAACAAAmEABKJABqNACOSACyWADWaAD6fAEajAE+nAFisAGGwAGq1AHK5AHu9AITCAI3GAJXKAJ7PAKfTALDYALncAMHgAMrlANPpANztAOXyAO32APb7AP//AAAAAAAAACH5BAAAAAAALAAAAAAoAB4AAAX+ICCOZGmeKBmsbOu+cNwKdG3feK7bQ+//wKBw+CMYj8ikcslEFp7QqHRKrUYN2Kx2y+16tYeweEwum89jhHrNbrvfcHZiTq/b7/h8XcHv+/+AgYJ+C4WGh4iJiouHDI6PkJGSk5SQDZeYmZqbnJ2ZDqChoqOkpaaiD6mqq6ytrq+rELKztLW2t7i0Ebu8vb6/wMG9EsTFxsfIycrGE83Oz9DR0tPPFNbX2Nna29zYFd/g4eLj5OXhFujp6uvs7e7qF/Hy8/T19vfzGPr7/P3+/wD5ZRhIsKDBgwgTFtTAsKHDhxAjSnS4oaLFixgzatx4kYPHjyBDihxJEmSHkygIU6pcybJlyhAAOw==',
  ),
  webp: b64(
    'UklGRo4AAABXRUJQVlA4IIIAAACQBQCdASooAB4APm0uk0Y1NKGhKrgMAqANiWgtgApmWB/HfkA5AIwC//7mYBXfcghdlajgAAD+8vY/l034SX9/+uXqeyj//v1d/S+4F7+6ENeSdeJDtZrNd43aFSpk3rSAW4f9o5+1/Ps10YHY0p7unk3VXopPntlyJG3jEgAAAAAA',
  ),
  avif: b64(
    'AAAAHGZ0eXBhdmlmAAAAAGF2aWZtaWYxbWlhZgAAAPJtZXRhAAAAAAAAAChoZGxyAAAAAAAAAABwaWN0AAAAAAAAAAAAAAAAbGliYXZpZgAAAAAOcGl0bQAAAAAAAQAAAB5pbG9jAAAAAEQAAAEAAQAAAAEAAAEWAAAAewAAAChpaW5mAAAAAAABAAAAGmluZmUCAAAAAAEAAGF2MDFDb2xvcgAAAABqaXBycAAAAEtpcGNvAAAAFGlzcGUAAAAAAAAAKAAAAB4AAAAQcGl4aQAAAAADDAwMAAAADGF2MUOBQGAAAAAAE2NvbHJuY2x4AAEADQAGgAAAABdpcG1hAAAAAAAAAAEAAQQBAoMEAAAAg21kYXQSAAoJWBUn6xoCGg0QMmwWQAkkkkQA6+UFNE2+nvBUXtfaEo2H+fxVdfe6PwQjZAlgtcPnX5wde1L92Ei44S+G3xH9pjG8W7z4Adpuvzwf8Nk8MxORO4o/IwHlPqOZAw0preqNatkuss9CQrIO5woNl94E5WBVpaVBjZA=',
  ),
};

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** One PNG chunk: length, type, data, CRC. */
export function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.byteLength);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.byteLength);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.byteLength, crc32(out.subarray(4, 8 + data.byteLength)));
  return out;
}

export const PNG_SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);

export function ihdr(width: number, height: number): Uint8Array {
  const d = new Uint8Array(13);
  const v = new DataView(d.buffer);
  v.setUint32(0, width);
  v.setUint32(4, height);
  d.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  return pngChunk('IHDR', d);
}

export const concatBytes = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
};

/**
 * A real RGB PNG of `width`×`height` whose pixels come from `seed` (distinct seeds, distinct pictures). Its
 * pixels are noise, stored without compression, so the file is about 3 × width × height bytes.
 */
export function makePng(width: number, height: number, seed = 1): Uint8Array {
  const row = 1 + width * 3;
  const raw = new Uint8Array(row * height);
  let x = seed >>> 0 || 1;
  for (let y = 0; y < height; y++) {
    raw[y * row] = 0; // filter: none
    for (let i = 1; i < row; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      raw[y * row + i] = x & 0xff;
    }
  }
  // zlib stream of stored (uncompressed) deflate blocks: no compressor needed, in Node or a browser.
  const blocks: Uint8Array[] = [Uint8Array.of(0x78, 0x01)];
  for (let at = 0; at < raw.byteLength || at === 0; at += 65_535) {
    const part = raw.subarray(at, at + 65_535);
    const last = at + 65_535 >= raw.byteLength ? 1 : 0;
    const head = Uint8Array.of(
      last,
      part.byteLength & 0xff,
      part.byteLength >>> 8,
      ~part.byteLength & 0xff,
      (~part.byteLength >>> 8) & 0xff,
    );
    blocks.push(head, part);
    if (last) break;
  }
  let a = 1;
  let b = 0;
  for (const byte of raw) {
    a = (a + byte) % 65_521;
    b = (b + a) % 65_521;
  }
  const adler = new Uint8Array(4);
  new DataView(adler.buffer).setUint32(0, ((b << 16) | a) >>> 0);
  blocks.push(adler);
  return concatBytes(
    PNG_SIGNATURE,
    ihdr(width, height),
    pngChunk('IDAT', concatBytes(...blocks)),
    pngChunk('IEND', new Uint8Array(0)),
  );
}

/** The lowercase hex SHA-256 of bytes (Web Crypto: Node and browsers). */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return Array.from(d, (x) => x.toString(16).padStart(2, '0')).join('');
}

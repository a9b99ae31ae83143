/** Base64 of bytes and back, without Node's Buffer (the io module bundles for browsers). */
const PIECE = 0x8000;

export function toBase64(bytes: Uint8Array): string {
  let bin = '';
  for (let at = 0; at < bytes.byteLength; at += PIECE) bin += String.fromCharCode(...bytes.subarray(at, at + PIECE));
  return btoa(bin);
}

/** Throws on text that is not base64. */
export function fromBase64(text: string): Uint8Array {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

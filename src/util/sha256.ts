/**
 * SHA-256 fed a piece at a time (media ids are the hash of the bytes, computed as they stream by). Node's own
 * hash where there is one (reached through `process.getBuiltinModule`, so bundles for browsers carry no Node
 * import), else @noble/hashes: Web Crypto has no incremental digest.
 */
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';

export interface Sha256 {
  update(bytes: Uint8Array): void;
  /** The lowercase hex digest (once). */
  hex(): string;
}

type NodeCrypto = { createHash(name: 'sha256'): { update(b: Uint8Array): unknown; digest(enc: 'hex'): string } };
const nodeCrypto = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined;

const hexOf = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

export function sha256(): Sha256 {
  if (nodeCrypto) {
    const h = nodeCrypto.createHash('sha256');
    return { update: (b) => void h.update(b), hex: () => h.digest('hex') };
  }
  const h = nobleSha256.create();
  return { update: (b) => void h.update(b), hex: () => hexOf(h.digest()) };
}

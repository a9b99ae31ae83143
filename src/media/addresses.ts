/**
 * Which network addresses an import may download from (docs/design.md §19): never loopback, private, link-local,
 * shared (CGNAT), multicast or reserved ranges, nor IPv6 forms that lead to them (mapped, NAT64, ULA), unless
 * the host is allowed. Checked on the address a connection actually goes to, at every hop of a redirect.
 */
import { v4, v6 } from '../util/addresses.js';

function privateV4([a, b]: number[]): boolean {
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b! >= 64 && b! <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b! >= 16 && b! <= 31) ||
    (a === 192 && (b === 168 || b === 0)) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a! >= 224
  );
}

/** Whether an IP address (v4 or v6 text) is one an import must not reach unless its host is allowed. */
export function isPrivateAddress(ip: string): boolean {
  const four = v4(ip);
  if (four) return privateV4(four);
  const g = v6(ip);
  if (!g) return true; // not an address we can judge: refuse
  const embedded = (hi: number, lo: number) => privateV4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0))
    return g[5] === 0 && g[6] === 0 && g[7]! <= 1 ? true : embedded(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b) return embedded(g[6]!, g[7]!); // NAT64
  return (g[0]! & 0xfe00) === 0xfc00 || (g[0]! & 0xffc0) === 0xfe80 || (g[0]! & 0xff00) === 0xff00;
}

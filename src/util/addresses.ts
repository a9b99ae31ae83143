/**
 * IP addresses as text and numbers: parsing (IPv4, IPv6 with an embedded IPv4 tail), the one form an address is
 * kept and compared in, and CIDR ranges. Used by an import's download checks and by who-is-asking (docs/design.md §25).
 */

/** The 4 numbers of an IPv4 address, or undefined. */
export function v4(ip: string): number[] | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.map(Number);
}

/** The 8 groups of an IPv6 address (with an embedded IPv4 tail expanded), or undefined. */
export function v6(ip: string): number[] | undefined {
  let text = ip
    .replace(/^\[|\]$/g, '')
    .split('%')[0]!
    .toLowerCase();
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const q = v4(tail[1]!);
    if (!q) return undefined;
    text = `${text.slice(0, -tail[1]!.length)}${((q[0]! << 8) | q[1]!).toString(16)}:${((q[2]! << 8) | q[3]!).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(':') : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - rest.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return undefined;
  const groups = [...head, ...Array(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined;
  return groups.map((g) => Number.parseInt(g, 16));
}

/** The form an address is kept and compared in: lower case, IPv4 mapped into IPv6 as plain IPv4, no zone. */
export function normalizeAddress(address: string): string {
  let a = address.trim().toLowerCase();
  if (a.startsWith('[') && a.includes(']')) a = a.slice(1, a.indexOf(']'));
  const zone = a.indexOf('%');
  if (zone >= 0) a = a.slice(0, zone);
  if (a.startsWith('::ffff:') && a.slice(7).includes('.')) a = a.slice(7);
  return a;
}

/** An address's bytes (4 for IPv4, 16 for IPv6), or undefined when it is not an address. */
export function addressBytes(address: string): number[] | undefined {
  const a = normalizeAddress(address);
  if (!a.includes(':')) return v4(a);
  return v6(a)?.flatMap((g) => [g >> 8, g & 255]);
}

/**
 * A test of membership in a list of addresses and CIDR ranges (`['10.0.0.0/8', '::1']`); TypeError naming
 * the first entry that is neither.
 */
export function rangeMatcher(entries: readonly string[]): (address: string) => boolean {
  const ranges = entries.map((entry) => {
    const [addr = '', prefix] = String(entry).split('/');
    const bytes = addressBytes(addr);
    const max = bytes ? bytes.length * 8 : 0;
    const bits = prefix === undefined ? max : /^\d+$/.test(prefix) ? Number(prefix) : -1;
    if (!bytes || bits < 0 || bits > max) throw new TypeError(`"${entry}" is not an address or a CIDR range`);
    return { bytes, bits };
  });
  return (address) => {
    const bytes = addressBytes(address);
    return bytes !== undefined && ranges.some((r) => inRange(bytes, r));
  };
}

function inRange(bytes: number[], r: { bytes: number[]; bits: number }): boolean {
  if (bytes.length !== r.bytes.length) return false;
  const whole = r.bits >> 3;
  for (let i = 0; i < whole; i++) if (bytes[i] !== r.bytes[i]) return false;
  const rest = r.bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (bytes[whole]! & mask) === (r.bytes[whole]! & mask);
}

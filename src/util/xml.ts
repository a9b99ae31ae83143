/** Writing XML: escaping, CDATA, and the characters XML 1.0 cannot hold. */

// Control characters other than tab, newline and carriage return, and lone surrogates, are not XML 1.0.
const INVALID =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export const clean = (s: string) => s.replace(INVALID, '');

export function esc(s: string): string {
  return clean(s)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

export function cdata(s: string): string {
  return `<![CDATA[${clean(s).replace(/]]>/g, ']]]]><![CDATA[>')}]]>`;
}

/** `2026-03-15 10:00:00`, WordPress's date form. */
export const wpDate = (iso: string | undefined) => (iso ? iso.slice(0, 19).replace('T', ' ') : '0000-00-00 00:00:00');

/** RFC 822 (RSS) date. */
export const rfc822 = (iso: string) => new Date(iso).toUTCString().replace('GMT', '+0000');

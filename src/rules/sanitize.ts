/**
 * Comment HTML is untrusted reader input. The sanitizer rebuilds it rather than filtering it: text is
 * escaped, and the only markup in the result is what this file writes — allowlisted tags with no attributes
 * but a link's href (http, https, mailto) and title, every link marked rel="nofollow" so comment spam earns
 * no ranking, tags balanced. Anything else is dropped (the text inside unknown tags stays; script, style and
 * embedded frames go with their content). Works without a DOM, in browsers and Node alike.
 */
const ALLOWED = new Set(['a', 'b', 'strong', 'i', 'em', 'u', 's', 'br', 'p', 'blockquote', 'code', 'pre', 'ul', 'ol', 'li']);

/** Elements dropped with everything inside them. */
// biome-ignore lint/correctness/noEmptyCharacterClassInRegex: [^] is any character, newlines included
const WITH_BODY = /<(script|style|iframe|object|template|textarea|noscript|xmp)\b[^]*?(?:<\/\1\s*>|$)/gi;

/** A comment (closed or not), a declaration or processing instruction, or a start or end tag with its attributes. */
// No `<` inside a tag outside quotes: a stray `<` ends the try, so every scan stays linear.
// biome-ignore lint/correctness/noEmptyCharacterClassInRegex: [^] is any character, newlines included
const MARKUP = /<!--[^]*?(?:-->|$)|<[!?][^<>]*>|<(\/?)([a-zA-Z][\w:-]*)((?:"[^"]*"|'[^']*'|[^"'<>])*)>/g;
const ATTRIBUTE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g;
const SAFE_SCHEMES = new Set(['http:', 'https:', 'mailto:']);
const ENTITIES: Record<string, string> = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>' };

const escapeText = (s: string) => s.replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeValue = (s: string) => escapeText(s.replace(/&/g, '&amp;').replace(/"/g, '&quot;'));

/** An attribute value as the browser reads it (character references decoded). */
const decode = (s: string) =>
  s.replace(/&(?:#x([0-9a-f]+)|#(\d+)|(amp|quot|apos|lt|gt));/gi, (_, hex?: string, dec?: string, name?: string) =>
    name ? ENTITIES[name.toLowerCase()]! : String.fromCodePoint(Math.min(hex ? Number.parseInt(hex, 16) : Number(dec), 0x10ffff)),
  );

/** The href as the URL parser serializes it (quotes, spaces and angle brackets percent-encoded), if its scheme is safe. */
function safeHref(value: string): string | undefined {
  try {
    const url = new URL(decode(value).trim());
    return SAFE_SCHEMES.has(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** The link's attributes as this sanitizer writes them: rel first, then a safe href and a title. */
function linkAttributes(source: string): string {
  let out = ' rel="nofollow"';
  for (const [, name, ...values] of source.matchAll(ATTRIBUTE)) {
    const value = values.find((v) => v !== undefined) ?? '';
    const key = name!.toLowerCase();
    const href = key === 'href' ? safeHref(value) : undefined;
    if (href) out += ` href="${escapeValue(href)}"`;
    else if (key === 'title') out += ` title="${escapeValue(decode(value))}"`;
  }
  return out;
}

export function sanitizeCommentHtml(html: string): string {
  const source = html.replace(WITH_BODY, '');
  const open: string[] = [];
  let out = '';
  let at = 0;
  for (const m of source.matchAll(MARKUP)) {
    out += escapeText(source.slice(at, m.index));
    at = m.index + m[0].length;
    const tag = m[2]?.toLowerCase();
    if (!tag || !ALLOWED.has(tag)) continue;
    if (!m[1]) {
      out += `<${tag}${tag === 'a' ? linkAttributes(m[3]!) : ''}>`;
      if (tag !== 'br') open.push(tag); // the one void element allowed
    } else if (open.includes(tag)) {
      // Close what was left open inside it first, so the result is well nested.
      while (open.length) {
        const last = open.pop()!;
        out += `</${last}>`;
        if (last === tag) break;
      }
    }
  }
  out += escapeText(source.slice(at));
  while (open.length) out += `</${open.pop()}>`;
  return out;
}

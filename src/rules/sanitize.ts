/**
 * Comment HTML is untrusted reader input, filtered by js-xss (the `xss` package: no DOM needed, so the same
 * rules hold in Node and in browsers) against this allowlist: a few text tags with no attributes, and links
 * with an http, https or mailto href and a title, each marked rel="nofollow" so comment spam earns no ranking.
 * Other tags go (their text stays; script, style and embedded frames go with their content), comments go,
 * text is escaped, and the tags left are balanced. The core loads this file on first use (src/resources/
 * comments.ts imports it dynamically), so browsers fetch it only when a comment is written.
 */
import xss from 'xss';

// js-xss is CommonJS and sets its helpers in a loop, which Node's ESM import cannot see as named exports: they
// are read off the module object (the default import in Node, bundlers and the CJS build alike).
const { escapeAttrValue, escapeHtml, FilterXSS, friendlyAttrValue, parseAttr } = xss as unknown as typeof import('xss');

const ALLOWED = ['a', 'b', 'strong', 'i', 'em', 'u', 's', 'br', 'p', 'blockquote', 'code', 'pre', 'ul', 'ol', 'li'];
/** Elements dropped with everything inside them, up to their end tag (or the end of the comment). */
const WITH_BODY = new Set(['script', 'style', 'iframe', 'object', 'template', 'textarea', 'noscript', 'xmp']);
const SAFE_SCHEMES = new Set(['http:', 'https:', 'mailto:']);
/** What HTML reads as a tag: `<` then a letter (or `/` and a letter). js-xss also takes `< b >` for one. */
const TAG = /^<\/?[a-z]/i;

/** A link's href as the URL parser serializes it (quotes, spaces and angle brackets percent-encoded), if its scheme is safe. */
function safeHref(value: string): string | undefined {
  try {
    const url = new URL(friendlyAttrValue(value));
    return SAFE_SCHEMES.has(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** A link's start tag: rel first, then a safe href and a title; every other attribute goes. */
function link(tag: string): string {
  // The attribute text as js-xss reads it: after the tag name, before `>` (and a self-closing `/`).
  const space = tag.search(/\s/);
  const source =
    space < 0
      ? ''
      : tag
          .slice(space + 1, -1)
          .trim()
          .replace(/\/$/, '');
  const attributes = parseAttr(source, (name, value) => {
    const href = name === 'href' ? safeHref(value) : undefined;
    if (href) return `href="${escapeAttrValue(href)}"`;
    if (name === 'title') return `title="${escapeAttrValue(friendlyAttrValue(value))}"`;
    return '';
  });
  return `<a rel="nofollow"${attributes ? ` ${attributes}` : ''}>`;
}

export function sanitizeCommentHtml(html: string): string {
  const open: string[] = [];
  let dropping: string | undefined;
  const filter = new FilterXSS({
    whiteList: Object.fromEntries(ALLOWED.map((tag) => [tag, []])),
    css: false,
    // Text between tags; none inside an element dropped with its body.
    escapeHtml: (text) => (dropping ? '' : escapeHtml(text)),
    onTag(tag, source, { isClosing, isWhite }) {
      if (dropping) {
        if (isClosing && tag === dropping) dropping = undefined;
        return '';
      }
      if (!TAG.test(source)) return escapeHtml(source);
      if (WITH_BODY.has(tag) && !isClosing) dropping = tag;
      if (!isWhite) return '';
      if (isClosing) {
        if (!open.includes(tag)) return '';
        // Close what was left open inside it first, so the result is well nested.
        let out = '';
        for (let last = open.pop(); ; last = open.pop()) {
          out += `</${last}>`;
          if (last === tag) return out;
        }
      }
      if (tag !== 'br') open.push(tag); // the one void element allowed
      return tag === 'a' ? link(source) : `<${tag}>`;
    },
  });
  let out = filter.process(html);
  while (open.length) out += `</${open.pop()}>`;
  return out;
}

import xssDefault from 'xss';

// xss is CommonJS: Node's ESM loader exposes only its default export, which holds the named ones.
const xss = xssDefault as unknown as typeof import('xss');

/** Elements dropped with everything inside them (browsers never show their content as text). */
const DROP_WITH_BODY = new Set(['script', 'style', 'iframe', 'object', 'embed', 'template', 'noscript', 'textarea', 'title', 'xmp', 'noembed', 'noframes']);

/**
 * The output ranges to cut for one `process` call (xss calls back synchronously, in order): from an opening
 * DROP_WITH_BODY tag to its closing tag, or to the end when it is never closed (as a browser would read it).
 * Nothing of the removed markup is left behind (xss's own stripIgnoreTagBody leaves "[removed]" text).
 */
let cutFrom = -1;
let cuts: Array<[number, number]> = [];

/**
 * Comment HTML is untrusted reader input: an allowlist of harmless tags, no attributes but a link's
 * href/title (http, https, mailto only), script-like elements dropped with their content, other tags
 * dropped keeping their text, and every link marked rel="nofollow" so comment spam earns no ranking.
 * Works without a DOM (browser and Node alike).
 */
const filter = new xss.FilterXSS({
  whiteList: {
    a: ['href', 'title'],
    b: [],
    strong: [],
    i: [],
    em: [],
    u: [],
    s: [],
    br: [],
    p: [],
    blockquote: [],
    code: [],
    pre: [],
    ul: [],
    ol: [],
    li: [],
  },
  onIgnoreTag(tag, _html, info) {
    // xss always passes the output position (its typings mark it optional).
    const at = info.position ?? 0;
    if (DROP_WITH_BODY.has(tag)) {
      if (!info.isClosing) {
        if (cutFrom < 0) cutFrom = at;
      } else if (cutFrom >= 0) {
        cuts.push([cutFrom, at]);
        cutFrom = -1;
      }
    }
    return '';
  },
  allowCommentTag: false,
  css: false,
  safeAttrValue(tag, name, value, cssFilter) {
    if (tag === 'a' && name === 'href' && !/^(https?:|mailto:)/i.test(value.trim())) return '';
    return xss.safeAttrValue(tag, name, value, cssFilter);
  },
});

export function sanitizeCommentHtml(html: string): string {
  cutFrom = -1;
  cuts = [];
  let out = filter.process(html);
  if (cutFrom >= 0) cuts.push([cutFrom, out.length]);
  if (cuts.length > 0) {
    let kept = '';
    let at = 0;
    for (const [from, to] of cuts) {
      kept += out.slice(at, from);
      at = to;
    }
    out = kept + out.slice(at);
  }
  return out.replace(/<a(?=[\s>])/gi, '<a rel="nofollow"');
}

import xssDefault from 'xss';

// xss is CommonJS: Node's ESM loader exposes only its default export, which holds the named ones.
const xss = xssDefault as unknown as typeof import('xss');

/**
 * Comment HTML is untrusted reader input: an allowlist of harmless tags, no attributes but a link's
 * href/title (http, https, mailto only), script and style dropped with their content, and every link
 * marked rel="nofollow" so comment spam earns no ranking. Works without a DOM (browser and Node alike).
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
  stripIgnoreTag: true,
  stripIgnoreTagBody: ['script', 'style', 'iframe', 'object', 'embed', 'template'],
  allowCommentTag: false,
  css: false,
  safeAttrValue(tag, name, value, cssFilter) {
    if (tag === 'a' && name === 'href' && !/^(https?:|mailto:)/i.test(value.trim())) return '';
    return xss.safeAttrValue(tag, name, value, cssFilter);
  },
});

export function sanitizeCommentHtml(html: string): string {
  return filter.process(html).replace(/<a(?=[\s>])/gi, '<a rel="nofollow"');
}

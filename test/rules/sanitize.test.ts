/**
 * Comment HTML against an HTML5 parser (parse5), for any input: random tag soup built from the pieces XSS
 * payloads are made of (script and event-handler markup, `javascript:` spelled with any case, character
 * reference, control character or whitespace trick, broken quotes and comments). Whatever goes in, what comes
 * out parses into allowlisted elements with no attribute but a link's rel="nofollow", title and an
 * http(s)/mailto href: so never a script element, an on* attribute or a `javascript:` url.
 */
import fc from 'fast-check';
import { parse, type DefaultTreeAdapterTypes as T } from 'parse5';
import { expect, it } from 'vitest';
import { sanitizeCommentHtml } from '../../src/rules/sanitize.js';
import { ALLOWED_TAGS, HOSTILE_COMMENTS } from '../support/comment-html.js';

const TAGS = [
  'script',
  'SCRIPT',
  'ScRiPt',
  'img',
  'svg',
  'math',
  'mi',
  'iframe',
  'object',
  'embed',
  'style',
  'textarea',
  'noscript',
  'template',
  'xmp',
];
const KEPT = ['a', 'A', 'b', 'p', 'i', 'em', 'br', 'li', 'ul', 'pre', 'code', 'blockquote'];
const ATTRIBUTES = [
  'onerror',
  'ONLOAD',
  'onmouseover',
  'href',
  'HREF',
  'src',
  'xlink:href',
  'formaction',
  'action',
  'title',
  'style',
  'rel',
  'srcdoc',
];
/** `javascript:` and friends as browsers still read them. */
const SCHEMES = [
  'javascript:',
  'JaVaScRiPt:',
  ' \t\njavascript:',
  '\x01javascript:',
  'java\tscript:',
  'java\nscript:',
  'java&Tab;script:',
  'java&NewLine;script:',
  'jav&#x61;script:',
  'jav&#97script:',
  '&#106;avascript:',
  '&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A',
  '&#0000106avascript:',
  'javascript&colon;',
  'javascript&#58;',
  'vbscript:',
  'data:text/html,',
  'https://ok.example/',
  'mailto:me@ok.example',
];
const PIECES = [
  '<',
  '</',
  '>',
  '/>',
  '/',
  '=',
  '"',
  "'",
  '`',
  ' ',
  '\t',
  '\n',
  '\0',
  '<!--',
  '-->',
  '--!>',
  '<![CDATA[',
  ']]>',
  '<?',
  '<!',
  '&lt;',
  '&gt;',
  '&amp;',
  '&quot;',
  '&#60;',
  '&#x3C;',
  'alert(1)',
  '//',
  ...TAGS,
  ...KEPT,
  ...ATTRIBUTES,
  ...SCHEMES,
];

const piece = fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 3 }));
/** Tag soup: pieces in any order. */
const soup = fc.array(piece, { maxLength: 40 }).map((parts) => parts.join(''));
/** Well-formed tags whose attributes carry the payloads, nested at random, with soup between. */
const attribute = fc
  .tuple(
    fc.constantFrom(...ATTRIBUTES),
    fc.constantFrom('"', "'", ''),
    fc.array(fc.oneof(fc.constantFrom(...SCHEMES, 'alert(1)', ' '), piece), { maxLength: 3 }),
  )
  .map(([name, quote, value]) => ` ${name}=${quote}${value.join('')}${quote}`);
const tag = fc
  .tuple(fc.constantFrom(...TAGS, ...KEPT), fc.array(attribute, { maxLength: 3 }), soup, fc.boolean())
  .map(([name, attributes, inner, closed]) => `<${name}${attributes.join('')}>${inner}${closed ? `</${name}>` : ''}`);
const markup = fc.array(fc.oneof(tag, soup), { minLength: 1, maxLength: 4 }).map((parts) => parts.join(''));

/** Attributes a browser reads as a URL. */
const URL_ATTRIBUTES = new Set([
  'href',
  'src',
  'action',
  'formaction',
  'xlink:href',
  'data',
  'poster',
  'background',
  'cite',
  'codebase',
  'lowsrc',
  'dynsrc',
]);

/** What an HTML5 parser makes of `html` in a page: every element in the comment's container, with its attributes. */
function elementsOf(html: string): T.Element[] {
  const doc = parse(`<!doctype html><html><head></head><body><div id="comment">${html}</div></body></html>`);
  const out: T.Element[] = [];
  const walk = (node: T.ParentNode) => {
    for (const child of node.childNodes) {
      if (!('tagName' in child)) continue;
      out.push(child);
      walk(child.tagName === 'template' ? (child as T.Template).content : child);
    }
  };
  walk(doc);
  // html, head, body and the container are the page's.
  return out.slice(4);
}

/** The problems a parsed comment has; none expected. */
function problems(html: string): string[] {
  const found: string[] = [];
  for (const el of elementsOf(html)) {
    if (el.tagName === 'script') found.push('a script element');
    if (!ALLOWED_TAGS.has(el.tagName.toUpperCase())) found.push(`<${el.tagName}>`);
    for (const { name, value } of el.attrs) {
      if (/^on/i.test(name)) found.push(`an event handler ${name}`);
      // As a browser resolves it: the URL parser drops surrounding controls and spaces, tabs and newlines inside.
      let protocol: string | undefined;
      try {
        protocol = new URL(value, 'https://page.example/').protocol;
      } catch {}
      if (URL_ATTRIBUTES.has(name) && protocol === 'javascript:') found.push(`a javascript: url in ${name}`);
      const allowed =
        el.tagName === 'a' &&
        ((name === 'rel' && value === 'nofollow') ||
          name === 'title' ||
          (name === 'href' && /^(https?|mailto):$/.test(protocol ?? '')));
      if (!allowed) found.push(`${el.tagName} ${name}="${value}"`);
    }
    if (el.tagName === 'a' && !el.attrs.some((a) => a.name === 'rel' && a.value === 'nofollow'))
      found.push('a link without rel=nofollow');
  }
  return found;
}

it('the check finds what it looks for', () => {
  expect(problems('<a href=" java&#x09;script:alert(1)" onclick=x>x</a><svg><script>1</script></svg>')).toEqual(
    expect.arrayContaining([
      'a script element',
      '<svg>',
      'an event handler onclick',
      'a javascript: url in href',
      'a link without rel=nofollow',
    ]),
  );
  expect(problems('<p>ok <a rel="nofollow" href="https://ok.example/" title="t">x</a></p>')).toEqual([]);
});

it('no hostile comment parses into a script, an event handler or a javascript: url', () => {
  for (const html of HOSTILE_COMMENTS) expect(problems(sanitizeCommentHtml(html)), html).toEqual([]);
});

it('no sanitized tag soup parses into a script, an event handler or a javascript: url', () => {
  fc.assert(
    fc.property(fc.oneof(soup, markup), (html) => {
      expect(problems(sanitizeCommentHtml(html))).toEqual([]);
    }),
    { numRuns: 2000 },
  );
});

it('keeps safe links as links, rel="nofollow" first', () => {
  fc.assert(
    fc.property(fc.webUrl(), fc.string({ maxLength: 20 }), (url, text) => {
      const out = sanitizeCommentHtml(`<a href="${url.replace(/"/g, '&quot;')}">${text.replace(/[<>&]/g, '')}</a>`);
      const [a, ...rest] = elementsOf(out);
      expect(rest).toEqual([]);
      expect(a?.attrs).toEqual([
        { name: 'rel', value: 'nofollow' },
        { name: 'href', value: new URL(url).href },
      ]);
    }),
    { numRuns: 300 },
  );
});

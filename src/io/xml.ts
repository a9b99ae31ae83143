/**
 * Streaming XML for the importers: saxes (strict, namespace-aware) turns the text into the small trees of
 * one record each (an RSS `item`, an Atom `entry`, a channel's header fields), handed on as they close, so
 * memory follows the largest record, never the file. DTDs are refused outright: no entity expansion (billion
 * laughs), no external entities (XXE).
 */
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { BlogError } from '../util/errors.js';

/** One element: `name` is `family:local` (`wp:post_id`, `atom:entry`, `:item` without a namespace). */
export interface El {
  name: string;
  attrs: Record<string, string>;
  children: El[];
  text: string;
}

/** Namespace URIs by the short family name the importers use; http/https, versions and trailing `/`/`#` ignored. */
const FAMILIES: Array<[RegExp, string]> = [
  [/^w3\.org\/2005\/atom$/, 'atom'],
  [/^wordpress\.org\/export\/[\d.]+\/excerpt$/, 'excerpt'],
  [/^wordpress\.org\/export\/[\d.]+$/, 'wp'],
  [/^purl\.org\/rss\/1\.0\/modules\/content$/, 'content'],
  [/^purl\.org\/dc\/elements\/1\.1$/, 'dc'],
  [/^wellformedweb\.org\/commentapi$/, 'wfw'],
  [/^(purl\.org\/atom\/app|w3\.org\/2007\/app)$/, 'app'],
  [/^purl\.org\/syndication\/thread\/1\.0$/, 'thr'],
  [/^schemas\.google\.com\/blogger\/2018$/, 'blogger'],
  [/^schemas\.google\.com\/g\/2005$/, 'gd'],
  [/^undeclared:(.*)$/, '$1'],
];

const familyCache = new Map<string, string>();
export function family(uri: string): string {
  let hit = familyCache.get(uri);
  if (hit !== undefined) return hit;
  const bare = uri
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\/(www\.)?/, '')
    .replace(/[/#]+$/, '');
  hit = uri;
  for (const [re, name] of FAMILIES) {
    if (re.test(bare)) {
      hit = bare.replace(re, name);
      break;
    }
  }
  if (familyCache.size < 100) familyCache.set(uri, hit);
  return hit;
}

/** Largest text one record may hold (a post's content is at most 1M characters; some headroom for markup). */
const RECORD_TEXT_LIMIT = 4_000_000;

export const parseError = (message: string) =>
  new BlogError({ code: 400, reason: 'parseError', message, location: 'source', locationType: 'body' });

/** Marks a record whose text passed RECORD_TEXT_LIMIT: it is skipped with that reason. */
export const TOO_LARGE = Symbol('tooLarge');

/**
 * The document's root name first, then every record tree: children of the Atom `feed`, or children of the RSS
 * `channel`. Malformed or truncated XML throws a `parseError` after the records read before it.
 */
export async function* xmlRecords(chunks: AsyncIterable<string>): AsyncGenerator<El | { root: string }> {
  const parser = new SaxesParser({
    xmlns: true,
    // Real exports use prefixes they never declare (wp:, dc:, content:…); they are read as their family.
    resolvePrefix: (prefix: string) => `undeclared:${prefix}`,
  });
  const out: Array<El | { root: string }> = [];
  const stack: El[] = [];
  let recordDepth = 0;
  let depth = 0;
  let size = 0;
  let failure: Error | undefined;

  parser.on('doctype', () => {
    throw parseError(
      'The file has a DOCTYPE: DTDs and entity declarations are refused (they enable entity expansion and external entity attacks)',
    );
  });
  parser.on('error', (e) => {
    throw parseError(`Malformed XML: ${e.message}`);
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    depth++;
    const name = `${family(tag.uri)}:${tag.local}`;
    if (depth === 1) {
      recordDepth = name === 'atom:feed' ? 2 : name === ':rss' ? 3 : 0;
      out.push({ root: name });
      return;
    }
    if (recordDepth === 0 || depth < recordDepth) return;
    const attrs: Record<string, string> = {};
    for (const a of Object.values(tag.attributes)) {
      if (a.prefix === 'xmlns' || a.name === 'xmlns') continue;
      attrs[a.prefix && a.prefix !== 'xml' ? `${family(a.uri)}:${a.local}` : a.local] = a.value;
    }
    const el: El = { name, attrs, children: [], text: '' };
    if (depth === recordDepth) size = 0;
    else stack[stack.length - 1]!.children.push(el);
    stack.push(el);
  });
  const onText = (t: string) => {
    const el = stack[stack.length - 1];
    if (!el) return;
    size += t.length;
    if (size > RECORD_TEXT_LIMIT) (stack[0] as El & { [TOO_LARGE]?: true })[TOO_LARGE] = true;
    else el.text += t;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', () => {
    if (recordDepth && depth >= recordDepth) {
      const el = stack.pop()!;
      if (depth === recordDepth) out.push(el);
    }
    depth--;
  });

  try {
    for await (const chunk of chunks) {
      parser.write(chunk);
      if (out.length) yield* out.splice(0);
    }
  } catch (error) {
    failure = error as Error;
  }
  if (!failure) {
    try {
      parser.close();
    } catch (error) {
      failure = parseError(
        `The file is truncated: it ends before its elements close (${(error as Error).message.replace(/^Malformed XML: /, '')})`,
      );
    }
  }
  if (out.length) yield* out.splice(0);
  if (failure) {
    if (BlogError.is(failure)) throw failure;
    throw parseError(`Malformed XML: ${failure.message}`);
  }
}

/** Helpers to read a record tree. */
export const child = (el: El, name: string) => el.children.find((c) => c.name === name);
export const children = (el: El, name: string) => el.children.filter((c) => c.name === name);
export const textOf = (el: El, name: string) => child(el, name)?.text.trim() ?? '';
/** Raw text (untrimmed): content bodies keep their whitespace. */
export const rawOf = (el: El, name: string) => child(el, name)?.text ?? '';

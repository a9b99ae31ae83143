/** Text rules shared by search, slugs and images: one place, so every driver and every reader agree. */

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** The visible text of an HTML fragment: tags dropped, common entities decoded. */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] === '#') {
        const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ' ';
      }
      return ENTITIES[e.toLowerCase()] ?? m;
    });
}

/** Lower-case, accents removed: "Élan" and "elan" are the same word. */
export function fold(text: string): string {
  // Most text is plain ASCII, where decomposing accents is a (costly) no-op.
  return /^[\x00-\x7f]*$/.test(text)
    ? text.toLowerCase()
    : text
        .normalize('NFKD')
        .replace(/\p{M}+/gu, '')
        .toLowerCase();
}

/** The words of a text, in order, folded. A word is a run of letters and digits. */
export function words(text: string): string[] {
  const folded = fold(text);
  return (/^[\x00-\x7f]*$/.test(folded) ? folded.match(/[a-z0-9]+/g) : folded.match(/[\p{L}\p{N}]+/gu)) ?? [];
}

/** Everything a post's search matches on, as word sequences (phrases never span two fields or labels). */
export function postWordFields(post: { title: string; content: string; labels: readonly string[] }): string[][] {
  return [words(post.title), words(htmlToText(post.content)), ...post.labels.map(words)];
}

/** Distinct words of the fields: what a driver indexes. */
export function distinctWords(fields: readonly string[][]): string[] {
  // (A loop into one Set: `flat()` first copies every word of a post into a new array.)
  const seen = new Set<string>();
  for (const field of fields) for (const word of field) seen.add(word);
  return [...seen];
}

export interface ParsedQuery {
  /** Every word that must occur (phrase words included). */
  words: string[];
  /** Phrases of two or more words that must occur adjacent, in order. */
  phrases: string[][];
}

/** `q` as people type it: words, and "quoted phrases". Other punctuation separates words. */
export function parseQuery(q: string): ParsedQuery {
  const phrases: string[][] = [];
  const all: string[] = [];
  const re = /"([^"]*)"?|([^"]+)/g;
  for (let m = re.exec(q); m; m = re.exec(q)) {
    const ws = words(m[1] ?? m[2] ?? '');
    all.push(...ws);
    if (m[1] !== undefined && ws.length > 1) phrases.push(ws);
  }
  return { words: [...new Set(all)], phrases };
}

/** Whether the phrase occurs as adjacent words in one of the fields. */
export function hasPhrase(fields: readonly string[][], phrase: readonly string[]): boolean {
  // Words never hold a space, so a phrase occurs where its text does, between spaces.
  const text = ` ${phrase.join(' ')} `;
  return fields.some((f) => ` ${f.join(' ')} `.includes(text));
}

/** The slug of a title: lower-case ASCII words joined by "-", about 40 characters at most. */
export function slugify(title: string, fallback: string): string {
  const parts = fold(title).match(/[a-z0-9]+/g) ?? [];
  let slug = '';
  for (const p of parts) {
    const next = slug ? `${slug}-${p}` : p;
    if (next.length > 40) {
      if (!slug) slug = p.slice(0, 40);
      break;
    }
    slug = next;
  }
  return slug || fallback;
}

/** The `src` of every <img> in the content, in order. */
export function imagesOf(html: string): Array<{ url: string }> {
  const out: Array<{ url: string }> = [];
  const re = /<img\b[^>]*?\ssrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi;
  for (let m = re.exec(html); m; m = re.exec(html)) out.push({ url: m[1] ?? m[2] ?? m[3] ?? '' });
  return out;
}

/**
 * Escaped-by-default HTML for themes: `html` is a tagged template whose interpolations are escaped unless they
 * are `Html` already (another `html` result, or `raw(...)` for markup the caller trusts, such as a post's own
 * content). Arrays are joined, `null`/`undefined`/`false` leave nothing.
 */

/** Markup that is safe to place as it is. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for an HTML text node or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return /[&<>"']/.test(text) ? text.replace(/[&<>"']/g, (c) => ESCAPES[c]!) : text;
}

/** Markup to place unescaped: only for HTML you trust (a post's content as its author wrote it). */
export const raw = (markup: string): Html => new Html(markup);

/** What a template may interpolate. */
export type Interpolation = Html | string | number | boolean | null | undefined | readonly Interpolation[];

function piece(value: Interpolation): string {
  if (value instanceof Html) return value.value;
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(piece).join('');
  return escapeHtml(String(value));
}

/** The tagged template: html`<h1>${title}</h1>` escapes `title`; an `Html` value goes in as it is. */
export function html(strings: TemplateStringsArray, ...values: readonly Interpolation[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += piece(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** A theme function's answer as markup: an `Html`, or a string the theme built itself (taken as HTML). */
export const markup = (value: Html | string): string => (value instanceof Html ? value.value : value);

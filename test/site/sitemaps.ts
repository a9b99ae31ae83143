/**
 * Sitemap checks for the tests: a `urlset` is validated against the sitemaps.org schema (the XSD the `sitemap`
 * package ships) with xmllint (libxml2 compiled to WebAssembly); a sitemap index is read by the `sitemap`
 * package's index parser with errors thrown, and its shape checked against the protocol.
 */
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { ErrorLevel, XMLToSitemapIndexStream } from 'sitemap';
import { validateXML } from 'xmllint-wasm';

const XSD = readFileSync(
  fileURLToPath(new URL('../../node_modules/sitemap/schema/sitemap.xsd', import.meta.url)),
  'utf8',
);

const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));

/** A urlset's `loc`s, after checking it against the sitemaps.org schema (throws with xmllint's report). */
export async function validUrlset(xml: string): Promise<string[]> {
  const result = await validateXML({
    xml: [{ fileName: 'sitemap.xml', contents: xml }],
    schema: [{ fileName: 'sitemap.xsd', contents: XSD }],
  });
  if (!result.valid) throw new Error(`sitemap does not validate:\n${result.rawOutput}`);
  return locs(xml);
}

/** A sitemap index's `loc`s, read by the sitemap package's parser with every error thrown. */
export async function validIndex(xml: string): Promise<string[]> {
  if (
    !/^<\?xml version="1.0" encoding="UTF-8"\?>\s*<sitemapindex xmlns="http:\/\/www\.sitemaps\.org\/schemas\/sitemap\/0\.9">/.test(
      xml,
    )
  ) {
    throw new Error('not a sitemaps.org 0.9 sitemap index');
  }
  const items: Array<{ url: string }> = [];
  await new Promise<void>((resolve, reject) => {
    Readable.from([xml])
      .pipe(new XMLToSitemapIndexStream({ level: ErrorLevel.THROW, logger: false }))
      .on('data', (item: { url: string }) => items.push(item))
      .on('error', reject)
      .on('end', () => resolve());
  });
  const expected = locs(xml);
  if (items.length === 0 || items.length > 50_000 || items.map((i) => i.url).join('\n') !== expected.join('\n'))
    throw new Error('the sitemap index does not read back');
  return expected;
}

export const isIndex = (xml: string) => /<sitemapindex\b/.test(xml);

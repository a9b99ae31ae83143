/**
 * Facts the docs state about the code, checked against the code: the options table of docs/api.md against
 * `BlogServiceOptions`, the first-download figure against the CI budget (its one source), the drivers README
 * names, and an install line for every package a docs/http.md host imports.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { expect, test } from 'vitest';
import { BUNDLES } from '../bench/bundle-size.js';
import { blocksOf, markdownFiles, ROOT } from './snippets.js';

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** The properties of an exported interface of a source file, inherited ones included. */
function propertiesOf(file: string, name: string): string[] {
  const program = ts.createProgram([join(ROOT, file)], { strict: true, noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(join(ROOT, file))!;
  const symbol = checker.getExportsOfModule(checker.getSymbolAtLocation(source)!).find((s) => s.name === name)!;
  return checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol)).map((p) => p.name);
}

test("docs/api.md's options table lists exactly the options of createBlogService (BlogServiceOptions)", () => {
  const options = propertiesOf('src/service/types.ts', 'BlogServiceOptions').sort();
  const text = read('docs/api.md');
  const table = text.slice(text.indexOf('| option | meaning |'));
  const rows = [...table.slice(0, table.indexOf('\n\n')).matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]!).sort();
  expect(rows).toEqual(options);
});

test('the first-download figure the docs quote is the CI budget (test/bundle/budget.test.ts), its one source', () => {
  const budgets = new Set<number>(BUNDLES.map((b) => b.budgetKb));
  const quoted = markdownFiles()
    // benchmarks.md reports measurements beside the budget; design.md is the record of past ones.
    .filter((f) => f !== 'docs/benchmarks.md' && f !== 'docs/design.md')
    .flatMap((file) =>
      [...read(file).matchAll(/(?:download|downloads)[^.]*?([\d.]+) KB/gi)].map((m) => ({ file, kb: Number(m[1]) })),
    );
  expect(quoted.length).toBeGreaterThan(0);
  for (const q of quoted) expect(budgets.has(q.kb), `${q.file}: ${q.kb} KB`).toBe(true);
  // benchmarks.md's table names the same budgets.
  for (const b of budgets) expect(read('docs/benchmarks.md')).toContain(`≤ ${b} KB`);
});

test("README's documentation list names every driver docs/drivers.md covers", () => {
  const line = read('README.md')
    .split('\n')
    .find((l) => l.includes('(docs/drivers.md)'))!;
  for (const driver of ['memory', 'SQLite', 'IndexedDB', 'PostgreSQL']) expect(line).toContain(driver);
});

test('docs/http.md: every package a host example imports has an npm install line before it', () => {
  const blocks = blocksOf('docs/http.md');
  const installed = new Set<string>();
  for (const b of blocks) {
    if (b.lang === 'sh')
      for (const m of b.code.matchAll(/^npm install (.+)$/gm)) for (const p of m[1]!.split(/\s+/)) installed.add(p);
    if (b.lang !== 'ts') continue;
    for (const m of b.code.matchAll(/from '([^']+)'/g)) {
      const spec = m[1]!;
      if (spec.startsWith('node:') || spec.startsWith('.') || spec === 'blogcore' || spec.startsWith('blogcore/'))
        continue;
      const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
      expect(installed.has(pkg), `docs/http.md:${b.line} imports ${pkg}`).toBe(true);
    }
  }
});

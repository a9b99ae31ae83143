/**
 * The published types tell the truth (docs/design.md §12): for every entry of package.json `exports`, the values its `.d.ts`
 * declares (read with the TypeScript compiler) are exactly the keys of the module Node loads, as ESM (`import`)
 * and as CJS (`require`). A name declared but missing at run time type-checks in an app, then Node throws
 * "does not provide an export named …"; a value at run time but undeclared is one the app cannot see. And no
 * `.d.ts` an entry reaches names a validator library (zod), except `blogcore/schema`, whose purpose is to hand out
 * the zod schemas themselves (docs/design.md, "validation").
 *
 * It reads the build CI made (`.ci/run` builds before `npm test`); when dist/ is missing or older than a source
 * (a fresh checkout's plain `npm test`, an edit since the last build), it builds its own copy under test-output/
 * rather than rebuilding dist/ under the feet of the other test files that run it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../http/spawn.js';

interface Conditions {
  import: { types: string; default: string };
  require: { types: string; default: string };
}
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, Conditions | string>;
};
const ENTRIES = Object.entries(pkg.exports).filter((e): e is [string, Conditions] => typeof e[1] !== 'string');
/** The one entry whose declarations are zod's on purpose: it exports the schemas the service checks with. */
const SCHEMAS_ENTRY = './schema';
const FORMATS = ['import', 'require'] as const;

/** dist/ when it is current, else a build of this checkout in test-output/ (made here when needed). */
let out: string;
/** Every entry's declaration files (ESM and CJS), compiled once. */
let program: ts.Program;
let checker: ts.TypeChecker;

beforeAll(async () => {
  const script = pathToFileURL(join(ROOT, 'scripts/build-if-stale.mjs')).href;
  const { stale } = (await import(script)) as { stale(outDir?: string): boolean };
  out = join(ROOT, 'dist');
  if (!stale(out)) return;
  out = join(ROOT, 'test-output', 'exports-build', 'dist');
  if (!stale(out)) return;
  execFileSync(process.execPath, [join(ROOT, 'node_modules/tsup/dist/cli-default.js'), '--silent', '--out-dir', out], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}, 900_000);

beforeAll(() => {
  const files = ENTRIES.flatMap(([, c]) => FORMATS.map((f) => built(c[f].types)));
  program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  });
  checker = program.getTypeChecker();
}, 300_000);

/** The module symbol of a declaration file. */
const moduleOf = (file: string) => {
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`${file} is missing`);
  return checker.getSymbolAtLocation(source)!;
};

/** The built file a package.json path (`./dist/…`) names, in the build under test. */
const built = (path: string) => join(out, path.replace(/^\.\/dist\//, ''));

/**
 * The names each declaration file exports as values (a class, a function, a const; not an interface or a type
 * alias), re-exports followed to their declarations. A re-export marked `type` is not a value.
 */
function declaredValues(files: string[]): Map<string, string[]> {
  const isTypeOnly = (symbol: ts.Symbol) =>
    (symbol.declarations ?? []).some(
      (d) =>
        (ts.isExportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly)) || ts.isTypeOnlyImportDeclaration(d),
    );
  const result = new Map<string, string[]>();
  for (const file of files) {
    const names: string[] = [];
    for (const symbol of checker.getExportsOfModule(moduleOf(file))) {
      // Down the chain of re-exports to the declaration; any link marked `type` makes it a type.
      let target: ts.Symbol | undefined = symbol;
      let typeOnly = false;
      while (target && !(typeOnly = isTypeOnly(target)) && target.flags & ts.SymbolFlags.Alias)
        target = checker.getImmediateAliasedSymbol(target);
      if (target && !typeOnly && target.flags & ts.SymbolFlags.Value) names.push(symbol.name);
    }
    result.set(file, names.sort());
  }
  return result;
}

/** The keys of each entry as Node loads it, asked of a plain Node process (no test runner's module loader between). */
function runtimeKeys(): Record<string, string[]> {
  const files = ENTRIES.flatMap(([, c]) => FORMATS.map((f) => built(c[f].default)));
  const program = `
    const { createRequire } = require('node:module');
    const { pathToFileURL } = require('node:url');
    (async () => {
      const out = {};
      for (const file of ${JSON.stringify(files)}) {
        const loaded = file.endsWith('.cjs') ? createRequire(file)(file) : await import(pathToFileURL(file).href);
        out[file] = Object.keys(loaded).filter((k) => k !== '__esModule').sort();
      }
      process.stdout.write(JSON.stringify(out));
    })();`;
  const run = spawnSync(process.execPath, ['-e', program], { cwd: ROOT, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`loading the entries failed:\n${run.stderr}`);
  return JSON.parse(run.stdout) as Record<string, string[]>;
}

/** Every declaration file `file` reaches through relative imports and re-exports (the chunks tsup shares). */
function reachable(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(/(?:from|import)\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const next = resolve(dirname(file), m[1]!).replace(/\.(c?)js$/, '.d.$1ts');
    if (existsSync(next)) reachable(next, seen);
  }
  return seen;
}

describe('every entry of package.json exports', () => {
  it('declares in its .d.ts exactly the values Node gives at run time (ESM and CJS)', () => {
    expect(ENTRIES.length).toBeGreaterThanOrEqual(11);
    const typeFiles = ENTRIES.flatMap(([, c]) => FORMATS.map((f) => built(c[f].types)));
    const declared = declaredValues(typeFiles);
    const runtime = runtimeKeys();
    const mismatches: string[] = [];
    let compared = 0;
    for (const [subpath, conditions] of ENTRIES) {
      for (const format of FORMATS) {
        const types = declared.get(built(conditions[format].types))!;
        const keys = runtime[built(conditions[format].default)]!;
        expect(keys.length, `${subpath} (${format}) has no exports at all`).toBeGreaterThan(0);
        const lies = types.filter((n) => !keys.includes(n));
        const hidden = keys.filter((n) => !types.includes(n));
        if (lies.length) mismatches.push(`${subpath} (${format}): declared, absent at run time: ${lies.join(', ')}`);
        if (hidden.length) mismatches.push(`${subpath} (${format}): at run time, undeclared: ${hidden.join(', ')}`);
        compared += types.length;
      }
    }
    expect(mismatches).toEqual([]);
    expect(compared).toBeGreaterThan(60);
  }, 300_000);

  it('documents every value it exports (factories, constants and limits) in its .d.ts', () => {
    const documented = (d: ts.Declaration) =>
      ts.getJSDocCommentsAndTags(ts.isVariableDeclaration(d) ? d.parent.parent : d).length > 0;
    const undocumented: string[] = [];
    let values = 0;
    for (const [subpath, conditions] of ENTRIES) {
      for (const symbol of checker.getExportsOfModule(moduleOf(built(conditions.import.types)))) {
        const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
        if (!(target.flags & ts.SymbolFlags.Value)) continue;
        values++;
        if (!(target.declarations ?? []).some(documented)) undocumented.push(`${subpath}: ${symbol.name}`);
      }
    }
    expect(values).toBeGreaterThan(40);
    expect(undocumented).toEqual([]);
  }, 120_000);

  it('reaches no .d.ts that names zod (blogcore/schema aside: it exports the zod schemas)', () => {
    const offending: string[] = [];
    let files = 0;
    for (const [subpath, conditions] of ENTRIES) {
      if (subpath === SCHEMAS_ENTRY) continue;
      for (const format of FORMATS) {
        for (const file of reachable(built(conditions[format].types))) {
          files++;
          if (/['"]zod(?:\/[^'"]*)?['"]|\bzod_/.test(readFileSync(file, 'utf8')))
            offending.push(`${subpath} (${format}) reaches ${file.slice(out.length + 1)}`);
        }
      }
    }
    expect(files).toBeGreaterThan(ENTRIES.length * 2);
    expect(offending).toEqual([]);
  });
});

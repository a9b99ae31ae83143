/** Bundles source for the browser platform (as an app's bundler would) and answers what it pulled in. */
import { relative } from 'node:path';
import { build } from 'esbuild';
import { root } from './serve.js';

/** Node built-ins, by either name: none may reach a browser bundle. */
export const NODE_BUILTIN = /^node:|^(fs|path|os|crypto|url|http|stream|buffer|util|string_decoder|events)$/;

export async function browserBundleInputs(contents: string): Promise<{ errors: unknown[]; inputs: string[] }> {
  const result = await build({
    stdin: { contents, resolveDir: root, loader: 'ts' },
    absWorkingDir: root,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  return { errors: result.errors, inputs: Object.keys(result.metafile.inputs) };
}

/** One output file of a split bundle. */
export interface Chunk {
  path: string;
  code: Uint8Array;
  /** Source files with code in this chunk (paths relative to the repository), with their minified bytes here. */
  inputs: Record<string, number>;
  /** The module a dynamic `import()` loads through this chunk, if it is such a chunk. */
  loads?: string;
  imports: string[];
  dynamicImports: string[];
}

/**
 * Bundles `contents` (an app's entry) for the browser with code splitting, minified, as an app's bundler
 * does: the entry chunk and the chunks it imports statically are the first download; chunks reached only
 * through `import()` are fetched when that code first runs.
 */
export async function splitBrowserBundle(contents: string): Promise<{ first: Chunk[]; lazy: Chunk[] }> {
  const result = await build({
    stdin: { contents, resolveDir: root, sourcefile: 'app-entry.ts', loader: 'ts' },
    absWorkingDir: root,
    bundle: true,
    splitting: true,
    outdir: 'out',
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = new Map(result.outputFiles.map((f) => [relative(root, f.path), f.contents]));
  const chunks = new Map<string, Chunk>();
  for (const [path, out] of Object.entries(result.metafile.outputs)) {
    chunks.set(path, {
      path,
      code: code.get(path)!,
      inputs: Object.fromEntries(Object.entries(out.inputs).map(([path, i]) => [path, i.bytesInOutput])),
      ...(out.entryPoint && out.entryPoint !== 'app-entry.ts' ? { loads: out.entryPoint } : {}),
      imports: out.imports.filter((i) => i.kind === 'import-statement').map((i) => i.path),
      dynamicImports: out.imports.filter((i) => i.kind === 'dynamic-import').map((i) => i.path),
    });
  }
  const entry = Object.entries(result.metafile.outputs).find(([, out]) => out.entryPoint === 'app-entry.ts')![0];
  const first = new Set<string>();
  const visit = (path: string) => {
    if (first.has(path)) return;
    first.add(path);
    for (const next of chunks.get(path)!.imports) visit(next);
  };
  visit(entry);
  return { first: [...first].map((p) => chunks.get(p)!), lazy: [...chunks.values()].filter((c) => !first.has(c.path)) };
}

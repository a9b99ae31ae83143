/** Bundles source for the browser platform (as an app's bundler would) and answers the inputs it pulled in. */
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

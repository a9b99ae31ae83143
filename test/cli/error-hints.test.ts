// Mistakes a newcomer makes get an error that says what to do, and doing what it says works.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { createBlogService } from '../../src/index.js';
import { idbDriver } from '../../drivers/idb/index.js';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { ROOT, requireBuild } from '../http/spawn.js';

const out = join(ROOT, 'test-output', `hints-${process.pid}`);
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('error hints', () => {
  it('idbDriver in Node without IndexedDB names the import to add', async () => {
    expect((globalThis as { indexedDB?: unknown }).indexedDB).toBeUndefined();
    expect(() => idbDriver()).toThrow("In Node, add import 'fake-indexeddb/auto'");
    // What it says works.
    const auto = 'fake-indexeddb/auto'; // (its types do not resolve through its exports map)
    await import(auto);
    const service = createBlogService({ driver: idbDriver({ name: `hints-${process.pid}` }) });
    expect((await service.users.insert({ body: { displayName: 'Ada' } })).displayName).toBe('Ada');
    await service.close();
  });

  it('sqliteDriver given a file name says it takes { filename }', async () => {
    expect(() => sqliteDriver('blog.db' as never)).toThrow(
      'sqliteDriver takes an options object: sqliteDriver({ filename: "blog.db" })',
    );
    const service = createBlogService({ driver: sqliteDriver({ filename: ':memory:' }) });
    await expect(service.ready()).resolves.toBeUndefined();
    await service.close();
  });

  it('a bundled server that cannot load better-sqlite3 is told to mark it external (and marked external, it works)', async () => {
    requireBuild();
    mkdirSync(out, { recursive: true });
    const contents = `
      const { createBlogService } = require(${JSON.stringify(join(ROOT, 'dist/index.cjs'))});
      const { sqliteDriver } = require(${JSON.stringify(join(ROOT, 'dist/sqlite.cjs'))});
      createBlogService({ driver: sqliteDriver({ filename: ':memory:' }) }).ready().then(
        () => console.log('opened'),
        (error) => { console.error(error.message); process.exit(1); },
      );`;
    const bundle = async (name: string, external: string[]) => {
      const outfile = join(out, name);
      await build({
        stdin: { contents, resolveDir: ROOT },
        bundle: true,
        platform: 'node',
        format: 'cjs',
        outfile,
        external,
        logLevel: 'silent',
      });
      return spawnSync(process.execPath, [outfile], { encoding: 'utf8' });
    };
    const inlined = await bundle('inlined.cjs', []);
    expect(inlined.status).toBe(1);
    expect(inlined.stderr).toContain('If you bundle your server, keep better-sqlite3 out of the bundle');
    expect(inlined.stderr).toContain('--external:better-sqlite3');
    expect(inlined.stderr).toContain("externals: { 'better-sqlite3': 'commonjs better-sqlite3' }");
    expect(inlined.stderr).toContain("ssr.external: ['better-sqlite3']");
    const external = await bundle('external.cjs', ['better-sqlite3']);
    expect(external.stderr).toBe('');
    expect(external.stdout.trim()).toBe('opened');
  });
});

/**
 * What an installer of the published package gets: no install-time script to approve (npm 11 warns about each),
 * and source maps that point at src/ without carrying its text (docs/design.md §24).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { ROOT } from '../docs/snippets.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

test('the package runs no script when installed (npm warns installers about preinstall/install/postinstall/prepare)', () => {
  for (const name of ['preinstall', 'install', 'postinstall', 'prepare'])
    expect(pkg.scripts[name], name).toBeUndefined();
  // A git install and `npm pack` still build dist/ first.
  expect(pkg.scripts.prepack).toContain('build-if-stale');
});

test('source maps name src/ files and lines but ship no sourcesContent', () => {
  const maps = readdirSync(join(ROOT, 'dist')).filter((f) => f.endsWith('.map'));
  expect(maps.length).toBeGreaterThan(10);
  for (const file of maps) {
    const map = JSON.parse(readFileSync(join(ROOT, 'dist', file), 'utf8')) as {
      sources: string[];
      sourcesContent?: unknown;
    };
    expect(map.sourcesContent, file).toBeUndefined();
    // A stack trace still names src/<file>:<line> (an empty chunk maps nothing).
    if (map.sources.length)
      expect(
        map.sources.some((s) => /^\.\.\/(src|drivers)\//.test(s)),
        file,
      ).toBe(true);
  }
});

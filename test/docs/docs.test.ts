/**
 * Every code block of README.md, CONTRIBUTING.md and docs/*.md is checked here, so a snippet that breaks fails CI.
 *
 * Conventions for writers of the docs:
 * - ```ts blocks are self-contained programs a reader can paste: their own imports and definitions, top-level
 *   await allowed. `blogcore` and `blogcore/<subpath>` resolve to this checkout's sources (the entries of
 *   scripts/entries.ts); other packages to the repository's node_modules.
 *   All ts blocks are type-checked together in one TypeScript program with the project's strict options, then
 *   each is run with tsx in a child process whose working directory is a fresh temporary folder (so
 *   `sqliteDriver({ filename: 'blog.db' })` writes a throwaway file) and with `PORT=0` in its environment.
 *   A block passes when it exits with code 0 within 60 s (generous, for busy machines). A block that starts a
 *   server must print a line containing `listening on <url>`: the runner then requests that url, expects an
 *   answer below 500, and stops the child with SIGTERM (a server block passes once it has answered).
 * - Relative links (anchors included) must resolve inside the repository, and to a file the published package
 *   holds (README.md and docs/ ship in it, so their links work inside node_modules too); the docs may not name
 *   DESIGN.md or the package's old name.
 * - `<!-- snippet: browser -->` on the line before a ts block: code for a browser; it runs in Node with
 *   fake-indexeddb providing the IndexedDB globals.
 * - `<!-- snippet: typecheck-only <why> -->`: type-checked but not run (a Next.js route file, Bun or Deno
 *   code); say why after the marker.
 * - `<!-- snippet: shell <name>=<repository file> … -->` on the line before a ```sh block: a walkthrough, run whole
 *   by bash (`set -e`) in a fresh folder holding the named files (copies of repository files, e.g. an export to
 *   import), where `npx blogcore` is this checkout's built command. A command ending in `&` is stopped when the
 *   block ends; `8080` is replaced by a free port; `curl` fails on an HTTP error and retries while the server
 *   starts. The block passes when it exits with code 0 within 60 s.
 * - Other ```sh blocks are not run; each `npx blogcore …`/`blogcore …`/`node dist/cli.js …` line must name a
 *   subcommand and flags that `blogcore --help` lists (walkthroughs too), each `npm run X`/`npm start`/`npm test` a script of
 *   package.json (and `npm run bench -- --only=X` a benchmark), each path given to `npx vitest run`/`npx tsx`
 *   a file of the repository. Other commands (curl, git, cd) are not checked.
 * - Code comments cite the design record as `docs/design.md §N`, N a numbered section (`## N. …`) of it.
 * - ```json blocks must parse; ```text blocks (output, file trees) are not checked. No other languages.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import {
  type Block,
  blocksOf,
  brokenLinks,
  checkCommand,
  commandsOf,
  linkTargets,
  markdownFiles,
  parseUsage,
  ROOT,
  type ShellContext,
  strayCitations,
} from './snippets.js';
import { ENTRIES } from '../../scripts/entries.js';

const files = markdownFiles();
const blocks = files.flatMap(blocksOf);
const tsBlocks = blocks.filter((b) => b.lang === 'ts');
const runnable = tsBlocks.filter((b) => b.mode !== 'typecheck-only');
const shBlocks = blocks.filter((b) => b.lang === 'sh');
const name = (b: Block) => `${b.file}:${b.line}`;

const TMP = mkdtempSync(join(tmpdir(), 'blogcore-docs-'));
const dirOf = (b: Block) => join(TMP, `${b.file.replace(/[/.]/g, '_')}_${b.line}`);

/** `blogcore/<subpath>` → its source file, from the package's one list of entry points. */
function sourcePaths(): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(ENTRIES).map(([subpath, source]) => [
      subpath === '.' ? 'blogcore' : `blogcore/${subpath}`,
      [join(ROOT, source)],
    ]),
  );
}

beforeAll(() => {
  const project = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile).config as {
    compilerOptions: Record<string, unknown>;
  };
  const compilerOptions = { ...project.compilerOptions, moduleDetection: 'force', paths: sourcePaths() };
  writeFileSync(join(TMP, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*/snippet.ts'] }, null, 2));
  writeFileSync(join(TMP, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  symlinkSync(join(ROOT, 'node_modules'), join(TMP, 'node_modules'), 'dir');
  for (const b of tsBlocks) {
    mkdirSync(dirOf(b));
    writeFileSync(join(dirOf(b), 'snippet.ts'), b.code);
  }
});

afterAll(() => rmSync(TMP, { recursive: true, force: true }));

test('the docs use only the documented block languages and markers', () => {
  expect(blocks.length).toBeGreaterThan(0);
  for (const b of blocks) {
    expect(['ts', 'sh', 'json', 'text'], `${name(b)}: language "${b.lang}"`).toContain(b.lang);
    if (b.mode === 'shell') expect(b.lang, `${name(b)}: the shell marker on a non-sh block`).toBe('sh');
    else if (b.mode !== 'run') expect(b.lang, `${name(b)}: a snippet marker on a non-ts block`).toBe('ts');
  }
});

test('links stay inside the repository and the docs name no file outside it', () => {
  for (const file of files) {
    expect(brokenLinks(file), `${file}: links to missing or outside files`).toEqual([]);
    const text = readFileSync(join(ROOT, file), 'utf8');
    expect(text, `${file} points at DESIGN.md, which is not in the repository`).not.toMatch(/\bDESIGN\.md\b/);
    expect(text, `${file} uses the old package name`).not.toMatch(/blogkit/i);
  }
});

test('links work inside the published package too: every target is a file npm packs', () => {
  // --ignore-scripts: the list of files only (no build); --json: one entry per packed file.
  const packed = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
  const files = new Set(
    (JSON.parse(packed.stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path),
  );
  // README, CONTRIBUTING.md (README links to it) and docs/ ship; the links checked are those of README and docs/.
  const userDocs = markdownFiles().filter((f) => f === 'README.md' || f.startsWith('docs/'));
  expect(
    markdownFiles().filter((f) => !files.has(f)),
    'docs the package leaves out',
  ).toEqual([]);
  for (const file of userDocs) {
    expect(
      linkTargets(file)
        .filter((l) => !files.has(l.path))
        .map((l) => l.target),
      `${file}: links to files the package leaves out`,
    ).toEqual([]);
  }
}, 60_000);

test('every `docs/design.md §N` cited in the code names a numbered section of it', () => {
  expect(strayCitations()).toEqual([]);
});

/** The snippets as one program: with the repository's @types/node, or with `nodeTypes` read in its place. */
function snippetProblems(nodeTypes?: string): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(TMP, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (!config) throw new Error('could not read the snippets tsconfig');
  const host = ts.createCompilerHost(config.options);
  if (nodeTypes) {
    // Every file under node_modules/@types/node (its own node_modules included) is read from `nodeTypes`, so the
    // snippets and every package's `/// <reference types="node" />` see that version alone, as in a user's project.
    // (Found through the snippets' folder, whose node_modules links to the repository's, or the repository's.)
    const places = [TMP, ROOT].map((dir) => join(dir, 'node_modules', '@types', 'node'));
    const to = (p: string) => {
      const from = places.find((c) => p === c || p.startsWith(`${c}/`));
      return from ? nodeTypes + p.slice(from.length) : p;
    };
    const { fileExists, readFile, directoryExists, getDirectories } = host;
    host.fileExists = (p) => fileExists.call(host, to(p));
    host.readFile = (p) => readFile.call(host, to(p));
    host.directoryExists = (p) => directoryExists?.call(host, to(p)) ?? ts.sys.directoryExists(to(p));
    host.getDirectories = (p) => getDirectories?.call(host, to(p)) ?? [];
    host.realpath = (p) => p;
    host.getSourceFile = (fileName, language) => {
      const text = host.readFile(fileName);
      return text === undefined ? undefined : ts.createSourceFile(fileName, text, language);
    };
  }
  const program = ts.createProgram(config.fileNames, config.options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.start === undefined) return message;
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    const block = tsBlocks.find((b) => join(dirOf(b), 'snippet.ts') === d.file!.fileName);
    return block
      ? `${block.file}:${block.line + 1 + line}: ${message}`
      : `${relative(ROOT, d.file.fileName)}:${line + 1}: ${message}`;
  });
}

test("every ts block type-checks (one program, the project's strict options)", () => {
  expect(snippetProblems()).toEqual([]);
}, 120_000);

test('every ts block type-checks with the newest @types/node too (the one a fresh `npm install` of @types/* pulls in)', () => {
  const latest = join(ROOT, 'node_modules', '@types', 'node-latest');
  const version = (dir: string) =>
    (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  expect(Number(version(latest).split('.')[0]), 'devDependency @types/node-latest').toBeGreaterThan(
    Number(version(join(ROOT, 'node_modules', '@types', 'node')).split('.')[0]),
  );
  expect(snippetProblems(latest)).toEqual([]);
}, 120_000);

interface RunResult {
  code: number | null;
  output: string;
  answered?: number;
}

/** Runs one block with tsx in its own folder; see the conventions above for when it passes. */
function runBlock(b: Block): Promise<RunResult> {
  const preload = b.mode === 'browser' ? ['--import', 'fake-indexeddb/auto'] : [];
  const child = spawn(process.execPath, [...preload, '--import', 'tsx', 'snippet.ts'], {
    cwd: dirOf(b),
    // DATABASE_URL: the tests' throwaway PostgreSQL (docs/postgres.md's blocks read it).
    env: { ...process.env, PORT: '0', NODE_OPTIONS: '', DATABASE_URL: inject('pgUrl') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let answered: number | undefined;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      output += '\n[docs test: no exit within 60 s]';
      child.kill('SIGKILL');
    }, 60_000);
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      const before = output;
      output += d.toString();
      const m = /listening on (https?:\/\/\S+)/.exec(output);
      if (m && !/listening on https?:\/\/\S+/.test(before)) {
        fetch(m[1]!)
          .then(async (r) => {
            answered = r.status;
            await r.arrayBuffer();
          })
          .catch((e: unknown) => (output += `\n[docs test: request to ${m[1]} failed: ${String(e)}]`))
          .finally(() => child.kill('SIGTERM'));
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, ...(answered !== undefined ? { answered } : {}) });
    });
  });
}

describe.concurrent('every ts block runs', () => {
  test.each(runnable.map((b) => [name(b), b] as const))(
    '%s',
    async (_, b) => {
      const r = await runBlock(b);
      if (r.answered !== undefined)
        expect(r.answered, `${name(b)} answered ${r.answered}\n${r.output}`).toBeLessThan(500);
      else expect(r.code, `${name(b)} failed:\n${r.output}`).toBe(0);
    },
    90_000,
  );
});

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Runs a walkthrough (see the conventions above) with bash in its own folder: the files its marker names, a
 * package whose `npx blogcore` is this checkout's dist/cli.js, background commands stopped at the end.
 */
async function runShell(b: Block): Promise<RunResult> {
  const dir = join(TMP, `${b.file.replace(/[/.]/g, '_')}_${b.line}_sh`);
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true }));
  symlinkSync(ROOT, join(dir, 'node_modules', 'blogcore'), 'dir');
  symlinkSync(join('..', 'blogcore', 'dist', 'cli.js'), join(dir, 'node_modules', '.bin', 'blogcore'));
  for (const pair of (b.note ?? '').split(/\s+/).filter(Boolean)) {
    const [as, from] = pair.split('=') as [string, string];
    copyFileSync(join(ROOT, from), join(dir, as));
  }
  const prelude = [
    'set -e -o pipefail',
    // Job control: each background command gets its own process group, stopped whole when the block ends.
    'set -m',
    "trap 'for job in $(jobs -p); do kill -TERM -- -$job 2>/dev/null || true; done' EXIT",
    'curl() { command curl --silent --show-error --fail-with-body --retry 30 --retry-delay 1 --retry-connrefused "$@"; echo; }',
  ].join('\n');
  const script = `${prelude}\n${b.code.replace(/\b8080\b/g, String(await freePort()))}`;
  const child = spawn('bash', ['-c', script], {
    cwd: dir,
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      output += '\n[docs test: no exit within 60 s]';
      process.kill(-child.pid!, 'SIGKILL'); // the whole group: bash and what it started
    }, 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('shell walkthroughs run', () => {
  test.each(shBlocks.filter((b) => b.mode === 'shell').map((b) => [name(b), b] as const))(
    '%s',
    async (_, b) => {
      const r = await runShell(b);
      expect(r.code, `${name(b)} failed:\n${r.output}`).toBe(0);
    },
    90_000,
  );
});

describe('sh blocks name real commands', () => {
  let ctx: ShellContext;
  beforeAll(() => {
    // The built command, as the other CLI tests run it (CI builds before testing).
    const help = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), '--help'], { cwd: TMP, encoding: 'utf8' });
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const names = readdirSync(join(ROOT, 'test', 'bench'))
      .filter((f) => f.endsWith('.bench.ts'))
      .map((f) => f.replace('.bench.ts', ''));
    ctx = { usage: parseUsage(`${help.stdout}${help.stderr}`), scripts: pkg.scripts, bench: { names } };
    expect(ctx.usage.commands.has('serve'), `blogcore --help printed:\n${help.stdout}${help.stderr}`).toBe(true);
  });

  test.each(shBlocks.map((b) => [name(b), b] as const))('%s', (_, b) => {
    expect(commandsOf(b.code).flatMap((c) => checkCommand(c, ctx).map((p) => `${c}: ${p}`))).toEqual([]);
  });

  test('the checker itself refuses a wrong subcommand, flag, script and path', () => {
    for (const bad of [
      'npx blogcore srve',
      'npx blogcore serve --prot 1',
      'npm run nope',
      'npx vitest run test/nope',
      'npm run bench -- --only=nope',
    ]) {
      expect(checkCommand(bad, ctx), bad).not.toEqual([]);
    }
  });
});

test.each(blocks.filter((b) => b.lang === 'json').map((b) => [name(b), b] as const))('json block %s parses', (_, b) => {
  expect(() => JSON.parse(b.code)).not.toThrow();
});

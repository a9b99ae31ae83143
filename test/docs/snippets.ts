/**
 * Reads the code blocks out of README.md and docs/*.md for test/docs/docs.test.ts, and checks shell command
 * lines against what the repository really has (CLI subcommands and flags, npm scripts, files).
 * The conventions are described at the top of test/docs/docs.test.ts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export type RunMode = 'run' | 'typecheck-only' | 'browser' | 'shell';

export interface Block {
  /** Markdown file, relative to the repository root. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  code: string;
  mode: RunMode;
  /** Why a block is not run (the text after `typecheck-only` in its marker). */
  note?: string;
}

/** README.md, CONTRIBUTING.md and every docs/*.md file, relative to the root. */
export function markdownFiles(): string[] {
  const docs = existsSync(join(ROOT, 'docs'))
    ? readdirSync(join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .sort()
        .map((f) => `docs/${f}`)
    : [];
  return ['README.md', ...(existsSync(join(ROOT, 'CONTRIBUTING.md')) ? ['CONTRIBUTING.md'] : []), ...docs];
}

const MARKER = /^<!--\s*snippet:\s*(typecheck-only|browser|shell)\b\s*(.*?)\s*-->\s*$/;

/** Every fenced block of a markdown file, with the `<!-- snippet: … -->` marker on the line before it. */
export function blocksOf(file: string): Block[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})(\S*)/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, lang] = open as unknown as [string, string, string, string];
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !lines[j]!.startsWith(`${indent}${fence}`); j++)
      body.push(lines[j]!.slice(indent.length));
    if (j === lines.length) throw new Error(`${file}:${i + 1}: code block never closed`);
    const marker = MARKER.exec((lines[i - 1] ?? '').trim());
    blocks.push({
      file,
      line: i + 1,
      lang,
      code: `${body.join('\n')}\n`,
      mode: (marker?.[1] as RunMode | undefined) ?? 'run',
      ...(marker?.[2] ? { note: marker[2] } : {}),
    });
    i = j;
  }
  return blocks;
}

/** The files relative links `[text](target)` of a markdown file point at, relative to the root, with their anchors. */
export function linkTargets(file: string): Array<{ target: string; path: string; anchor?: string }> {
  const text = readFileSync(join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].flatMap((m) => {
    const target = m[1]!;
    if (/^[a-z]+:/i.test(target)) return [];
    const [pathPart, anchor] = target.split('#') as [string, string | undefined];
    const path = relative(ROOT, pathPart === '' ? join(ROOT, file) : join(ROOT, file, '..', pathPart));
    return [{ target, path, ...(anchor !== undefined ? { anchor } : {}) }];
  });
}

/**
 * Citations of the design record in the code (`docs/design.md §N`) that name no numbered section of it, and
 * citations of a bare DESIGN section (a document outside the repository).
 */
export function strayCitations(): string[] {
  const design = readFileSync(join(ROOT, 'docs/design.md'), 'utf8');
  const sections = new Set([...design.matchAll(/^## (\d+)\. /gm)].map((m) => m[1]));
  const bad: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'dist') walk(path);
      } else if (/\.(ts|tsx|mts|js|mjs)$/.test(entry.name)) {
        readFileSync(join(ROOT, path), 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (/\bDESIGN §/.test(line)) bad.push(`${path}:${i + 1}: cite docs/design.md §N`);
            if (!/design\.md/.test(line)) return;
            for (const m of line.matchAll(/§(\d+)/g))
              if (!sections.has(m[1]!)) bad.push(`${path}:${i + 1}: docs/design.md has no §${m[1]}`);
          });
      }
    }
  };
  for (const dir of ['src', 'drivers', 'test', 'scripts', 'examples']) if (existsSync(join(ROOT, dir))) walk(dir);
  return bad;
}

/** Relative links `[text](target)` of a markdown file that do not resolve to a file inside the repository. */
export function brokenLinks(file: string): string[] {
  const bad: string[] = [];
  for (const { target, path: rel, anchor } of linkTargets(file)) {
    const path = join(ROOT, rel);
    if (rel.startsWith('..') || !existsSync(path)) bad.push(target);
    else if (anchor !== undefined && !headingSlugs(rel).includes(anchor)) bad.push(target);
  }
  return bad;
}

/** The anchors GitHub gives the headings of a markdown file: lower-case, punctuation dropped, spaces to `-`. */
function headingSlugs(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) =>
    m[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-'),
  );
}

/** What `blogcore --help` says: each subcommand with the flags its usage names, plus flags of no command. */
export interface Usage {
  commands: Map<string, Set<string>>;
  global: Set<string>;
}

export function parseUsage(help: string): Usage {
  const commands = new Map<string, Set<string>>();
  const global = new Set<string>(['--help', '-h']);
  let current: Set<string> | undefined;
  let commandList = false;
  for (const line of help.split('\n')) {
    // A header line ("Usage:", "Options:") ends the command above; "Commands:" starts a list of them.
    if (/^\S/.test(line)) {
      current = undefined;
      commandList = /^commands:?\s*$/i.test(line.trim());
    }
    const cmd =
      /^\s*blogcore\s+([a-z][\w-]*)/.exec(line) ?? (commandList ? /^\s{2,}([a-z][\w-]*)(?=\s|$)/.exec(line) : null);
    if (cmd && !/^\s{6,}/.test(line)) commands.set(cmd[1]!, (current = new Set()));
    const flags = line.match(/(?<![\w-])--?[a-z][\w-]*/g) ?? [];
    for (const f of flags) {
      if (!cmd && /^\s*blogcore\s+--/.test(line)) global.add(f);
      else (current ?? global).add(f);
    }
  }
  return { commands, global };
}

export interface ShellContext {
  usage: Usage;
  scripts: Record<string, string>;
  /** Options `npm run bench -- …` understands: `only` names and flag names. */
  bench: { names: string[] };
}

/** Splits a shell block into simple commands: comments dropped, `\` continuations joined, `&&`/`;`/`|` split. */
export function commandsOf(code: string): string[] {
  const joined = code.replace(/\\\n/g, ' ');
  const out: string[] = [];
  for (const raw of joined.split('\n')) {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (!line) continue;
    out.push(
      ...line
        .split(/&&|;|\|/)
        .map((s) => s.trim())
        .filter(Boolean),
    );
  }
  return out;
}

/** Problems with one command line of a shell block (empty when it names only what exists). */
export function checkCommand(command: string, ctx: ShellContext): string[] {
  const words = command.split(/\s+/).map((w) => w.replace(/^["']|["']$/g, ''));
  const problems: string[] = [];
  let i = 0;
  while (/^[A-Z_]+=/.test(words[i] ?? '')) i++; // leading VAR=value assignments
  const w = words.slice(i);
  const cli =
    w[0] === 'npx' && w[1] === 'blogcore'
      ? w.slice(2)
      : w[0] === 'blogcore'
        ? w.slice(1)
        : w[0] === 'node' && w[1] === 'dist/cli.js'
          ? w.slice(2)
          : undefined;
  if (cli) {
    const [sub, ...rest] = cli;
    const sets: Set<string>[] = [ctx.usage.global];
    if (sub !== undefined && !sub.startsWith('-')) {
      const flags = ctx.usage.commands.get(sub);
      if (!flags) return [`"${sub}" is not a blogcore subcommand (${[...ctx.usage.commands.keys()].join(', ')})`];
      sets.push(flags);
    }
    for (const word of sub?.startsWith('-') ? cli : rest) {
      if (!word.startsWith('-')) continue;
      const flag = word.split('=')[0]!;
      if (!sets.some((s) => s.has(flag))) problems.push(`blogcore ${sub ?? ''}: unknown flag ${flag}`);
    }
    return problems;
  }
  if (w[0] === 'npm') {
    const script = w[1] === 'run' ? w[2] : w[1] === 'start' || w[1] === 'test' ? w[1] : undefined;
    if (w[1] === 'run' && script === undefined) return ['npm run without a script name'];
    if (script !== undefined) {
      if (!(script in ctx.scripts)) return [`npm script "${script}" does not exist`];
      const after = w.indexOf('--');
      if (script === 'bench' && after > 0) {
        for (const arg of w.slice(after + 1)) {
          const m = /^--only=(.+)$/.exec(arg);
          for (const name of m?.[1]?.split(',') ?? [])
            if (!ctx.bench.names.includes(name)) problems.push(`no benchmark named "${name}"`);
        }
      }
    }
    return problems;
  }
  if (w[0] === 'npx' && (w[1] === 'vitest' || w[1] === 'tsx' || w[1] === 'vite')) {
    const args = w.slice(w[1] === 'vitest' && w[2] === 'run' ? 3 : 2);
    for (const [k, arg] of args.entries()) {
      // Flags, their values (`--project browser`) and vite's subcommands are not paths.
      if (arg.startsWith('-') || /^--(project|reporter|config|port|host)$|^-t$/.test(args[k - 1] ?? '')) continue;
      if (arg.includes('=') || arg === 'build' || arg === 'preview') continue;
      if (!pathPrefixExists(arg)) problems.push(`${arg}: no such file in the repository`);
    }
  }
  return problems;
}

/** True when a file or folder exists whose path starts with `prefix` (vitest filters are prefixes). */
function pathPrefixExists(prefix: string): boolean {
  if (existsSync(join(ROOT, prefix))) return true;
  const slash = prefix.lastIndexOf('/');
  const dir = join(ROOT, prefix.slice(0, slash + 1));
  return existsSync(dir) && readdirSync(dir).some((f) => f.startsWith(prefix.slice(slash + 1)));
}

/**
 * Each access and state rule is written once (docs/design.md §5, §6): one function in src/rules/ per rule, declared
 * nowhere else, used by the code that applies it, and the inline forms it replaced are gone from src/. A newcomer
 * asking "where is the rule that a READER cannot see drafts?" finds `seesDrafts` in src/rules/access.ts, and only
 * there.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../http/spawn.js';

const ACCESS = 'src/rules/access.ts';
const STATES = 'src/rules/states.ts';

/** The rules, each with its one home and the sentence of docs/design.md §5 or §6 it holds. */
const RULES: ReadonlyArray<{ name: string; file: string; rule: string }> = [
  { name: 'roleOf', file: ACCESS, rule: 'the unscoped service is ADMIN, a member holds its role, anyone else none' },
  { name: 'mayUseView', file: ACCESS, rule: 'a view needs at least that role in the blog' },
  { name: 'resolveView', file: ACCESS, rule: "unspecified, the view is the caller's own role" },
  { name: 'requireRole', file: ACCESS, rule: 'an operation for AUTHORs or ADMINs refuses anyone below (403)' },
  { name: 'seesDrafts', file: ACCESS, rule: 'a READER cannot see drafts: posts and pages not LIVE need AUTHOR view' },
  { name: 'seesContent', file: ACCESS, rule: 'a LIVE post or page is for everyone, others per seesDrafts' },
  { name: 'visibleContentStatuses', file: ACCESS, rule: 'the post and page statuses a view walks' },
  { name: 'requireVisibleContent', file: ACCESS, rule: 'listing non-LIVE posts or pages below AUTHOR view is 403' },
  { name: 'PUBLIC_COMMENT_STATUSES', file: ACCESS, rule: 'readers see LIVE and EMPTIED comments' },
  { name: 'seesHeldComments', file: ACCESS, rule: 'PENDING and SPAM comments need ADMIN view' },
  { name: 'seesClientAddress', file: ACCESS, rule: "an anonymous comment's client address needs ADMIN view" },
  { name: 'seesCommentStatus', file: ACCESS, rule: 'a comment status is public, or per seesHeldComments' },
  { name: 'visibleCommentStatuses', file: ACCESS, rule: 'the comment statuses a view walks' },
  { name: 'requireVisibleComments', file: ACCESS, rule: 'listing PENDING or SPAM below ADMIN view is 403' },
  { name: 'hidesComments', file: ACCESS, rule: 'DONT_ALLOW_HIDE_EXISTING hides comments below ADMIN view' },
  { name: 'commentVisOf', file: ACCESS, rule: "a post's comments are open, draft or hidden by the post" },
  { name: 'visibleClasses', file: ACCESS, rule: 'the comment classes a view sees' },
  { name: 'seesComment', file: ACCESS, rule: 'a comment is seen by its status and its post' },
  { name: 'seesMedia', file: ACCESS, rule: 'media records are for the AUTHOR view and above' },
  { name: 'mayEdit', file: ACCESS, rule: 'AUTHORs change their own posts and media, ADMINs everything' },
  { name: 'newCommentStatus', file: ACCESS, rule: 'a comment starts PENDING unless its caller is AUTHOR or ADMIN' },
  { name: 'limitsComments', file: ACCESS, rule: 'comment limits hold for callers below AUTHOR' },
  { name: 'mayComment', file: ACCESS, rule: 'readerComments other than ALLOW refuses new comments below AUTHOR' },
  { name: 'leavesNoAdmin', file: ACCESS, rule: 'removing or demoting the last ADMIN is 409' },
  { name: 'insertedStatus', file: STATES, rule: 'insert gives LIVE, DRAFT with isDraft, SCHEDULED in the future' },
  { name: 'publishPost', file: STATES, rule: 'post publish: from DRAFT or SCHEDULED, at publishDate' },
  { name: 'publishPage', file: STATES, rule: 'page publish: from DRAFT to LIVE' },
  { name: 'revertTo', file: STATES, rule: 'revert: LIVE, SCHEDULED, SOFT_TRASHED to DRAFT' },
  { name: 'trash', file: STATES, rule: 'delete with useTrash: any but SOFT_TRASHED' },
  { name: 'edit', file: STATES, rule: 'update/patch: any but SOFT_TRASHED, publish/revert in the same write' },
  { name: 'isDue', file: STATES, rule: 'a SCHEDULED post is LIVE once its time has come' },
  { name: 'acceptsComments', file: STATES, rule: 'comments only on LIVE posts' },
  { name: 'COMMENT_MOVES', file: STATES, rule: 'approve, markAsSpam, removeContent: from and to' },
  { name: 'movesFrom', file: STATES, rule: 'a moderation move applies from the states it lists' },
  { name: 'moveComment', file: STATES, rule: 'a moderation move from a state it does not allow is 409' },
];

/**
 * The inline forms the rules replaced: none may be written outside src/rules/ again. (Comparisons of role
 * levels, the status pairs of the public comment statuses, readerComments tests, the trusted-commenter test,
 * the insert-status ternaries and the due test of a scheduled post.)
 */
const INLINE: ReadonlyArray<{ pattern: RegExp; use: string }> = [
  { pattern: /\batLeast\(|\bLEVEL\[/, use: 'a rule of src/rules/access.ts (seesDrafts, seesHeldComments, …)' },
  { pattern: /\[\s*'LIVE',\s*'EMPTIED'\s*\]/, use: 'PUBLIC_COMMENT_STATUSES or seesCommentStatus' },
  { pattern: /readerComments\s*[!=]==/, use: 'hidesComments, mayComment or commentVisOf' },
  {
    pattern: /role\s*[!=]==\s*'(?:AUTHOR|ADMIN)'\s*(?:\|\||&&)/,
    use: 'mayEdit, newCommentStatus, mayComment or leavesNoAdmin',
  },
  { pattern: /isDraft\s*\?\s*'DRAFT'/, use: 'insertedStatus' },
  { pattern: /status\s*[!=]==\s*'SCHEDULED'\s*(?:\|\||&&)[^\n]*published\s*[<>]/, use: 'isDue' },
  { pattern: /status:\s*'SOFT_TRASHED',\s*trashed/, use: 'trash' },
  { pattern: /from:\s*\[\s*'(?:LIVE|PENDING)'/, use: 'COMMENT_MOVES' },
];

/** Every .ts file of src/ and drivers/. */
function sources(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith('.ts')) out.push(path);
    }
  };
  walk('src');
  walk('drivers');
  return out;
}

const FILES = sources().map((path) => {
  const text = readFileSync(join(ROOT, path), 'utf8');
  return { path, text, ast: ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true) };
});

/** The names a file declares at its top level (functions, constants, classes), with whether each is exported. */
function declarations(ast: ts.SourceFile): Map<string, boolean> {
  const names = new Map<string, boolean>();
  const exported = (n: ts.Node) =>
    ts.canHaveModifiers(n) && (ts.getModifiers(n) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const node of ast.statements) {
    if ((ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node)) && node.name)
      names.set(node.name.text, exported(node));
    else if (ts.isVariableStatement(node))
      for (const d of node.declarationList.declarations)
        if (ts.isIdentifier(d.name)) names.set(d.name.text, exported(node));
  }
  return names;
}

/** Where `name` is used as an identifier (not declared), by file. */
function usedIn(name: string): string[] {
  return FILES.filter(({ ast }) => {
    let found = false;
    const visit = (n: ts.Node) => {
      if (found) return;
      if (ts.isIdentifier(n) && n.text === name && !ts.isImportSpecifier(n.parent) && !isDeclarationName(n))
        found = true;
      else ts.forEachChild(n, visit);
    };
    visit(ast);
    return found;
  }).map((f) => f.path);
}

const isDeclarationName = (n: ts.Identifier) =>
  (ts.isFunctionDeclaration(n.parent) || ts.isVariableDeclaration(n.parent)) && n.parent.name === n;

describe('each access and state rule', () => {
  it.each(RULES)('$name ($rule) is declared once, in $file, and applied outside it', ({ name, file }) => {
    const homes = FILES.filter(({ ast }) => declarations(ast).has(name)).map((f) => f.path);
    expect(homes).toEqual([file]);
    expect(declarations(FILES.find((f) => f.path === file)!.ast).get(name), `${name} is exported`).toBe(true);
    const users = usedIn(name).filter((path) => !path.startsWith('src/rules/'));
    expect(users.length, `${name} is applied somewhere outside src/rules/`).toBeGreaterThan(0);
  });

  it('the list above names every export of the rules files that decides something', () => {
    const listed = new Set(RULES.map((r) => r.name));
    // Plumbing the rules share without deciding anything: who the caller is, and its 401.
    const plumbing = new Set(['Actor', 'Standing', 'actorUserId', 'authError', 'COMMENT_VIS', 'CommentVis']);
    for (const file of [ACCESS, STATES]) {
      const exported = [...declarations(FILES.find((f) => f.path === file)!.ast)]
        .filter(([name, isExported]) => isExported && !plumbing.has(name))
        .map(([name]) => name);
      expect(
        exported.filter((name) => !listed.has(name)),
        file,
      ).toEqual([]);
    }
  });

  it('no inline form of a rule is left outside src/rules/', () => {
    const found: string[] = [];
    for (const { path, text } of FILES) {
      if (path.startsWith('src/rules/')) continue;
      for (const { pattern, use } of INLINE) {
        const m = pattern.exec(text);
        if (m) {
          const line = text.slice(0, m.index).split('\n').length;
          found.push(`${relative(ROOT, join(ROOT, path))}:${line} ${m[0]} — use ${use}`);
        }
      }
    }
    expect(found).toEqual([]);
  });
});

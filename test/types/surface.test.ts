/**
 * The published types (dist/*.d.ts, what an app's editor shows): no internal class, record or validator type
 * leaks into them, every method of BlogService's namespaces carries its doc comment, and so does every field of
 * the wire resources (read from their sources).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';
import { requireBuild, ROOT } from '../http/spawn.js';

const dist = join(ROOT, 'dist');

/** Names that exist only inside the package: the engine, its caches and events plumbing, stored records, the validator. */
const INTERNAL =
  /\b(?:declare class (?:Core|EventShare|Emitter|RecordCache|Scheduler)|interface (?:CoreOptions|\w+Record|Schema)\b|declare function apis\b|RecordStore\b|type Out<)/;

it('no .d.ts declares an internal class, record or validator type', () => {
  requireBuild();
  const files = readdirSync(dist).filter((f) => f.endsWith('.d.ts') || f.endsWith('.d.cts'));
  expect(files.length).toBeGreaterThan(0);
  for (const f of files) expect(readFileSync(join(dist, f), 'utf8'), f).not.toMatch(INTERNAL);
});

it('every BlogService namespace method has a doc comment in the published types', () => {
  requireBuild();
  // The chunk that declares BlogService (tsup shares it between entries).
  const file = readdirSync(dist)
    .filter((f) => f.endsWith('.d.ts'))
    .find((f) => readFileSync(join(dist, f), 'utf8').includes('interface BlogService '));
  expect(file).toBeDefined();
  const source = ts.createSourceFile(file!, readFileSync(join(dist, file!), 'utf8'), ts.ScriptTarget.ES2022, true);
  const interfaces = new Map<string, ts.InterfaceDeclaration>();
  source.forEachChild((node) => {
    if (ts.isInterfaceDeclaration(node)) interfaces.set(node.name.text, node);
  });
  const documented = (node: ts.Node) => ts.getJSDocCommentsAndTags(node).length > 0;
  const undocumented: string[] = [];
  let methods = 0;
  // Walk BlogService and every interface its members name (PostsApi, PostRevisionsApi, …).
  const visit = (name: string, path: string, seen: Set<string>) => {
    const decl = interfaces.get(name);
    if (!decl || seen.has(name)) return;
    seen.add(name);
    for (const member of decl.members) {
      const key = `${path}${member.name?.getText(source)}`;
      if (ts.isMethodSignature(member)) {
        methods++;
        if (!documented(member)) undocumented.push(key);
      } else if (ts.isPropertySignature(member) && member.type && ts.isTypeReferenceNode(member.type)) {
        visit(member.type.typeName.getText(source), `${key}.`, seen);
      }
    }
  };
  visit('BlogService', '', new Set());
  expect(methods).toBeGreaterThan(55);
  expect(undocumented).toEqual([]);
});

/** The wire resources: every interface of resources.ts, and the media and change-feed resources beside it. */
const RESOURCES: ReadonlyArray<{ file: string; only?: readonly string[] }> = [
  { file: 'src/schema/resources.ts' },
  { file: 'src/schema/media.ts', only: ['Media', 'MediaList'] },
  { file: 'src/resources/changes.ts', only: ['ChangeItem', 'ChangeList'] },
];

it('every field of the wire resources has a doc comment, nested ones included', () => {
  const undocumented: string[] = [];
  let fields = 0;
  for (const { file, only } of RESOURCES) {
    const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.ES2022, true);
    const visit = (node: ts.Node, path: string) => {
      if (ts.isPropertySignature(node)) {
        const key = `${path}.${node.name.getText(source)}`;
        fields++;
        if (ts.getJSDocCommentsAndTags(node).length === 0) undocumented.push(`${file}: ${key}`);
        if (node.type) ts.forEachChild(node.type, (child) => visit(child, key));
      } else ts.forEachChild(node, (child) => visit(child, path));
    };
    source.forEachChild((node) => {
      if (ts.isInterfaceDeclaration(node) && (!only || only.includes(node.name.text))) visit(node, node.name.text);
    });
  }
  expect(fields).toBeGreaterThan(190);
  expect(undocumented).toEqual([]);
});

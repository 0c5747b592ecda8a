#!/usr/bin/env node
// The engine's structure in figures, read from the code with TypeScript's own parser:
//   node scripts/arch-figures.mjs [--json]
// - folder circles: folders of src/main/engine (a root file counts as its own) that import each
//   other at run time (type-only imports left out), as strongly connected groups;
// - runtime-id branches outside runtimes/: a runtime's id compared or switched on (`=== 'codex'`,
//   `case 'pi':`, `.includes('gemini')` on a list of ids) anywhere in src but the runtimes folder;
// - runtime-id tables outside runtimes/: what a runtime can do kept beside the code that asks,
//   keyed by ids (an object literal with two or more ids as keys, a list or set of two or more ids);
// - functions that take the whole Engine, per folder;
// - direct node:fs imports in the engine;
// - the largest functions of the engine (lines).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const ENGINE = 'src/main/engine';
const RUNTIME_IDS = ['claude-code', 'codex', 'pi', 'opencode', 'gemini', 'qwen', 'omp', 'omo', 'shell'];

function walk(dir) {
  const out = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const rel = join(dir, name);
    if (statSync(join(ROOT, rel)).isDirectory()) out.push(...walk(rel));
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

function parse(file) {
  return ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
}

/** The engine folder a file belongs to: its first folder under the engine, or the file itself. */
function folderOf(file) {
  const rest = relative(ENGINE, file).split('/');
  return rest.length > 1 ? `${rest[0]}/` : rest[0];
}

/** Run-time imports: `import type` and imports whose every name is a type are left out. */
function valueImports(sf) {
  const out = [];
  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st) && !ts.isExportDeclaration(st)) continue;
    if (!st.moduleSpecifier || !ts.isStringLiteral(st.moduleSpecifier)) continue;
    if (ts.isImportDeclaration(st)) {
      const c = st.importClause;
      if (c?.isTypeOnly) continue;
      const named = c?.namedBindings && ts.isNamedImports(c.namedBindings) ? c.namedBindings.elements : undefined;
      if (c && !c.name && named && named.length > 0 && named.every((e) => e.isTypeOnly)) continue;
    } else if (st.isTypeOnly) continue;
    out.push(st.moduleSpecifier.text);
  }
  return out;
}

function resolveImport(from, spec) {
  if (!spec.startsWith('.')) return undefined;
  const base = join(dirname(from), spec);
  for (const cand of [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')])
    try {
      if (statSync(join(ROOT, cand)).isFile()) return cand;
    } catch {}
  return undefined;
}

/** Tarjan's strongly connected components over the folder graph. */
function circles(graph) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const out = [];
  const strong = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const comp = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) strong(v);
  return out;
}

function isRuntimeId(node) {
  return ts.isStringLiteralLike(node) && RUNTIME_IDS.includes(node.text);
}

/** Branches on a runtime's id: comparisons, case labels, and membership tests on lists of ids. */
function runtimeBranches(sf) {
  const hits = [];
  const at = (node) => sf.getLineAndCharacterOfPosition(node.getStart()).line + 1;
  const visit = (node) => {
    if (
      ts.isBinaryExpression(node) &&
      [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(
        node.operatorToken.kind,
      ) &&
      (isRuntimeId(node.left) || isRuntimeId(node.right))
    )
      hits.push(at(node));
    else if (ts.isCaseClause(node) && isRuntimeId(node.expression)) hits.push(at(node));
    else if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ['includes', 'has'].includes(node.expression.name.text) &&
      ts.isArrayLiteralExpression(node.expression.expression) &&
      node.expression.expression.elements.some(isRuntimeId)
    )
      hits.push(at(node));
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return hits;
}

/** Tables keyed by runtime ids: object literals with 2+ id keys, array literals (a Set's too) of 2+ ids. */
function runtimeTables(sf) {
  const hits = [];
  const at = (node) => sf.getLineAndCharacterOfPosition(node.getStart()).line + 1;
  const keyIsId = (p) =>
    (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) &&
    RUNTIME_IDS.includes(ts.isStringLiteralLike(p.name) || ts.isIdentifier(p.name) ? p.name.text : '');
  const visit = (node) => {
    if (ts.isObjectLiteralExpression(node) && node.properties.filter(keyIsId).length >= 2) hits.push(at(node));
    else if (ts.isArrayLiteralExpression(node) && node.elements.filter(isRuntimeId).length >= 2) hits.push(at(node));
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return hits;
}

function isEngineType(type) {
  if (!type) return false;
  if (ts.isTypeReferenceNode(type)) return type.typeName.getText() === 'Engine';
  return false;
}

/** Functions (declarations, methods, arrows) with a parameter of type Engine, and every function's size. */
function functions(sf) {
  const takesEngine = [];
  const sizes = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const name =
        node.name?.getText() ||
        (ts.isVariableDeclaration(node.parent) ? node.parent.name.getText() : undefined) ||
        (ts.isPropertyAssignment(node.parent) ? node.parent.name.getText() : undefined);
      const start = sf.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      if (name) sizes.push({ name, line: start, lines: end - start + 1 });
      if (node.parameters.some((p) => isEngineType(p.type)))
        takesEngine.push({ name: name ?? '(anonymous)', line: start });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { takesEngine, sizes };
}

const engineFiles = walk(ENGINE);
const graph = new Map();
let fsImports = 0;
const fsFiles = [];
const takesEngine = {};
const sizes = [];
for (const file of engineFiles) {
  const sf = parse(file);
  const from = folderOf(file);
  if (!graph.has(from)) graph.set(from, new Set());
  for (const spec of valueImports(sf)) {
    if (spec === 'node:fs' || spec === 'fs' || spec === 'node:fs/promises') {
      fsImports++;
      fsFiles.push(relative(ENGINE, file));
    }
    const target = resolveImport(file, spec);
    if (!target?.startsWith(`${ENGINE}/`)) continue;
    const to = folderOf(target);
    if (to !== from) graph.get(from).add(to);
  }
  const f = functions(sf);
  if (f.takesEngine.length) takesEngine[from] = (takesEngine[from] ?? 0) + f.takesEngine.length;
  for (const s of f.sizes) sizes.push({ ...s, file: relative(ENGINE, file) });
}

const branches = [];
const tables = [];
for (const file of [...walk('src')].filter((f) => !f.startsWith(`${ENGINE}/runtimes/`))) {
  const sf = parse(file);
  for (const line of runtimeBranches(sf)) branches.push(`${file}:${line}`);
  for (const line of runtimeTables(sf)) tables.push(`${file}:${line}`);
}

sizes.sort((a, b) => b.lines - a.lines);
const figures = {
  folderCircles: circles(graph),
  runtimeIdBranchesOutsideRuntimes: branches.length,
  runtimeIdBranches: branches,
  runtimeIdTablesOutsideRuntimes: tables.length,
  runtimeIdTables: tables,
  functionsTakingEngine: Object.values(takesEngine).reduce((a, b) => a + b, 0),
  functionsTakingEngineByFolder: Object.fromEntries(Object.entries(takesEngine).sort((a, b) => b[1] - a[1])),
  nodeFsImportsInEngine: fsImports,
  nodeFsFiles: fsFiles.sort(),
  largestFunctions: sizes.slice(0, 10).map((s) => `${s.file}:${s.line} ${s.name} (${s.lines} lines)`),
};

if (process.argv.includes('--json')) console.log(JSON.stringify(figures, null, 2));
else {
  console.log(`folder circles (run-time imports): ${figures.folderCircles.length}`);
  for (const c of figures.folderCircles) console.log(`  ${c.join(' <-> ')}`);
  console.log(`runtime-id branches outside runtimes/: ${figures.runtimeIdBranchesOutsideRuntimes}`);
  for (const b of branches) console.log(`  ${b}`);
  console.log(`runtime-id tables outside runtimes/: ${figures.runtimeIdTablesOutsideRuntimes}`);
  for (const t of tables) console.log(`  ${t}`);
  console.log(`functions taking the whole Engine: ${figures.functionsTakingEngine}`);
  for (const [k, v] of Object.entries(figures.functionsTakingEngineByFolder)) console.log(`  ${k} ${v}`);
  console.log(`direct node:fs imports in the engine: ${figures.nodeFsImportsInEngine}`);
  console.log('largest functions:');
  for (const l of figures.largestFunctions) console.log(`  ${l}`);
}

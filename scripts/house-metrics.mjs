// `npm run house`: the house rules of src/ (docs/architecture.md "House rules"), measured with the
// TypeScript compiler API. Lists every file under src/ over 500 lines, every function body
// (declaration, method, constructor, accessor, function expression, arrow function) over 80 lines
// counted from the declaration's first line to its closing brace, and every import circle between
// the files of src/ (relative imports, `export … from` and literal `import()` included, type-only
// imports too). Prints what it finds and exits 1 if it found anything, 0 otherwise.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const MAX_FILE_LINES = 500;
const MAX_FUNCTION_LINES = 80;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');

/** Every file below `dir`, recursively, in a stable order. */
function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...walk(path));
    else out.push(path);
  }
  return out;
}

/** The number of lines of `text` (a final newline does not start a line). */
function lineCount(text) {
  if (text.length === 0) return 0;
  const lines = text.split('\n').length;
  return text.endsWith('\n') ? lines - 1 : lines;
}

/** A readable name for a function-like node: its own name, or the binding or property it is assigned to. */
function functionName(node) {
  if (ts.isConstructorDeclaration(node)) return `${className(node.parent)}.constructor`;
  if (node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) || ts.isPrivateIdentifier(node.name))) {
    const own = node.name.text;
    return ts.isClassLike(node.parent) ? `${className(node.parent)}.${own}` : own;
  }
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isCallExpression(parent)) {
    const callee = parent.expression.getText();
    return `<callback of ${callee.length > 40 ? `${callee.slice(0, 40)}…` : callee}>`;
  }
  return '<anonymous>';
}

function className(node) {
  return node.name ? node.name.text : '<class>';
}

/** The function-like nodes of `sf` with more than MAX_FUNCTION_LINES lines, as report rows. */
function longFunctions(sf, file) {
  const rows = [];
  const visit = (node) => {
    if (
      (ts.isFunctionDeclaration(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isConstructorDeclaration(node) ||
        ts.isGetAccessorDeclaration(node) ||
        ts.isSetAccessorDeclaration(node) ||
        ts.isFunctionExpression(node) ||
        ts.isArrowFunction(node)) &&
      node.body
    ) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(node.body.getEnd()).line;
      const lines = last - first + 1;
      if (lines > MAX_FUNCTION_LINES) rows.push({ file, line: first + 1, name: functionName(node), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return rows;
}

/** The relative module specifiers `sf` imports or re-exports (static, or `import('…')` of a literal). */
function relativeSpecifiers(sf) {
  const specs = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      specs.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments.length === 1 &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      specs.push(node.arguments[0].text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      specs.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return specs.filter((s) => s.startsWith('./') || s.startsWith('../'));
}

/** The file of src/ a relative specifier of `from` names (`.js` → `.ts`, a folder → its index), or null. */
function resolveSpecifier(from, spec, files) {
  const base = resolve(dirname(from), spec);
  const candidates = [base, base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((c) => files.has(c)) ?? null;
}

/** The strongly connected components of more than one file (or a file importing itself): Tarjan's algorithm. */
function circles(graph) {
  let index = 0;
  const indexOf = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const out = [];
  const strong = (v) => {
    indexOf.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)) {
      if (!indexOf.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v), indexOf.get(w)));
      }
    }
    if (low.get(v) === indexOf.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v).has(v)) out.push(component);
    }
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) strong(v);
  return out;
}

/** One cycle through `start` inside `component` (breadth-first, so a shortest one), as a list of files. */
function cycleThrough(graph, component, start) {
  const inside = new Set(component);
  const previous = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift();
    for (const w of graph.get(v)) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const path = [];
        for (let u = v; u !== null; u = previous.get(u)) path.unshift(u);
        return [...path, start];
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

const files = walk(src);
const tsFiles = new Set(files.filter((f) => /\.m?ts$/.test(f) && !f.endsWith('.d.ts')));
const rel = (f) => relative(root, f);

const longFiles = [];
const longFns = [];
const graph = new Map();
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const lines = lineCount(text);
  if (lines > MAX_FILE_LINES) longFiles.push({ file, lines });
  if (!tsFiles.has(file)) continue;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  longFns.push(...longFunctions(sf, file));
  const targets = new Set();
  for (const spec of relativeSpecifiers(sf)) {
    const target = resolveSpecifier(file, spec, tsFiles);
    if (target) targets.add(target);
  }
  graph.set(file, targets);
}
const found = circles(graph);

console.log(`files over ${MAX_FILE_LINES} lines: ${longFiles.length}`);
for (const { file, lines } of longFiles.sort((a, b) => b.lines - a.lines)) console.log(`  ${rel(file)}: ${lines} lines`);
console.log(`functions over ${MAX_FUNCTION_LINES} lines: ${longFns.length}`);
for (const { file, line, name, lines } of longFns.sort((a, b) => b.lines - a.lines)) {
  console.log(`  ${rel(file)}:${line} ${name}: ${lines} lines`);
}
console.log(`import circles: ${found.length}`);
for (const component of found) {
  const sorted = component.sort();
  console.log(`  ${cycleThrough(graph, sorted, sorted[0]).map(rel).join(' → ')}${sorted.length > 2 ? ` (${sorted.length} files in the circle)` : ''}`);
}
process.exitCode = longFiles.length + longFns.length + found.length > 0 ? 1 : 0;

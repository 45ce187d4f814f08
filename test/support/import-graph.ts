/** The repository's import graph as TypeScript resolves it (type-only imports included), and its cycles. */
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";

export const REPO_ROOT = path.resolve(__dirname, "../..");

const SKIP_DIRS = new Set(["node_modules", "dist", "dist-bench", "coverage", "data", "test-artifacts", ".tmp", ".git"]);
const SOURCE = /\.(ts|tsx|mts|cts)$/;

/** Every TypeScript source under `root` outside build output and dependencies, repo-relative with `/`. */
export function sourceFiles(root = REPO_ROOT): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) walk(path.join(dir, e.name));
      } else if (SOURCE.test(e.name)) {
        out.push(path.relative(root, path.join(dir, e.name)).split(path.sep).join("/"));
      }
    }
  };
  walk(root);
  return out.sort();
}

/** Module specifiers a file names: imports and re-exports (type-only too), `import("x")` types and calls, `require("x")`. */
export function specifiersOf(fileName: string, text: string): string[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      out.push(node.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const e = node.moduleReference.expression;
      if (ts.isStringLiteral(e)) out.push(e.text);
    } else if (ts.isImportTypeNode(node)) {
      const a = node.argument;
      if (ts.isLiteralTypeNode(a) && ts.isStringLiteral(a.literal)) out.push(a.literal.text);
    } else if (ts.isCallExpression(node) && node.arguments.length >= 1 && ts.isStringLiteralLike(node.arguments[0])) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === "require"))
        out.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

const RESOLVE_OPTIONS: ts.CompilerOptions = {
  moduleResolution: ts.ModuleResolutionKind.Node10,
  allowJs: false,
  resolveJsonModule: false,
  baseUrl: REPO_ROOT,
  paths: { "@pmx/client/*": ["./client/src/*"] },
};

/** file -> the repository files it imports (packages and unresolvable names left out). */
export type ImportGraph = Map<string, string[]>;

export function importGraph(root = REPO_ROOT): ImportGraph {
  const files = sourceFiles(root);
  const known = new Set(files);
  const host = ts.sys;
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const abs = path.join(root, file);
    const targets = new Set<string>();
    for (const spec of specifiersOf(abs, fs.readFileSync(abs, "utf8"))) {
      const r = ts.resolveModuleName(spec, abs, { ...RESOLVE_OPTIONS, baseUrl: root }, host).resolvedModule;
      if (!r || r.isExternalLibraryImport) continue;
      const rel = path.relative(root, r.resolvedFileName).split(path.sep).join("/");
      if (known.has(rel)) targets.add(rel);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/** Strongly connected components (Tarjan), each sorted; singletons without a self-import left out. */
export function cycles(graph: ImportGraph): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  const strong = (v: string): void => {
    // Iterative, so a deep chain of imports cannot overflow the call stack.
    const work: Array<{ v: string; i: number }> = [{ v, i: 0 }];
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    while (work.length > 0) {
      const top = work[work.length - 1];
      const next = graph.get(top.v) ?? [];
      if (top.i < next.length) {
        const w = next[top.i++];
        if (!idx.has(w)) {
          idx.set(w, index);
          low.set(w, index++);
          stack.push(w);
          onStack.add(w);
          work.push({ v: w, i: 0 });
        } else if (onStack.has(w)) {
          low.set(top.v, Math.min(low.get(top.v)!, idx.get(w)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].v;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.v)!));
      }
      if (low.get(top.v) === idx.get(top.v)) {
        const comp: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          comp.push(w);
        } while (w !== top.v);
        if (comp.length > 1 || (graph.get(top.v) ?? []).includes(top.v)) out.push(comp.sort());
      }
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) strong(v);
  return out.sort((a, b) => b.length - a.length);
}

/** One shortest circular path through a component (`a -> b -> ... -> a`), to show where a cycle runs. */
export function cyclePath(graph: ImportGraph, component: string[]): string[] {
  const inside = new Set(component);
  const start = component[0];
  const prev = new Map<string, string>();
  const queue = [start];
  const seen = new Set<string>();
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const route = [start];
        for (let x = v; x !== start; x = prev.get(x)!) route.splice(1, 0, x);
        return [...route, start];
      }
      if (seen.has(w)) continue;
      seen.add(w);
      prev.set(w, v);
      queue.push(w);
    }
  }
  return [start, start];
}
